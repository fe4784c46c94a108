// The gathers of a convolution lowered to one matrix product (poplin/src/ConvLowered.hpp). Both
// take where kernel element k meets the input for output position o, per spatial dimension, as
// tables rowTable[k · outH + o] and colTable[k · outW + o] (an input index, or −1 for a zero:
// padding, a dilation hole, a truncated or padded output), so every ConvParams transform is
// already folded in:
//   poplin::Im2col   patches[c][k][b][o] = in[c][b][rows[k][o]][cols[k][o]]    (the product's B)
//   poplin::Col2im   out[c][b][o] = Σ_k Z[c][k][b][rows[k][o]][cols[k][o]]    (from its result)
// where k runs over (kernel row, kernel column). Col2im sums each output over k in increasing
// order (kernel rows, then columns), so results never depend on the host threads.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include "poplin/PoplinCodelets.hpp"

namespace tessera::codelets::poplin {
namespace {

/// Fields both gathers have: the tables and the shapes they index.
struct LoweredShape {
  poplar::Vector<int> rowTable, colTable;
  unsigned chans, batch, inHeight, inWidth, kernelHeight, kernelWidth, outHeight, outWidth;
};

/// A run of one kernel column's table: outputs x0 + t·dx read input column j0 + t·dj for
/// t < count. Tables are runs of a few regular pieces (padding at the edges, the stride or the
/// dilation's step between), so the inner loops walk constant steps instead of looking up and
/// testing every index.
struct ColumnRun {
  std::size_t x0, j0, count, dx, dj;
};

/// The runs of colTable[kc · outWidth + x] >= 0, in increasing x.
void columnRuns(const int *cols, std::size_t outWidth, std::vector<ColumnRun> &runs) {
  runs.clear();
  for (std::size_t x = 0; x < outWidth; ++x) {
    if (cols[x] < 0)
      continue;
    const std::size_t j = std::size_t(cols[x]);
    if (!runs.empty()) {
      ColumnRun &r = runs.back();
      const std::size_t lastX = r.x0 + (r.count - 1) * r.dx;
      const std::size_t lastJ = r.j0 + (r.count - 1) * r.dj;
      if (r.count == 1 && j >= lastJ) { // the second element fixes the steps
        r.dx = x - lastX;
        r.dj = j - lastJ;
        ++r.count;
        continue;
      }
      if (x - lastX == r.dx && j >= lastJ && j - lastJ == r.dj) {
        ++r.count;
        continue;
      }
    }
    runs.push_back({x, j, 1, 1, 1});
  }
}

/// Per host thread: every kernel column's runs (reused, so runs allocate nothing).
std::vector<std::vector<ColumnRun>> &runScratch(std::size_t kernelWidth) {
  thread_local std::vector<std::vector<ColumnRun>> runs;
  if (runs.size() < kernelWidth)
    runs.resize(kernelWidth);
  return runs;
}

/// dst[x0 + t·dx] = src[j0 + t·dj] (or += with `accumulate`), the common steps spelled out so
/// the compiler sees constant strides.
template <bool accumulate>
inline void applyRun(const ColumnRun &r, const float *__restrict src, float *__restrict dst) {
  float *d = dst + r.x0;
  const float *s = src + r.j0;
  auto step = [&](std::size_t dx, std::size_t dj) {
    for (std::size_t t = 0; t < r.count; ++t) {
      if constexpr (accumulate)
        d[t * dx] += s[t * dj];
      else
        d[t * dx] = s[t * dj];
    }
  };
  if (r.dx == 1 && r.dj == 1)
    step(1, 1);
  else if (r.dx == 1 && r.dj == 2)
    step(1, 2);
  else if (r.dx == 2 && r.dj == 1)
    step(2, 1);
  else
    step(r.dx, r.dj);
}

class Im2col : public poplar::Vertex, public LoweredShape {
public:
  poplar::Input<poplar::Vector<float>> in; ///< [chans][batch][inHeight][inWidth]
  poplar::Output<poplar::Vector<float>>
      out; ///< [chans][kernel rows][kernel cols][batch][outH][outW]

