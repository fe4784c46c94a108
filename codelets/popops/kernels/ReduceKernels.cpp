// Written once with Highway, compiled for each enabled target, dispatched at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "popops/kernels/ReduceKernels.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep
// clang-format off
#include <algorithm>
#include <cmath>
// clang-format on
#include <hwy/highway.h>

#include "common/Dispatch.hpp"
#include "popops/kernels/ReduceKernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::codelets::popops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One block: four independent vector accumulators (hides add latency), folded in fixed order.
template <bool kSquare> float ReduceBlock(const float *HWY_RESTRICT x, std::size_t n) {
  const hn::ScalableTag<float> d;
  const std::size_t lanes = hn::Lanes(d);
  auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  std::size_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    const auto v0 = hn::LoadU(d, x + i), v1 = hn::LoadU(d, x + i + lanes);
    const auto v2 = hn::LoadU(d, x + i + 2 * lanes), v3 = hn::LoadU(d, x + i + 3 * lanes);
    if constexpr (kSquare) {
      a0 = hn::MulAdd(v0, v0, a0);
      a1 = hn::MulAdd(v1, v1, a1);
      a2 = hn::MulAdd(v2, v2, a2);
      a3 = hn::MulAdd(v3, v3, a3);
    } else {
      a0 = hn::Add(a0, v0);
      a1 = hn::Add(a1, v1);
      a2 = hn::Add(a2, v2);
      a3 = hn::Add(a3, v3);
    }
  }
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(d, x + i);
    a0 = kSquare ? hn::MulAdd(v, v, a0) : hn::Add(a0, v);
  }
  float s = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3))));
  for (; i < n; ++i)
    s = kSquare ? std::fma(x[i], x[i], s) : s + x[i];
  return s;
}

template <bool kSquare> float ReduceRun(const float *HWY_RESTRICT x, std::size_t n) {
  float total = 0.0f;
  for (std::size_t b = 0; b < n; b += kReduceBlock)
    total += ReduceBlock<kSquare>(x + b, std::min(kReduceBlock, n - b));
  return total;
}

float SumFloat(const float *HWY_RESTRICT x, std::size_t n) { return ReduceRun<false>(x, n); }
float SumSquaresFloat(const float *HWY_RESTRICT x, std::size_t n) { return ReduceRun<true>(x, n); }

template <bool kSquare>
void ReduceRows(float *HWY_RESTRICT acc, const float *HWY_RESTRICT rows, std::size_t width,
                std::size_t numRows) {
  const hn::ScalableTag<float> d;
  const std::size_t lanes = hn::Lanes(d);
  std::size_t w = 0;
  for (; w + lanes <= width; w += lanes) {
    auto a = hn::LoadU(d, acc + w);
    for (std::size_t r = 0; r < numRows; ++r) {
      const auto v = hn::LoadU(d, rows + r * width + w);
      a = kSquare ? hn::MulAdd(v, v, a) : hn::Add(a, v);
    }
    hn::StoreU(a, d, acc + w);
  }
  for (; w < width; ++w) {
    float a = acc[w];
    for (std::size_t r = 0; r < numRows; ++r) {
      const float v = rows[r * width + w];
      a = kSquare ? std::fma(v, v, a) : a + v;
    }
    acc[w] = a;
  }
}

void AddRowsFloat(float *HWY_RESTRICT acc, const float *HWY_RESTRICT rows, std::size_t width,
                  std::size_t numRows) {
  ReduceRows<false>(acc, rows, width, numRows);
}
void SquareAddRowsFloat(float *HWY_RESTRICT acc, const float *HWY_RESTRICT rows, std::size_t width,
                        std::size_t numRows) {
  ReduceRows<true>(acc, rows, width, numRows);
}

void HalfToFloat(const std::uint16_t *HWY_RESTRICT in, float *HWY_RESTRICT out, std::size_t n) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const hn::RebindToUnsigned<decltype(df)> du;
  const std::size_t lanes = hn::Lanes(df);
  const auto *h = reinterpret_cast<const hwy::float16_t *>(in);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    auto f = hn::PromoteTo(df, hn::LoadU(dh, h + i));
#if HWY_TARGET >= HWY_SSE4
    // Highway's software conversion (no F16C) maps exponent 31 to a finite value: patch in
    // infinities and NaNs.
    const hn::Rebind<std::uint16_t, decltype(df)> du16;
    const auto bits = hn::PromoteTo(du, hn::LoadU(du16, in + i));
    const auto special = hn::Eq(hn::And(bits, hn::Set(du, 0x7C00u)), hn::Set(du, 0x7C00u));
    const auto patched = hn::Or(
        hn::Or(hn::ShiftLeft<16>(hn::And(bits, hn::Set(du, 0x8000u))), hn::Set(du, 0x7F800000u)),
        hn::ShiftLeft<13>(hn::And(bits, hn::Set(du, 0x3FFu))));
    f = hn::IfThenElse(hn::RebindMask(df, special), hn::BitCast(df, patched), f);
#else
    (void)du;
#endif
    hn::StoreU(f, df, out + i);
  }
  for (; i < n; ++i)
    out[i] = poplar::halfBitsToFloat(in[i]);
}

} // namespace HWY_NAMESPACE
} // namespace tessera::codelets::popops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::codelets::popops {
HWY_EXPORT(SumFloat);
HWY_EXPORT(SumSquaresFloat);
HWY_EXPORT(AddRowsFloat);
HWY_EXPORT(SquareAddRowsFloat);
HWY_EXPORT(HalfToFloat);
HalfToFloatFn halfToFloatKernel() { return TESSERA_DYNAMIC_POINTER(HalfToFloat); }

std::vector<ReduceKernelSet> reduceKernelsForEveryTarget() {
  std::vector<ReduceKernelSet> out;
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    // The dispatch-table slot of `target`, as ChosenTarget::GetIndex computes it.
    const auto bits = static_cast<std::uint64_t>(HWY_CHOSEN_TARGET_SHIFT(target));
    if (bits == 0)
      continue; // a target without its own slot (it shares the scalar fallback)
    const std::size_t i = hwy::Num0BitsBelowLS1Bit_Nonzero64(bits);
    out.push_back({hwy::TargetName(target), HWY_DISPATCH_TABLE(SumFloat)[i],
                   HWY_DISPATCH_TABLE(SumSquaresFloat)[i], HWY_DISPATCH_TABLE(AddRowsFloat)[i],
                   HWY_DISPATCH_TABLE(SquareAddRowsFloat)[i], HWY_DISPATCH_TABLE(HalfToFloat)[i]});
  }
  return out;
}
RunReduceFloatFn sumFloatKernel() { return TESSERA_DYNAMIC_POINTER(SumFloat); }
RunReduceFloatFn sumSquaresFloatKernel() { return TESSERA_DYNAMIC_POINTER(SumSquaresFloat); }
RowsReduceFloatFn addRowsFloatKernel() { return TESSERA_DYNAMIC_POINTER(AddRowsFloat); }
RowsReduceFloatFn squareAddRowsFloatKernel() { return TESSERA_DYNAMIC_POINTER(SquareAddRowsFloat); }
} // namespace tessera::codelets::popops
#endif
