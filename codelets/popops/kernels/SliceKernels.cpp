// Written once with Highway, compiled for each enabled target, dispatched at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "popops/kernels/SliceKernels.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep
#include <hwy/highway.h>

#include "common/Dispatch.hpp"
#include "popops/kernels/SliceKernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::codelets::popops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void ScaledAccumulateFloat(float *HWY_RESTRICT acc, const float *HWY_RESTRICT x, std::size_t n,
                           float scale) {
  const hn::ScalableTag<float> d;
  const std::size_t lanes = hn::Lanes(d);
  const auto s = hn::Set(d, scale);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::MulAdd(s, hn::LoadU(d, x + i), hn::LoadU(d, acc + i)), d, acc + i);
  for (; i < n; ++i)
    acc[i] += scale * x[i];
}

} // namespace HWY_NAMESPACE
} // namespace tessera::codelets::popops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::codelets::popops {
HWY_EXPORT(ScaledAccumulateFloat);
ScaledAccumulateFloatFn scaledAccumulateFloatKernel() {
  return TESSERA_DYNAMIC_POINTER(ScaledAccumulateFloat);
}
} // namespace tessera::codelets::popops
#endif
