// Written once with Highway, compiled for each enabled target, dispatched at run time. Each
// kernel runs its formula over whole vectors of tiles, then over 4-lane vectors, then one lane
// at a time, so short tile rows (ResNet's late stages have 2 to 4 tiles per row) still use SIMD.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "poplin/kernels/WinogradKernels.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep
#include <hwy/highway.h>

#include "common/Dispatch.hpp"
#include "poplin/kernels/WinogradKernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::codelets::poplin {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// Tiles [t, end) of the input transform in vectors of `d`; returns where it stopped.
template <class D>
HWY_INLINE std::size_t InputRowSpan(D d, std::size_t t, std::size_t end, const float *even,
                                    const float *odd, std::size_t stride, float *HWY_RESTRICT out,
                                    std::size_t len) {
  const std::size_t n = hn::Lanes(d);
  for (; t + n <= end; t += n) {
    // Columns 2t .. 2t + 3 of the patch: even[t], odd[t], even[t + 1], odd[t + 1].
    hn::Vec<D> w[4][4]; // Bᵀ d: w[k][c]
    for (std::size_t c = 0; c < 4; ++c) {
      const float *col = (c % 2 ? odd : even) + t + c / 2;
      const auto d0 = hn::LoadU(d, col), d1 = hn::LoadU(d, col + stride),
                 d2 = hn::LoadU(d, col + 2 * stride), d3 = hn::LoadU(d, col + 3 * stride);
      w[0][c] = hn::Sub(d0, d2);
      w[1][c] = hn::Add(d1, d2);
      w[2][c] = hn::Sub(d2, d1);
      w[3][c] = hn::Sub(d1, d3);
    }
    for (std::size_t k = 0; k < 4; ++k) { // (Bᵀ d) B
      float *o = out + 4 * k * len + t;
      hn::StoreU(hn::Sub(w[k][0], w[k][2]), d, o);
      hn::StoreU(hn::Add(w[k][1], w[k][2]), d, o + len);
      hn::StoreU(hn::Sub(w[k][2], w[k][1]), d, o + 2 * len);
      hn::StoreU(hn::Sub(w[k][1], w[k][3]), d, o + 3 * len);
    }
  }
  return t;
}

void WinogradInputRow(std::size_t tiles, const float *even, const float *odd, std::size_t stride,
                      float *HWY_RESTRICT out, std::size_t len) {
  std::size_t t = InputRowSpan(hn::ScalableTag<float>(), 0, tiles, even, odd, stride, out, len);
  t = InputRowSpan(hn::CappedTag<float, 4>(), t, tiles, even, odd, stride, out, len);
  InputRowSpan(hn::CappedTag<float, 1>(), t, tiles, even, odd, stride, out, len);
}

/// The four outputs of tiles [t, t + lanes) from the 16 transformed values.
template <class D>
HWY_INLINE void OutputTiles(D d, std::size_t t, const float *in, std::size_t len, hn::Vec<D> y[4]) {
  hn::Vec<D> a[4], b[4]; // Aᵀ m: a = rows 0 + 1 + 2, b = rows 1 - 2 - 3
  for (std::size_t j = 0; j < 4; ++j) {
    const auto m0 = hn::LoadU(d, in + j * len + t), m1 = hn::LoadU(d, in + (4 + j) * len + t);
    const auto m2 = hn::LoadU(d, in + (8 + j) * len + t),
               m3 = hn::LoadU(d, in + (12 + j) * len + t);
    a[j] = hn::Add(hn::Add(m0, m1), m2);
    b[j] = hn::Sub(hn::Sub(m1, m2), m3);
  }
  y[0] = hn::Add(hn::Add(a[0], a[1]), a[2]); // (Aᵀ m) A
  y[1] = hn::Sub(hn::Sub(a[1], a[2]), a[3]);
  y[2] = hn::Add(hn::Add(b[0], b[1]), b[2]);
  y[3] = hn::Sub(hn::Sub(b[1], b[2]), b[3]);
}

template <class D>
HWY_INLINE std::size_t OutputRowSpan(D d, std::size_t t, std::size_t tiles, const float *in,
                                     std::size_t len, float *HWY_RESTRICT row0,
                                     float *HWY_RESTRICT row1, std::size_t width) {
  const std::size_t n = hn::Lanes(d);
  for (; t + n <= tiles && 2 * (t + n) <= width; t += n) {
    hn::Vec<D> y[4];
    OutputTiles(d, t, in, len, y);
    hn::StoreInterleaved2(y[0], y[1], d, row0 + 2 * t);
    if (row1)
      hn::StoreInterleaved2(y[2], y[3], d, row1 + 2 * t);
  }
  return t;
}

