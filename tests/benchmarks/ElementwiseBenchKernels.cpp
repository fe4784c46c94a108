// One pass per element, everything in registers: the best a hand-written loop can do.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ElementwiseBenchKernels.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep
#include <hwy/highway.h>

#include "ElementwiseBenchKernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace elementwise_bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void Add(const float *HWY_RESTRICT a, const float *HWY_RESTRICT b, float *HWY_RESTRICT out,
         std::size_t n) {
  const hn::ScalableTag<float> d;
  const std::size_t lanes = hn::Lanes(d);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::Add(hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, out + i);
  for (; i < n; ++i)
    out[i] = a[i] + b[i];
}

void Fused6(const float *HWY_RESTRICT a, const float *HWY_RESTRICT b, float *HWY_RESTRICT out,
            std::size_t n) {
  const hn::ScalableTag<float> d;
  const std::size_t lanes = hn::Lanes(d);
  const auto half = hn::Set(d, 0.5f), quarter = hn::Set(d, 0.25f);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto va = hn::LoadU(d, a + i), vb = hn::LoadU(d, b + i);
    const auto r =
        hn::Max(hn::Abs(hn::Sub(hn::Mul(hn::Add(va, vb), va), hn::Mul(vb, half))), quarter);
    hn::StoreU(r, d, out + i);
  }
  for (; i < n; ++i) {
    const float v = (a[i] + b[i]) * a[i] - b[i] * 0.5f;
    out[i] = (v < 0 ? -v : v) > 0.25f ? (v < 0 ? -v : v) : 0.25f;
  }
}

} // namespace HWY_NAMESPACE
} // namespace elementwise_bench
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace elementwise_bench {
HWY_EXPORT(Add);
HWY_EXPORT(Fused6);
void highwayAdd(const float *a, const float *b, float *out, std::size_t n) {
  HWY_DYNAMIC_DISPATCH(Add)(a, b, out, n);
}
void highwayFused6(const float *a, const float *b, float *out, std::size_t n) {
  HWY_DYNAMIC_DISPATCH(Fused6)(a, b, out, n);
}
} // namespace elementwise_bench
#endif
