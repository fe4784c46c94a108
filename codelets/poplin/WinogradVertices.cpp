// The transforms of Winograd's F(2x2, 3x3) convolution (poplin/src/ConvWinograd.hpp). Each
// 2x2 block of outputs ("tile" below; not an IPU tile) is computed from the 4x4 input patch
// under it as Y = Aᵀ [(G g Gᵀ) ⊙ (Bᵀ d B)] A, so the 9 multiplies per output of a direct 3x3
// convolution become 16 per 4 outputs, and the channel sums of the 16 element-wise products
// are 16 independent matrix products done by the matMul vertices. With
//   Bᵀ = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1],  G = [1 0 0; ½ ½ ½; ½ -½ ½; 0 0 1],
//   Aᵀ = [1 1 1 0; 0 1 -1 -1]:
//   poplin::WinogradInputTransform   planes of input → Bᵀ d B per tile         (forward, WU)
//   poplin::WinogradKernelTransform  3x3 kernels → G g Gᵀ                      (forward)
//   poplin::WinogradOutputTransform  16 products per tile → Aᵀ m A, 2x2 outputs (forward)
//   poplin::WinogradGradientTransform output gradients → A dY Aᵀ per tile      (WU)
//   poplin::WinogradKernelGradient   16 gradient products → Gᵀ dU G per kernel (WU)
// The last two are the adjoints of the output and kernel transforms, so the weight gradient is
// the exact gradient of the forward computation.
//
// Transformed data is "element-major": a vertex's 16-element side is 16 segments of equal
// length, segment e = 4·row + column of the 4x4 element, each listing the vertex's tiles in
// (plane, tile row, tile column) order, or its kernels in order. A plane is one (channel, batch)
// image. Every value is a fixed sequence of adds, subtracts and halvings, so results never depend
// on the host threads.
// The plane transforms run their tile rows through Highway kernels (kernels/WinogradKernels.hpp).
#include <algorithm>
#include <cstdint>
#include <vector>

#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include "poplin/PoplinCodelets.hpp"
#include "poplin/kernels/WinogradKernels.hpp"

namespace tessera::codelets::poplin {
namespace {

/// Per host thread: the input transform's padded plane (reused, so runs allocate nothing).
std::vector<float> &scratch() {
  thread_local std::vector<float> buffer;
  return buffer;
}

class WinogradInputTransform : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> in;   ///< [planes][height][width]
  poplar::Output<poplar::Vector<float>> out; ///< [16][planes][tilesY][tilesX]
  unsigned planes, height, width, padTop, padLeft, tilesY, tilesX;

  bool compute() {
    static const WinogradInputRowFn row = winogradInputRowKernel();
    const std::size_t tX = tilesX, n1 = tX + 1, ph = 2 * std::size_t(tilesY) + 2;
    const std::size_t perPlane = std::size_t(tilesY) * tX, len = planes * perPlane;
    // The padded plane (input at (padTop, padLeft), zeros around it and under the last tile
    // row or column of an odd output) with its even and odd columns apart, so the kernel reads
    // every patch column contiguously. The same positions hold input in every plane, so the
    // zeros are written once.
    std::vector<float> &buf = scratch();
    buf.assign(2 * ph * n1, 0.0f);
    float *even = buf.data(), *odd = even + ph * n1;
    const std::size_t copyH = std::min<std::size_t>(height, ph - padTop);
    const std::size_t copyW = std::min<std::size_t>(width, 2 * n1 - padLeft);
    // Field column X = x + padLeft goes to even[X / 2] when X is even, odd[X / 2] when odd.
    const std::size_t firstEven = padLeft % 2, firstOdd = 1 - padLeft % 2;
    for (std::size_t p = 0; p < planes; ++p) {
      for (std::size_t y = 0; y < copyH; ++y) {
        const float *src = in.data() + (p * height + y) * width;
        float *e = even + (y + padTop) * n1, *o = odd + (y + padTop) * n1;
        for (std::size_t x = firstEven; x < copyW; x += 2)
          e[(x + padLeft) / 2] = src[x];
        for (std::size_t x = firstOdd; x < copyW; x += 2)
          o[(x + padLeft) / 2] = src[x];
      }
      for (std::size_t ty = 0; ty < tilesY; ++ty)
        row(tX, even + 2 * ty * n1, odd + 2 * ty * n1, n1, out.data() + p * perPlane + ty * tX,
            len);
    }
    return true;
  }
  std::uint64_t cycleEstimate() const {
    return 40 + 2 * std::uint64_t(in.size()) + std::uint64_t(out.size());
  }
};

class WinogradOutputTransform : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> in;   ///< [16][planes][tilesY][tilesX]
  poplar::Output<poplar::Vector<float>> out; ///< [planes][outHeight][outWidth]
  unsigned planes, outHeight, outWidth, tilesY, tilesX;