void WinogradOutputRow(std::size_t tiles, const float *in, std::size_t len,
                       float *HWY_RESTRICT row0, float *HWY_RESTRICT row1, std::size_t width) {
  std::size_t t = OutputRowSpan(hn::ScalableTag<float>(), 0, tiles, in, len, row0, row1, width);
  t = OutputRowSpan(hn::CappedTag<float, 4>(), t, tiles, in, len, row0, row1, width);
  t = OutputRowSpan(hn::CappedTag<float, 1>(), t, tiles, in, len, row0, row1, width);
  if (t < tiles) { // the last tile of an odd width: its left column only
    const hn::CappedTag<float, 1> d1;
    hn::Vec<decltype(d1)> y[4];
    OutputTiles(d1, t, in, len, y);
    row0[2 * t] = hn::GetLane(y[0]);
    if (row1)
      row1[2 * t] = hn::GetLane(y[2]);
  }
}

/// Tiles [t, t + lanes): rows (a, b) of A g are (g0·), (g0· + g1·), (g0· − g1·), (−g1·); each
/// times Aᵀ gives (a, a + b, a − b, −b).
template <class D>
HWY_INLINE void GradientTiles(D d, std::size_t t, hn::Vec<D> g00, hn::Vec<D> g01, hn::Vec<D> g10,
                              hn::Vec<D> g11, float *HWY_RESTRICT out, std::size_t len) {
  const hn::Vec<D> a[4] = {g00, hn::Add(g00, g10), hn::Sub(g00, g10), hn::Neg(g10)};
  const hn::Vec<D> b[4] = {g01, hn::Add(g01, g11), hn::Sub(g01, g11), hn::Neg(g11)};
  for (std::size_t i = 0; i < 4; ++i) {
    float *o = out + 4 * i * len + t;
    hn::StoreU(a[i], d, o);
    hn::StoreU(hn::Add(a[i], b[i]), d, o + len);
    hn::StoreU(hn::Sub(a[i], b[i]), d, o + 2 * len);
    hn::StoreU(hn::Neg(b[i]), d, o + 3 * len);
  }
}

template <class D>
HWY_INLINE std::size_t GradientRowSpan(D d, std::size_t t, std::size_t tiles, const float *row0,
                                       const float *row1, std::size_t width,
                                       float *HWY_RESTRICT out, std::size_t len) {
  const std::size_t n = hn::Lanes(d);
  for (; t + n <= tiles && 2 * (t + n) <= width; t += n) {
    hn::Vec<D> g00, g01, g10 = hn::Zero(d), g11 = hn::Zero(d);
    hn::LoadInterleaved2(d, row0 + 2 * t, g00, g01);
    if (row1)
      hn::LoadInterleaved2(d, row1 + 2 * t, g10, g11);
    GradientTiles(d, t, g00, g01, g10, g11, out, len);
  }
  return t;
}

void WinogradGradientRow(std::size_t tiles, const float *row0, const float *row1, std::size_t width,
                         float *HWY_RESTRICT out, std::size_t len) {
  std::size_t t = GradientRowSpan(hn::ScalableTag<float>(), 0, tiles, row0, row1, width, out, len);
  t = GradientRowSpan(hn::CappedTag<float, 4>(), t, tiles, row0, row1, width, out, len);
  t = GradientRowSpan(hn::CappedTag<float, 1>(), t, tiles, row0, row1, width, out, len);
  if (t < tiles) { // the last tile of an odd width: its right column reads zero
    const hn::CappedTag<float, 1> d1;
    const auto zero = hn::Zero(d1);
    GradientTiles(d1, t, hn::Set(d1, row0[2 * t]), zero, row1 ? hn::Set(d1, row1[2 * t]) : zero,
                  zero, out, len);
  }
}

} // namespace HWY_NAMESPACE
} // namespace tessera::codelets::poplin
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::codelets::poplin {
HWY_EXPORT(WinogradInputRow);
HWY_EXPORT(WinogradOutputRow);
HWY_EXPORT(WinogradGradientRow);
WinogradInputRowFn winogradInputRowKernel() { return TESSERA_DYNAMIC_POINTER(WinogradInputRow); }
WinogradOutputRowFn winogradOutputRowKernel() { return TESSERA_DYNAMIC_POINTER(WinogradOutputRow); }
WinogradGradientRowFn winogradGradientRowKernel() {
  return TESSERA_DYNAMIC_POINTER(WinogradGradientRow);
}
} // namespace tessera::codelets::poplin
#endif
