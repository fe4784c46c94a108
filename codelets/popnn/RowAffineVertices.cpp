// popnn::RowAffine<float> (out = a[r]*x + k[r]) and popnn::RowAxpby<float>
// (out = a[r]*x + b[r]*y + k[r]) over a stretch of a [rows][rowLength] tensor: element i of the
// stretch is in local row (offset + i) / rowLength, whose coefficients are a[row], b[row], k[row].
// Each worker takes a fixed contiguous share of the stretch.
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
    const std::size_t n = out.size(), w = numWorkers();
    applyRuns(x.data(), nullptr, out.data(), n * workerId / w, n * (workerId + 1) / w, offset,
              rowLength, a.data(), nullptr, k.data());
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
    const std::size_t n = out.size(), w = numWorkers();
    applyRuns(x.data(), y.data(), out.data(), n * workerId / w, n * (workerId + 1) / w, offset,
              rowLength, a.data(), b.data(), k.data());
    return true;
  }
  std::uint64_t cycleEstimate() const { return 30 + out.size() / 6 + 6 * a.size(); }
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
}

} // namespace tessera::codelets::popnn
