// The fused per-row reductions of popnn's norm layers, two compute sets:
//  - popnn::RowSums<float> (Σx and Σx·y) and popnn::RowSquareSums<float> (Σx and Σx²) over a
//    stretch of a [rows][rowLength] tensor laid out like RowAffine's: element i of the stretch is
//    in local row (offset + i) / rowLength; sums[2r], sums[2r + 1] receive local row r's pair.
//  - popnn::SumPartialPairs: partials[s] holds the (Σx, Σx·y) pairs of every stretch that
//    contributes to statistic s, in the order the graph chose; sumX[s] and sumXY[s] add them up
//    in that order. The order is fixed when the graph is built, so the results never depend on
//    how the tiles are spread over host threads.
//  - popnn::MomentsFromPartials: the same sums of (Σx, Σx²) pairs, finished into the mean and
//    1 / sqrt(max(E[x²] - mean², 0) * correction + eps), the norms' one-pass statistics.
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "popnn/PopnnCodelets.hpp"
#include "popnn/kernels/RowSumsKernels.hpp"

namespace tessera::codelets::popnn {
namespace {

/// The kernel pointer is taken once, when the types register (never looked up per call).
RowSumsFn gRowSums = nullptr;

/// One pair of sums per row-run of the stretch; y null: sums of squares.
void sumRuns(const float *x, const float *y, std::size_t n, std::size_t offset,
             std::size_t rowLength, float *sums, std::size_t numRowSums) {
  std::fill(sums, sums + numRowSums, 0.0f);
  std::size_t i = 0;
  while (i < n) {
    const std::size_t row = (offset + i) / rowLength;
    const std::size_t rowEnd = std::min(n, (row + 1) * rowLength - offset);
    gRowSums(x + i, y ? y + i : nullptr, rowEnd - i, sums + 2 * row);
    i = rowEnd;
  }
}

class RowSums : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> x, y;
  poplar::Output<poplar::Vector<float>> sums;
  unsigned rowLength;
  unsigned offset;

  bool compute() {
    sumRuns(x.data(), y.data(), x.size(), offset, rowLength, sums.data(), sums.size());
    return true;
  }
  std::uint64_t cycleEstimate() const { return 40 + x.size() / 2 + 8 * sums.size(); }
};

class RowSquareSums : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> x;
  poplar::Output<poplar::Vector<float>> sums;
  unsigned rowLength;
  unsigned offset;

  bool compute() {
    sumRuns(x.data(), nullptr, x.size(), offset, rowLength, sums.data(), sums.size());
    return true;
  }
  std::uint64_t cycleEstimate() const { return 40 + x.size() / 2 + 8 * sums.size(); }
};

class SumPartialPairs : public poplar::Vertex {
public:
  poplar::Input<poplar::VectorList<float>> partials;
  poplar::Output<poplar::Vector<float>> sumX, sumXY;

  bool compute() {
    for (std::size_t s = 0; s < partials.size(); ++s) {
      float sx = 0.0f, sxy = 0.0f;
      const std::size_t n = partials[s].size();
      for (std::size_t j = 0; j + 1 < n; j += 2) {
        sx += partials[s][j];
        sxy += partials[s][j + 1];
      }
      sumX[s] = sx;
      sumXY[s] = sxy;
    }
    return true;
  }
  std::uint64_t cycleEstimate() const {
    std::uint64_t n = 0;
    for (std::size_t s = 0; s < partials.size(); ++s)
      n += partials[s].size();
    return 30 + n + 4 * partials.size();
  }
};

class MomentsFromPartials : public poplar::Vertex {
public:
  poplar::Input<poplar::VectorList<float>> partials;
  poplar::Output<poplar::Vector<float>> mean, invStdDev;
  float invN, correction, eps;

  bool compute() {
    for (std::size_t s = 0; s < partials.size(); ++s) {
      float sx = 0.0f, sxx = 0.0f;
      const std::size_t n = partials[s].size();
      for (std::size_t j = 0; j + 1 < n; j += 2) {
        sx += partials[s][j];
        sxx += partials[s][j + 1];
      }
      const float m = sx * invN, m2 = sxx * invN;
      mean[s] = m;
      invStdDev[s] = 1.0f / std::sqrt(std::max(m2 - m * m, 0.0f) * correction + eps);
    }
    return true;
  }
  std::uint64_t cycleEstimate() const {
    std::uint64_t n = 0;
    for (std::size_t s = 0; s < partials.size(); ++s)
      n += partials[s].size();
    return 30 + n + 20 * partials.size();
  }
};

} // namespace

void registerRowSumsVertices() {
  gRowSums = rowSumsKernel();
  tessera::VertexTypeBuilder<RowSums>("popnn::RowSums<float>")
      .field("x", &RowSums::x)
      .field("y", &RowSums::y)
      .field("sums", &RowSums::sums)
      .field("rowLength", &RowSums::rowLength)
      .field("offset", &RowSums::offset)
      .add();
  tessera::VertexTypeBuilder<RowSquareSums>("popnn::RowSquareSums<float>")
      .field("x", &RowSquareSums::x)
      .field("sums", &RowSquareSums::sums)
      .field("rowLength", &RowSquareSums::rowLength)
      .field("offset", &RowSquareSums::offset)
      .add();
  tessera::VertexTypeBuilder<SumPartialPairs>("popnn::SumPartialPairs")
      .field("partials", &SumPartialPairs::partials)
      .field("sumX", &SumPartialPairs::sumX)
      .field("sumXY", &SumPartialPairs::sumXY)
      .add();
  tessera::VertexTypeBuilder<MomentsFromPartials>("popnn::MomentsFromPartials")
      .field("partials", &MomentsFromPartials::partials)
      .field("mean", &MomentsFromPartials::mean)
      .field("invStdDev", &MomentsFromPartials::invStdDev)
      .field("invN", &MomentsFromPartials::invN)
      .field("correction", &MomentsFromPartials::correction)
      .field("eps", &MomentsFromPartials::eps)
      .add();
}

} // namespace tessera::codelets::popnn
