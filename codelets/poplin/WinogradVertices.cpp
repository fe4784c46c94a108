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
// image. Every value is a fixed sequence of adds, so results never depend on the host threads.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include "poplin/PoplinCodelets.hpp"

namespace tessera::codelets::poplin {
namespace {

/// Per host thread: one zero-padded plane, and the four transformed rows of one tile row.
std::vector<float> &paddedScratch() {
  thread_local std::vector<float> buffer;
  return buffer;
}

class WinogradInputTransform : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> in;   ///< [planes][height][width]
  poplar::Output<poplar::Vector<float>> out; ///< [16][planes][tilesY][tilesX]
  unsigned planes, height, width, padTop, padLeft, tilesY, tilesX;

  bool compute() {
    const std::size_t pw = 2 * std::size_t(tilesX) + 2, ph = 2 * std::size_t(tilesY) + 2;
    const std::size_t perPlane = std::size_t(tilesY) * tilesX, len = planes * perPlane;
    std::vector<float> &buf = paddedScratch();
    buf.assign(ph * pw + 4 * pw, 0.0f);
    float *rows = buf.data() + ph * pw;
    for (std::size_t p = 0; p < planes; ++p) {
      // The padded plane: input rows at (padTop, padLeft); zeros around (and under the last
      // tile row or column when the output size is odd).
      std::fill(buf.begin(), buf.begin() + ph * pw, 0.0f);
      const float *src = in.data() + p * height * width;
      const std::size_t copyW = std::min<std::size_t>(width, pw - padLeft);
      for (std::size_t y = 0; y < height && y + padTop < ph; ++y)
        std::copy(src + y * width, src + y * width + copyW,
                  buf.data() + (y + padTop) * pw + padLeft);
      for (std::size_t ty = 0; ty < tilesY; ++ty) {
        const float *d0 = buf.data() + 2 * ty * pw, *d1 = d0 + pw, *d2 = d1 + pw, *d3 = d2 + pw;
        float *r0 = rows, *r1 = rows + pw, *r2 = rows + 2 * pw, *r3 = rows + 3 * pw;
        for (std::size_t x = 0; x < pw; ++x) { // Bᵀ d, a whole tile row at once
          r0[x] = d0[x] - d2[x];
          r1[x] = d1[x] + d2[x];
          r2[x] = d2[x] - d1[x];
          r3[x] = d1[x] - d3[x];
        }
        const std::size_t base = p * perPlane + ty * tilesX;
        for (std::size_t k = 0; k < 4; ++k) { // (Bᵀ d) B, per tile
          const float *r = rows + k * pw;
          float *o0 = out.data() + (4 * k) * len + base, *o1 = o0 + len, *o2 = o1 + len,
                *o3 = o2 + len;
          for (std::size_t tx = 0; tx < tilesX; ++tx) {
            const float *c = r + 2 * tx;
            o0[tx] = c[0] - c[2];
            o1[tx] = c[1] + c[2];
            o2[tx] = c[2] - c[1];
            o3[tx] = c[1] - c[3];
          }
        }
      }
    }
    return true;
  }
  std::uint64_t cycleEstimate() const {
    return 40 + 6 * std::uint64_t(planes) * (2 * tilesY + 2) * (2 * tilesX + 2) +
           4 * std::uint64_t(out.size());
  }
};

template <class OutT> class WinogradOutputTransform : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> in;  ///< [16][planes][tilesY][tilesX]
  poplar::Output<poplar::Vector<OutT>> out; ///< [planes][outHeight][outWidth]
  unsigned planes, outHeight, outWidth, tilesY, tilesX;

