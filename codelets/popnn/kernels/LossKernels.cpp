// Written once with Highway, compiled for each enabled target, dispatched at run time. The label
// element is patched after the vector pass with the same formula, so every delta matches the
// reference exactly (this file is built with -ffp-contract=off); the sum of squares folds lanes
// in a fixed order.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "popnn/kernels/LossKernels.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep
#include <hwy/highway.h>

#include <cmath>

#include "common/Dispatch.hpp"
#include "popnn/kernels/LossKernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::codelets::popnn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

float CrossEntropyRow(const float *p, float *d, std::size_t n, std::size_t label, float invScaling,
                      float deltasScale) {
  const hn::ScalableTag<float> df;
  const std::size_t lanes = hn::Lanes(df);
  const auto vi = hn::Set(df, invScaling), vs = hn::Set(df, deltasScale);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::Mul(hn::Mul(hn::LoadU(df, p + i), vi), vs), df, d + i);
  const hn::CappedTag<float, 1> d1;
  const auto vi1 = hn::Set(d1, invScaling), vs1 = hn::Set(d1, deltasScale);
  for (; i < n; ++i)
    hn::StoreU(hn::Mul(hn::Mul(hn::LoadU(d1, p + i), vi1), vs1), d1, d + i);
  const float picked = p[label] * invScaling;
  d[label] = (picked - 1.0f) * deltasScale;
  return -std::log(picked > 1.17549435e-38f ? picked : 1.17549435e-38f);
}

float SumSquaredRow(const float *p, float *d, std::size_t n, std::size_t label) {
  const hn::ScalableTag<float> df;
  const std::size_t lanes = hn::Lanes(df);
  auto acc = hn::Zero(df);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(df, p + i);
    hn::StoreU(v, df, d + i);
  }
  for (; i < n; ++i)
    d[i] = p[i];
  d[label] = p[label] - 1.0f;
  for (i = 0; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(df, d + i);
    acc = hn::Add(acc, hn::Mul(v, v));
  }
  float sum = hn::GetLane(hn::SumOfLanes(df, acc));
  for (; i < n; ++i)
    sum += d[i] * d[i];
  return 0.5f * sum;
}

/// Whether any of p[0, n) satisfies `hit` (a lane-wise predicate on a vector, the same on one
/// lane for the tail).
template <class Hit> bool anyOf(const float *p, std::size_t n, const Hit &hit) {
  const hn::ScalableTag<float> df;
  const std::size_t lanes = hn::Lanes(df);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    if (!hn::AllFalse(df, hit(df, hn::LoadU(df, p + i))))
      return true;
  const hn::CappedTag<float, 1> d1;
  for (; i < n; ++i)
    if (!hn::AllFalse(d1, hit(d1, hn::LoadU(d1, p + i))))
      return true;
  return false;
}

bool LabelIsRowMax(const float *p, std::size_t n, std::size_t label) {
  const float v = p[label];
  // (hn::Ne(x, x) is an ordered compare: false for NaN.)
  auto isNaN = [](auto d, auto x) {
    (void)d;
    return hn::IsNaN(x);
  };
  if (std::isnan(v)) // NaN is the largest value; the first one wins
    return !anyOf(p, label, isNaN);
  // Before the label, nothing as large (or NaN); after it, nothing larger (or NaN).
  auto notBelow = [v](auto d, auto x) { return hn::Not(hn::Lt(x, hn::Set(d, v))); };
  auto above = [v](auto d, auto x) { return hn::Not(hn::Le(x, hn::Set(d, v))); };
  return !anyOf(p, label, notBelow) && !anyOf(p + label + 1, n - label - 1, above);
}

} // namespace HWY_NAMESPACE
} // namespace tessera::codelets::popnn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::codelets::popnn {
HWY_EXPORT(CrossEntropyRow);
HWY_EXPORT(SumSquaredRow);
HWY_EXPORT(LabelIsRowMax);
CrossEntropyRowFn crossEntropyRowKernel() { return TESSERA_DYNAMIC_POINTER(CrossEntropyRow); }
SumSquaredRowFn sumSquaredRowKernel() { return TESSERA_DYNAMIC_POINTER(SumSquaredRow); }
LabelIsRowMaxFn labelIsRowMaxKernel() { return TESSERA_DYNAMIC_POINTER(LabelIsRowMax); }
} // namespace tessera::codelets::popnn
#endif
