// popnn::RowAffine<float> (out = a[r]*x + k[r]) and popnn::RowAxpby<float>
// (out = a[r]*x + b[r]*y + k[r]) over a stretch of a [rows][rowLength] tensor: element i of the
// stretch is in local row (offset + i) / rowLength, whose coefficients are a[row], b[row], k[row].
// The norms' fused passes, coefficients formed per row inside the vertex (no per-row coefficient
// tensors): popnn::RowNormalise<float> writes whitened = (x - mean[r]) * invStdDev[r], as
// invStdDev[r]*x + (-mean[r]*invStdDev[r]), and out = gamma[r]*whitened + beta[r] from one read
// of x; popnn::RowNormGradient<float> writes, with s = scale[r]*invStdDev[r],
// out = s*x - s*(sumXY[r]*invN)*y - s*(sumX[r]*invN), batch norm's input gradient
// (x = gradsIn, y = whitened, scale = gamma).
//
// A tile's workers run one after another on one host thread, so a share per worker would only
// cut the row-runs into shorter kernel calls: worker 0 takes the whole stretch and the others
// return at once (every element is computed alone, so the result is the same).
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include <algorithm>

#include "popnn/PopnnCodelets.hpp"
#include "popnn/kernels/RowAffineKernels.hpp"

namespace tessera::codelets::popnn {
namespace {

/// The kernel pointer is taken once, when the types register (never looked up per call).
RowAffineFn gRowAffine = nullptr;

/// Applies the kernel to elements [begin, end) of the stretch, one row-run at a time.
void applyRuns(const float *x, const float *y, float *out, std::size_t begin, std::size_t end,
               std::size_t offset, std::size_t rowLength, const float *a, const float *b,
               const float *k) {
  std::size_t i = begin;
  while (i < end) {
    const std::size_t row = (offset + i) / rowLength;
    const std::size_t rowEnd = std::min(end, (row + 1) * rowLength - offset);
    gRowAffine(x + i, y ? y + i : nullptr, out + i, rowEnd - i, a[row], b ? b[row] : 0.0f, k[row]);
    i = rowEnd;
  }
}

class RowAffine : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<float>> x;
  poplar::Output<poplar::Vector<float>> out;
  poplar::Input<poplar::Vector<float>> a, k;
  unsigned rowLength;
  unsigned offset;

  bool compute(unsigned workerId) {
    if (workerId != 0)
      return true;
    applyRuns(x.data(), nullptr, out.data(), 0, out.size(), offset, rowLength, a.data(), nullptr,
              k.data());
    return true;
  }
  std::uint64_t cycleEstimate() const { return 30 + out.size() / (2 * 6) + 6 * a.size(); }
};

class RowAxpby : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<float>> x, y;
  poplar::Output<poplar::Vector<float>> out;
  poplar::Input<poplar::Vector<float>> a, b, k;
  unsigned rowLength;
  unsigned offset;

  bool compute(unsigned workerId) {
    if (workerId != 0)
      return true;
    applyRuns(x.data(), y.data(), out.data(), 0, out.size(), offset, rowLength, a.data(), b.data(),
              k.data());
    return true;
  }
  std::uint64_t cycleEstimate() const { return 30 + out.size() / 6 + 6 * a.size(); }
};

class RowNormalise : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<float>> x;
  poplar::Output<poplar::Vector<float>> whitened, out;
  poplar::Input<poplar::Vector<float>> mean, invStdDev, gamma, beta;
  unsigned rowLength;
  unsigned offset;

  bool compute(unsigned workerId) {
    // Block by block, so the second map reads `whitened` back from cache, not memory.
    constexpr std::size_t kBlock = 2048;
    if (workerId != 0)
      return true;
    const std::size_t begin = 0, end = out.size();
    for (std::size_t b0 = begin; b0 < end; b0 += kBlock) {
      const std::size_t b1 = std::min(end, b0 + kBlock);
      std::size_t i = b0;
      while (i < b1) {
        const std::size_t row = (offset + i) / rowLength;
        const std::size_t rowEnd = std::min(b1, (row + 1) * rowLength - offset);
        const float a = invStdDev[row], k = -mean[row] * invStdDev[row];
        gRowAffine(x.data() + i, nullptr, whitened.data() + i, rowEnd - i, a, 0.0f, k);
        gRowAffine(whitened.data() + i, nullptr, out.data() + i, rowEnd - i, gamma[row], 0.0f,
                   beta[row]);
        i = rowEnd;
      }
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 40 + out.size() / 6 + 12 * mean.size(); }
};

class RowNormGradient : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<float>> x, y;
  poplar::Output<poplar::Vector<float>> out;
  poplar::Input<poplar::Vector<float>> scale, invStdDev, sumX, sumXY;
  float invN;
  unsigned rowLength;
  unsigned offset;

  bool compute(unsigned workerId) {
    if (workerId != 0)
      return true;
    const std::size_t end = out.size();
    std::size_t i = 0;
    while (i < end) {
      const std::size_t row = (offset + i) / rowLength;
      const std::size_t rowEnd = std::min(end, (row + 1) * rowLength - offset);
      const float s = scale[row] * invStdDev[row];
      gRowAffine(x.data() + i, y.data() + i, out.data() + i, rowEnd - i, s,
                 -s * (sumXY[row] * invN), -s * (sumX[row] * invN));
      i = rowEnd;
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 40 + out.size() / 6 + 12 * scale.size(); }
};

} // namespace

void registerRowAffineVertices() {
  gRowAffine = rowAffineKernel();
  tessera::VertexTypeBuilder<RowAffine>("popnn::RowAffine<float>")
      .field("x", &RowAffine::x)
      .field("out", &RowAffine::out)
      .field("a", &RowAffine::a)
      .field("k", &RowAffine::k)
      .field("rowLength", &RowAffine::rowLength)
      .field("offset", &RowAffine::offset)
      .add();
  tessera::VertexTypeBuilder<RowAxpby>("popnn::RowAxpby<float>")
      .field("x", &RowAxpby::x)
      .field("y", &RowAxpby::y)
      .field("out", &RowAxpby::out)
      .field("a", &RowAxpby::a)
      .field("b", &RowAxpby::b)
      .field("k", &RowAxpby::k)
      .field("rowLength", &RowAxpby::rowLength)
      .field("offset", &RowAxpby::offset)
      .add();
  tessera::VertexTypeBuilder<RowNormalise>("popnn::RowNormalise<float>")
      .field("x", &RowNormalise::x)
      .field("whitened", &RowNormalise::whitened)
      .field("out", &RowNormalise::out)
      .field("mean", &RowNormalise::mean)
      .field("invStdDev", &RowNormalise::invStdDev)
      .field("gamma", &RowNormalise::gamma)
      .field("beta", &RowNormalise::beta)
      .field("rowLength", &RowNormalise::rowLength)
      .field("offset", &RowNormalise::offset)
      .add();
  tessera::VertexTypeBuilder<RowNormGradient>("popnn::RowNormGradient<float>")
      .field("x", &RowNormGradient::x)
      .field("y", &RowNormGradient::y)
      .field("out", &RowNormGradient::out)
      .field("scale", &RowNormGradient::scale)
      .field("invStdDev", &RowNormGradient::invStdDev)
      .field("sumX", &RowNormGradient::sumX)
      .field("sumXY", &RowNormGradient::sumXY)
      .field("invN", &RowNormGradient::invN)
      .field("rowLength", &RowNormGradient::rowLength)
      .field("offset", &RowNormGradient::offset)
      .add();
}

} // namespace tessera::codelets::popnn
