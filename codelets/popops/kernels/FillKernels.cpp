// Written once with Highway, compiled for each enabled target, dispatched at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "popops/kernels/FillKernels.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep
#include <hwy/highway.h>

#include "common/Dispatch.hpp"
#include "popops/kernels/FillKernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::codelets::popops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void FillFloat(float *HWY_RESTRICT out, std::size_t n, float value) {
  const hn::ScalableTag<float> d;
  const std::size_t lanes = hn::Lanes(d);
  const auto v = hn::Set(d, value);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(v, d, out + i);
  for (; i < n; ++i)
    out[i] = value;
}

} // namespace HWY_NAMESPACE
} // namespace tessera::codelets::popops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::codelets::popops {
HWY_EXPORT(FillFloat);
FillFloatFn fillFloatKernel() { return TESSERA_DYNAMIC_POINTER(FillFloat); }
} // namespace tessera::codelets::popops
#endif
