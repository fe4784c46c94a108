// Written once with Highway, compiled for each enabled target, dispatched at run time. Separate
// multiply and add (this file is built with -ffp-contract=off), so every lane rounds exactly as
// the scalar reference does.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "popnn/kernels/RowAffineKernels.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep
#include <hwy/highway.h>

#include "common/Dispatch.hpp"
#include "popnn/kernels/RowAffineKernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::codelets::popnn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void RowAffine(const float *x, const float *y, float *out, std::size_t n, float a, float b,
               float k) {
  const hn::ScalableTag<float> d;
  const std::size_t lanes = hn::Lanes(d);
  const auto va = hn::Set(d, a), vb = hn::Set(d, b), vk = hn::Set(d, k);
  std::size_t i = 0;
  if (y) {
    for (; i + lanes <= n; i += lanes) {
      const auto ax = hn::Mul(va, hn::LoadU(d, x + i));
      const auto by = hn::Mul(vb, hn::LoadU(d, y + i));
      hn::StoreU(hn::Add(hn::Add(ax, by), vk), d, out + i);
    }
    const hn::CappedTag<float, 1> d1;
    const auto a1 = hn::Set(d1, a), b1 = hn::Set(d1, b), k1 = hn::Set(d1, k);
    for (; i < n; ++i) {
      const auto ax = hn::Mul(a1, hn::LoadU(d1, x + i));
      const auto by = hn::Mul(b1, hn::LoadU(d1, y + i));
      hn::StoreU(hn::Add(hn::Add(ax, by), k1), d1, out + i);
    }
    return;
  }
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::Add(hn::Mul(va, hn::LoadU(d, x + i)), vk), d, out + i);
  const hn::CappedTag<float, 1> d1;
  const auto a1 = hn::Set(d1, a), k1 = hn::Set(d1, k);
  for (; i < n; ++i)
    hn::StoreU(hn::Add(hn::Mul(a1, hn::LoadU(d1, x + i)), k1), d1, out + i);
}

} // namespace HWY_NAMESPACE
} // namespace tessera::codelets::popnn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::codelets::popnn {
HWY_EXPORT(RowAffine);
RowAffineFn rowAffineKernel() { return TESSERA_DYNAMIC_POINTER(RowAffine); }
} // namespace tessera::codelets::popnn
#endif