  bool compute() {
    static const WinogradOutputRowFn row = winogradOutputRowKernel();
    const std::size_t tX = tilesX, perPlane = std::size_t(tilesY) * tX, len = planes * perPlane;
    for (std::size_t p = 0; p < planes; ++p)
      for (std::size_t ty = 0; ty < tilesY; ++ty) {
        float *row0 = out.data() + (p * outHeight + 2 * ty) * outWidth;
        row(tX, in.data() + p * perPlane + ty * tX, len, row0,
            2 * ty + 1 < outHeight ? row0 + outWidth : nullptr, outWidth);
      }
    return true;
  }
  std::uint64_t cycleEstimate() const {
    return 40 + std::uint64_t(in.size()) + std::uint64_t(out.size());
  }
};

class WinogradGradientTransform : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> in;   ///< [planes][outHeight][outWidth]
  poplar::Output<poplar::Vector<float>> out; ///< [16][planes][tilesY][tilesX]
  unsigned planes, outHeight, outWidth, tilesY, tilesX;

  bool compute() {
    static const WinogradGradientRowFn row = winogradGradientRowKernel();
    const std::size_t tX = tilesX, perPlane = std::size_t(tilesY) * tX, len = planes * perPlane;
    for (std::size_t p = 0; p < planes; ++p)
      for (std::size_t ty = 0; ty < tilesY; ++ty) {
        const float *row0 = in.data() + (p * outHeight + 2 * ty) * outWidth;
        row(tX, row0, 2 * ty + 1 < outHeight ? row0 + outWidth : nullptr, outWidth,
            out.data() + p * perPlane + ty * tX, len);
      }
    return true;
  }
  std::uint64_t cycleEstimate() const {
    return 40 + std::uint64_t(in.size()) + std::uint64_t(out.size());
  }
};

/// Kernel element (a, b) of a stored 3x3 kernel as the convolution applies it.
inline std::size_t kernelIndex(std::size_t a, std::size_t b, bool flipY, bool flipX) {
  return (flipY ? 2 - a : a) * 3 + (flipX ? 2 - b : b);
}

class WinogradKernelTransform : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> in;   ///< [kernels][3][3]
  poplar::Output<poplar::Vector<float>> out; ///< [16][kernels]
  bool flipY, flipX;

  bool compute() {
    const std::size_t n = in.size() / 9;
    for (std::size_t q = 0; q < n; ++q) {
      const float *g = in.data() + 9 * q;
      float k[3][3];
      for (std::size_t a = 0; a < 3; ++a)
        for (std::size_t b = 0; b < 3; ++b)
          k[a][b] = g[kernelIndex(a, b, flipY, flipX)];
      float t[4][3]; // G g
      for (std::size_t b = 0; b < 3; ++b) {
        t[0][b] = k[0][b];
        t[1][b] = 0.5f * (k[0][b] + k[1][b] + k[2][b]);
        t[2][b] = 0.5f * (k[0][b] - k[1][b] + k[2][b]);
        t[3][b] = k[2][b];
      }
      for (std::size_t i = 0; i < 4; ++i) { // (G g) Gᵀ
        float *o = out.data() + 4 * i * n + q;
        o[0] = t[i][0];
        o[n] = 0.5f * (t[i][0] + t[i][1] + t[i][2]);
        o[2 * n] = 0.5f * (t[i][0] - t[i][1] + t[i][2]);
        o[3 * n] = t[i][2];
      }
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 40 + 4 * std::uint64_t(out.size()); }
};

