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

class Im2col : public poplar::Vertex, public LoweredShape {
public:
  poplar::Input<poplar::Vector<float>> in; ///< [chans][batch][inHeight][inWidth]
  poplar::Output<poplar::Vector<float>>
      out; ///< [chans][kernel rows][kernel cols][batch][outH][outW]

  bool compute() {
    const std::size_t inPlane = std::size_t(inHeight) * inWidth;
    float *dst = out.data();
    for (std::size_t c = 0; c < chans; ++c)
      for (std::size_t kr = 0; kr < kernelHeight; ++kr)
        for (std::size_t kc = 0; kc < kernelWidth; ++kc) {
          const int *cols = colTable.data() + kc * outWidth;
          for (std::size_t b = 0; b < batch; ++b) {
            const float *plane = in.data() + (c * batch + b) * inPlane;
            for (std::size_t y = 0; y < outHeight; ++y, dst += outWidth) {
              const int row = rowTable[kr * outHeight + y];
              if (row < 0) {
                std::fill(dst, dst + outWidth, 0.0f);
                continue;
              }
              const float *src = plane + std::size_t(row) * inWidth;
              for (std::size_t x = 0; x < outWidth; ++x)
                dst[x] = cols[x] < 0 ? 0.0f : src[cols[x]];
            }
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
    std::fill(out.begin(), out.end(), 0.0f);
    for (std::size_t c = 0; c < chans; ++c)
      for (std::size_t kr = 0; kr < kernelHeight; ++kr)
        for (std::size_t kc = 0; kc < kernelWidth; ++kc) {
          const std::size_t r = flip ? kernelHeight - 1 - kr : kr;
          const std::size_t q = flip ? kernelWidth - 1 - kc : kc;
          const int *cols = colTable.data() + kc * outWidth;
          const float *rowsOfK =
              in.data() + ((c * kernelHeight + r) * kernelWidth + q) * batch * inPlane;
          for (std::size_t b = 0; b < batch; ++b) {
            const float *plane = rowsOfK + b * inPlane;
            float *dst = out.data() + (c * batch + b) * outPlane;
            for (std::size_t y = 0; y < outHeight; ++y) {
              const int row = rowTable[kr * outHeight + y];
              if (row < 0)
                continue;
              const float *src = plane + std::size_t(row) * inWidth;
              float *o = dst + y * outWidth;
              for (std::size_t x = 0; x < outWidth; ++x)
                if (cols[x] >= 0)
                  o[x] += src[cols[x]];
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
