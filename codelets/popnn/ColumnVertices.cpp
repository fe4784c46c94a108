// Vertices over a stretch of a [rows][rowLength] tensor whose coefficients vary along the row:
// layer norm on [tokens][hidden] activations, where each row is one sample's channels and γ, β
// (and the parameter gradients) are per column. Element i of a stretch is in column
// (firstColumn + i) % rowLength; its column coefficients are at index column - columnBegin of
// the connected γ / β / sums (the columns the stretch touches).
//  - popnn::RowNormaliseColumns<float>: rows split into segments of segLength (one statistic
//    each, segLength divides rowLength); element i is in local segment (offset + i) / segLength;
//    whitened = invStdDev[s] * x + (-mean[s] * invStdDev[s]) and out = gamma[c] * whitened +
//    beta[c], rounded exactly as popnn::RowNormalise<float> does.
//  - popnn::ColumnScale<float>: out = gamma[c] * x.
//  - popnn::ColumnSumsPartial<float>: sums[c'] = Σ x and sums[width + c'] = Σ x·y over the
//    stretch's rows, c' = c - columnBegin, width = sums.size() / 2, added row by row.
//  - popnn::ColumnSumsFinish: sumX[j] = Σ partialX[l][j] and sumXY[j] = Σ partialXY[l][j], added
//    in list order (fixed when the graph is built, so results never depend on host threads).
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include <algorithm>
#include <cstdint>

#include "popnn/PopnnCodelets.hpp"
#include "popnn/kernels/ColumnKernels.hpp"
#include "popnn/kernels/RowAffineKernels.hpp"

namespace tessera::codelets::popnn {
namespace {

/// The kernel pointers are taken once, when the types register (never looked up per call).
ColumnAffineFn gColumnAffine = nullptr;
ColumnSumsFn gColumnSums = nullptr;
RowAffineFn gRowAffineForColumns = nullptr;

/// Calls f(i, runLength, column) for the runs of [0, n) that stay within one row.
template <class F>
void forEachRowRun(std::size_t n, std::size_t rowLength, std::size_t firstColumn, F &&f) {
  std::size_t i = 0, column = firstColumn;
  while (i < n) {
    const std::size_t len = std::min(n - i, rowLength - column);
    f(i, len, column);
    i += len;
    column = 0;
  }
}

class RowNormaliseColumns : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> x;
  poplar::Output<poplar::Vector<float>> whitened, out;
  poplar::Input<poplar::Vector<float>> mean, invStdDev, gamma, beta;
  unsigned rowLength, segLength, offset, firstColumn, columnBegin;

  bool compute() {
    const std::size_t n = out.size();
    std::size_t i = 0;
    while (i < n) {
      const std::size_t seg = (offset + i) / segLength;
      const std::size_t end = std::min(n, (seg + 1) * segLength - offset);
      const std::size_t column = (firstColumn + i) % rowLength - columnBegin;
      const float a = invStdDev[seg], k = -mean[seg] * invStdDev[seg];
      gRowAffineForColumns(x.data() + i, nullptr, whitened.data() + i, end - i, a, 0.0f, k);
      gColumnAffine(whitened.data() + i, gamma.data() + column, beta.data() + column,
                    out.data() + i, end - i);
      i = end;
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 40 + out.size() / 2 + 12 * mean.size(); }
};

class ColumnScale : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> x, gamma;
  poplar::Output<poplar::Vector<float>> out;
  unsigned rowLength, firstColumn, columnBegin;

  bool compute() {
    forEachRowRun(out.size(), rowLength, firstColumn,
                  [&](std::size_t i, std::size_t len, std::size_t column) {
                    gColumnAffine(x.data() + i, gamma.data() + (column - columnBegin), nullptr,
                                  out.data() + i, len);
                  });
    return true;
  }
  std::uint64_t cycleEstimate() const { return 30 + out.size() / 2; }
};

class ColumnSumsPartial : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> x, y;
  poplar::Output<poplar::Vector<float>> sums;
  unsigned rowLength, firstColumn, columnBegin;

