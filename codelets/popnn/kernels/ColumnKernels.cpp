// Written once with Highway, compiled for each enabled target, dispatched at run time. Separate
// multiply and add (this file is built with -ffp-contract=off), so every lane rounds exactly as
// the scalar reference does.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "popnn/kernels/ColumnKernels.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep
#include <hwy/highway.h>

#include "common/Dispatch.hpp"
#include "popnn/kernels/ColumnKernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::codelets::popnn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void ColumnAffine(const float *x, const float *gamma, const float *beta, float *out,
                  std::size_t n) {
  const hn::ScalableTag<float> d;
  const std::size_t lanes = hn::Lanes(d);
  const hn::CappedTag<float, 1> d1;
  std::size_t j = 0;
  if (beta) {
    for (; j + lanes <= n; j += lanes)
      hn::StoreU(
          hn::Add(hn::Mul(hn::LoadU(d, gamma + j), hn::LoadU(d, x + j)), hn::LoadU(d, beta + j)), d,
          out + j);
    for (; j < n; ++j)
      hn::StoreU(
          hn::Add(hn::Mul(hn::LoadU(d1, gamma + j), hn::LoadU(d1, x + j)), hn::LoadU(d1, beta + j)),
          d1, out + j);
    return;
  }
  for (; j + lanes <= n; j += lanes)
    hn::StoreU(hn::Mul(hn::LoadU(d, gamma + j), hn::LoadU(d, x + j)), d, out + j);
  for (; j < n; ++j)
    hn::StoreU(hn::Mul(hn::LoadU(d1, gamma + j), hn::LoadU(d1, x + j)), d1, out + j);
}

void ColumnSums(const float *x, const float *y, std::size_t n, float *sumX, float *sumXY) {
  const hn::ScalableTag<float> d;
  const std::size_t lanes = hn::Lanes(d);
  const hn::CappedTag<float, 1> d1;
  std::size_t j = 0;
  if (sumXY) {
    for (; j + lanes <= n; j += lanes) {
      const auto vx = hn::LoadU(d, x + j);
      hn::StoreU(hn::Add(hn::LoadU(d, sumX + j), vx), d, sumX + j);
      hn::StoreU(hn::Add(hn::LoadU(d, sumXY + j), hn::Mul(vx, hn::LoadU(d, y + j))), d, sumXY + j);
    }
    for (; j < n; ++j) {
      const auto vx = hn::LoadU(d1, x + j);
      hn::StoreU(hn::Add(hn::LoadU(d1, sumX + j), vx), d1, sumX + j);
      hn::StoreU(hn::Add(hn::LoadU(d1, sumXY + j), hn::Mul(vx, hn::LoadU(d1, y + j))), d1,
                 sumXY + j);
    }
    return;
  }
  for (; j + lanes <= n; j += lanes)
    hn::StoreU(hn::Add(hn::LoadU(d, sumX + j), hn::LoadU(d, x + j)), d, sumX + j);
  for (; j < n; ++j)
    hn::StoreU(hn::Add(hn::LoadU(d1, sumX + j), hn::LoadU(d1, x + j)), d1, sumX + j);
}

} // namespace HWY_NAMESPACE
} // namespace tessera::codelets::popnn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::codelets::popnn {
HWY_EXPORT(ColumnAffine);
HWY_EXPORT(ColumnSums);
ColumnAffineFn columnAffineKernel() { return TESSERA_DYNAMIC_POINTER(ColumnAffine); }
ColumnSumsFn columnSumsKernel() { return TESSERA_DYNAMIC_POINTER(ColumnSums); }
} // namespace tessera::codelets::popnn
#endif