  bool compute() {
    const std::size_t inPlane = std::size_t(inHeight) * inWidth;
    auto &runs = runScratch(kernelWidth);
    for (std::size_t kc = 0; kc < kernelWidth; ++kc)
      columnRuns(colTable.data() + kc * outWidth, outWidth, runs[kc]);
    float *dst = out.data();
    for (std::size_t c = 0; c < chans; ++c)
      for (std::size_t kr = 0; kr < kernelHeight; ++kr)
        for (std::size_t kc = 0; kc < kernelWidth; ++kc)
          for (std::size_t b = 0; b < batch; ++b) {
            const float *plane = in.data() + (c * batch + b) * inPlane;
            for (std::size_t y = 0; y < outHeight; ++y, dst += outWidth) {
              std::fill(dst, dst + outWidth, 0.0f);
              const int row = rowTable[kr * outHeight + y];
              if (row < 0)
                continue;
              for (const ColumnRun &r : runs[kc])
                applyRun<false>(r, plane + std::size_t(row) * inWidth, dst);
            }
          }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 40 + 2 * std::uint64_t(out.size()); }
};

class Col2im : public poplar::Vertex, public LoweredShape {
public:
  poplar::Input<poplar::Vector<float>> in;   ///< [chans][kernel rows][kernel cols][batch][inH][inW]
  poplar::Output<poplar::Vector<float>> out; ///< [chans][batch][outHeight][outWidth]
  /// The product's rows list the kernel flipped (an input gradient's stored weights): row k
  /// holds kernel element (kernelHeight − 1 − row, kernelWidth − 1 − column).
  bool flip;

  bool compute() {
    const std::size_t inPlane = std::size_t(inHeight) * inWidth;
    const std::size_t outPlane = std::size_t(outHeight) * outWidth;
    auto &runs = runScratch(kernelWidth);
    for (std::size_t kc = 0; kc < kernelWidth; ++kc)
      columnRuns(colTable.data() + kc * outWidth, outWidth, runs[kc]);
    std::fill(out.begin(), out.end(), 0.0f);
    for (std::size_t c = 0; c < chans; ++c)
      for (std::size_t kr = 0; kr < kernelHeight; ++kr)
        for (std::size_t kc = 0; kc < kernelWidth; ++kc) {
          const std::size_t r = flip ? kernelHeight - 1 - kr : kr;
          const std::size_t q = flip ? kernelWidth - 1 - kc : kc;
          const float *columns =
              in.data() + ((c * kernelHeight + r) * kernelWidth + q) * batch * inPlane;
          for (std::size_t b = 0; b < batch; ++b) {
            const float *plane = columns + b * inPlane;
            float *dst = out.data() + (c * batch + b) * outPlane;
            for (std::size_t y = 0; y < outHeight; ++y) {
              const int row = rowTable[kr * outHeight + y];
              if (row < 0)
                continue;
              for (const ColumnRun &run : runs[kc])
                applyRun<true>(run, plane + std::size_t(row) * inWidth, dst + y * outWidth);
            }
          }
        }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 40 + 2 * std::uint64_t(in.size()); }
};

template <class V> tessera::VertexTypeBuilder<V> loweredFields(const char *name) {
  tessera::VertexTypeBuilder<V> builder(name);
  builder.field("in", &V::in)
      .field("out", &V::out)
      .field("rowTable", &V::rowTable)
      .field("colTable", &V::colTable)
      .field("chans", &V::chans)
      .field("batch", &V::batch)
      .field("inHeight", &V::inHeight)
      .field("inWidth", &V::inWidth)
      .field("kernelHeight", &V::kernelHeight)
      .field("kernelWidth", &V::kernelWidth)
      .field("outHeight", &V::outHeight)
      .field("outWidth", &V::outWidth);
  return builder;
}

} // namespace

void registerLoweredVertices() {
  loweredFields<Im2col>("poplin::Im2col").add();
  loweredFields<Col2im>("poplin::Col2im").field("flip", &Col2im::flip).add();
}

} // namespace tessera::codelets::poplin