  bool compute() {
    const std::size_t width = sums.size() / 2;
    float *sumX = sums.data(), *sumXY = sums.data() + width;
    std::fill(sums.data(), sums.data() + sums.size(), 0.0f);
    forEachRowRun(x.size(), rowLength, firstColumn,
                  [&](std::size_t i, std::size_t len, std::size_t column) {
                    const std::size_t c = column - columnBegin;
                    gColumnSums(x.data() + i, y.data() + i, len, sumX + c, sumXY + c);
                  });
    return true;
  }
  std::uint64_t cycleEstimate() const { return 30 + x.size() + sums.size() / 4; }
};

class ColumnSumsFinish : public poplar::Vertex {
public:
  poplar::Input<poplar::VectorList<float>> partialX, partialXY;
  poplar::Output<poplar::Vector<float>> sumX, sumXY;

  bool compute() {
    const std::size_t width = sumX.size();
    std::fill(sumX.data(), sumX.data() + width, 0.0f);
    std::fill(sumXY.data(), sumXY.data() + width, 0.0f);
    for (std::size_t l = 0; l < partialX.size(); ++l) {
      gColumnSums(partialX[l].data(), nullptr, width, sumX.data(), nullptr);
      gColumnSums(partialXY[l].data(), nullptr, width, sumXY.data(), nullptr);
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 30 + partialX.size() * (8 + sumX.size() / 2); }
};

} // namespace

void registerColumnVertices() {
  gColumnAffine = columnAffineKernel();
  gColumnSums = columnSumsKernel();
  gRowAffineForColumns = rowAffineKernel();
  tessera::VertexTypeBuilder<RowNormaliseColumns>("popnn::RowNormaliseColumns<float>")
      .field("x", &RowNormaliseColumns::x)
      .field("whitened", &RowNormaliseColumns::whitened)
      .field("out", &RowNormaliseColumns::out)
      .field("mean", &RowNormaliseColumns::mean)
      .field("invStdDev", &RowNormaliseColumns::invStdDev)
      .field("gamma", &RowNormaliseColumns::gamma)
      .field("beta", &RowNormaliseColumns::beta)
      .field("rowLength", &RowNormaliseColumns::rowLength)
      .field("segLength", &RowNormaliseColumns::segLength)
      .field("offset", &RowNormaliseColumns::offset)
      .field("firstColumn", &RowNormaliseColumns::firstColumn)
      .field("columnBegin", &RowNormaliseColumns::columnBegin)
      .add();
  tessera::VertexTypeBuilder<ColumnScale>("popnn::ColumnScale<float>")
      .field("x", &ColumnScale::x)
      .field("gamma", &ColumnScale::gamma)
      .field("out", &ColumnScale::out)
      .field("rowLength", &ColumnScale::rowLength)
      .field("firstColumn", &ColumnScale::firstColumn)
      .field("columnBegin", &ColumnScale::columnBegin)
      .add();
  tessera::VertexTypeBuilder<ColumnSumsPartial>("popnn::ColumnSumsPartial<float>")
      .field("x", &ColumnSumsPartial::x)
      .field("y", &ColumnSumsPartial::y)
      .field("sums", &ColumnSumsPartial::sums)
      .field("rowLength", &ColumnSumsPartial::rowLength)
      .field("firstColumn", &ColumnSumsPartial::firstColumn)
      .field("columnBegin", &ColumnSumsPartial::columnBegin)
      .add();
  tessera::VertexTypeBuilder<ColumnSumsFinish>("popnn::ColumnSumsFinish")
      .field("partialX", &ColumnSumsFinish::partialX)
      .field("partialXY", &ColumnSumsFinish::partialXY)
      .field("sumX", &ColumnSumsFinish::sumX)
      .field("sumXY", &ColumnSumsFinish::sumXY)
      .add();
}

} // namespace tessera::codelets::popnn