  bool compute() {
    const std::size_t perPlane = std::size_t(tilesY) * tilesX, len = planes * perPlane;
    for (std::size_t p = 0; p < planes; ++p)
      for (std::size_t ty = 0; ty < tilesY; ++ty)
        for (std::size_t tx = 0; tx < tilesX; ++tx) {
          const float *m = in.data() + p * perPlane + ty * tilesX + tx;
          // Aᵀ m: two rows of four.
          std::array<float, 4> a, b;
          for (std::size_t j = 0; j < 4; ++j) {
            const float m0 = m[j * len], m1 = m[(4 + j) * len], m2 = m[(8 + j) * len],
                        m3 = m[(12 + j) * len];
            a[j] = m0 + m1 + m2;
            b[j] = m1 - m2 - m3;
          }
          const float y00 = a[0] + a[1] + a[2], y01 = a[1] - a[2] - a[3];
          const float y10 = b[0] + b[1] + b[2], y11 = b[1] - b[2] - b[3];
          const std::size_t y = 2 * ty, x = 2 * tx;
          OutT *o = out.data() + p * outHeight * outWidth;
          const bool down = y + 1 < outHeight, right = x + 1 < outWidth;
          o[y * outWidth + x] = OutT(y00);
          if (right)
            o[y * outWidth + x + 1] = OutT(y01);
          if (down) {
            o[(y + 1) * outWidth + x] = OutT(y10);
            if (right)
              o[(y + 1) * outWidth + x + 1] = OutT(y11);
          }
        }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 40 + 3 * std::uint64_t(in.size()); }
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

template <class InT> class WinogradGradientTransform : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<InT>> in;     ///< [planes][outHeight][outWidth]
  poplar::Output<poplar::Vector<float>> out; ///< [16][planes][tilesY][tilesX]
  unsigned planes, outHeight, outWidth, tilesY, tilesX;

  bool compute() {
    const std::size_t perPlane = std::size_t(tilesY) * tilesX, len = planes * perPlane;
    for (std::size_t p = 0; p < planes; ++p) {
      const InT *src = in.data() + p * outHeight * outWidth;
      for (std::size_t ty = 0; ty < tilesY; ++ty)
        for (std::size_t tx = 0; tx < tilesX; ++tx) {
          // The tile's 2x2 gradients; outputs past an odd edge do not exist and read zero.
          const std::size_t y = 2 * ty, x = 2 * tx;
          const bool down = y + 1 < outHeight, right = x + 1 < outWidth;
          const float g00 = float(src[y * outWidth + x]);
          const float g01 = right ? float(src[y * outWidth + x + 1]) : 0.0f;
          const float g10 = down ? float(src[(y + 1) * outWidth + x]) : 0.0f;
          const float g11 = down && right ? float(src[(y + 1) * outWidth + x + 1]) : 0.0f;
          // A g: four rows of two, then (A g) Aᵀ: four columns of each.
          const float rows[4][2] = {
              {g00, g01}, {g00 + g10, g01 + g11}, {g00 - g10, g01 - g11}, {-g10, -g11}};
          float *o = out.data() + p * perPlane + ty * tilesX + tx;
          for (std::size_t i = 0; i < 4; ++i) {
            const float a = rows[i][0], b = rows[i][1];
            o[(4 * i) * len] = a;
            o[(4 * i + 1) * len] = a + b;
            o[(4 * i + 2) * len] = a - b;
            o[(4 * i + 3) * len] = -b;
          }
        }
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 40 + 3 * std::uint64_t(out.size()); }
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

template <class OutT> void registerOutput(const char *name) {
  using V = WinogradOutputTransform<OutT>;
  planeFields<V>(name).field("outHeight", &V::outHeight).field("outWidth", &V::outWidth).add();
}

template <class InT> void registerGradient(const char *name) {
  using V = WinogradGradientTransform<InT>;
  planeFields<V>(name).field("outHeight", &V::outHeight).field("outWidth", &V::outWidth).add();
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
  registerOutput<float>("poplin::WinogradOutputTransform<float>");
  registerOutput<poplar::half>("poplin::WinogradOutputTransform<half>");
  registerGradient<float>("poplin::WinogradGradientTransform<float>");
  registerGradient<poplar::half>("poplin::WinogradGradientTransform<half>");
  registerKernelGradient<float>("poplin::WinogradKernelGradient<float>");
  registerKernelGradient<poplar::half>("poplin::WinogradKernelGradient<half>");
}

} // namespace tessera::codelets::poplin