template <class OutT> class WinogradKernelGradient : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> in; ///< [16][kernels]
  poplar::InOut<poplar::Vector<OutT>> out; ///< [kernels][3][3]
  bool flipY, flipX, accumulate;
  float scale;

  bool compute() {
    const std::size_t n = out.size() / 9;
    for (std::size_t q = 0; q < n; ++q) {
      float t[3][4]; // Gᵀ dU
      for (std::size_t j = 0; j < 4; ++j) {
        const float u0 = in[j * n + q], u1 = in[(4 + j) * n + q], u2 = in[(8 + j) * n + q],
                    u3 = in[(12 + j) * n + q];
        t[0][j] = u0 + 0.5f * (u1 + u2);
        t[1][j] = 0.5f * (u1 - u2);
        t[2][j] = 0.5f * (u1 + u2) + u3;
      }
      OutT *o = out.data() + 9 * q;
      for (std::size_t a = 0; a < 3; ++a) { // (Gᵀ dU) G
        const float w[3] = {t[a][0] + 0.5f * (t[a][1] + t[a][2]), 0.5f * (t[a][1] - t[a][2]),
                            0.5f * (t[a][1] + t[a][2]) + t[a][3]};
        for (std::size_t b = 0; b < 3; ++b) {
          OutT &dst = o[kernelIndex(a, b, flipY, flipX)];
          dst = accumulate ? OutT(float(dst) + scale * w[b]) : OutT(w[b]);
        }
      }
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 40 + 6 * std::uint64_t(in.size()); }
};

/// The fields every plane-by-plane transform has.
template <class V> tessera::VertexTypeBuilder<V> planeFields(const char *name) {
  tessera::VertexTypeBuilder<V> builder(name);
  builder.field("in", &V::in)
      .field("out", &V::out)
      .field("planes", &V::planes)
      .field("tilesY", &V::tilesY)
      .field("tilesX", &V::tilesX);
  return builder;
}

template <class OutT> void registerKernelGradient(const char *name) {
  using V = WinogradKernelGradient<OutT>;
  tessera::VertexTypeBuilder<V>(name)
      .field("in", &V::in)
      .field("out", &V::out)
      .field("flipY", &V::flipY)
      .field("flipX", &V::flipX)
      .field("accumulate", &V::accumulate)
      .field("scale", &V::scale)
      .add();
}

} // namespace

void registerWinogradVertices() {
  using In = WinogradInputTransform;
  planeFields<In>("poplin::WinogradInputTransform")
      .field("height", &In::height)
      .field("width", &In::width)
      .field("padTop", &In::padTop)
      .field("padLeft", &In::padLeft)
      .add();
  using K = WinogradKernelTransform;
  tessera::VertexTypeBuilder<K>("poplin::WinogradKernelTransform")
      .field("in", &K::in)
      .field("out", &K::out)
      .field("flipY", &K::flipY)
      .field("flipX", &K::flipX)
      .add();
  using Out = WinogradOutputTransform;
  planeFields<Out>("poplin::WinogradOutputTransform")
      .field("outHeight", &Out::outHeight)
      .field("outWidth", &Out::outWidth)
      .add();
  using Grad = WinogradGradientTransform;
  planeFields<Grad>("poplin::WinogradGradientTransform")
      .field("outHeight", &Grad::outHeight)
      .field("outWidth", &Grad::outWidth)
      .add();
  registerKernelGradient<float>("poplin::WinogradKernelGradient<float>");
  registerKernelGradient<poplar::half>("poplin::WinogradKernelGradient<half>");
}

} // namespace tessera::codelets::poplin
