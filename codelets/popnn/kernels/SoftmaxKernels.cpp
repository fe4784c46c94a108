// Written once with Highway, compiled for each enabled target, dispatched at run time. Three
// passes over a row that stays in cache: max, exp + sum (exp stored), then scale (or, for
// log-softmax, x - max - log(sum)). Lane sums are folded in a fixed order, so a row's result
// depends only on the row and the CPU's target, never on threads.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "popnn/kernels/SoftmaxKernels.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep
#include <hwy/highway.h>

#include <hwy/contrib/math/math-inl.h>

#include "common/Dispatch.hpp"
#include "popnn/kernels/SoftmaxKernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::codelets::popnn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void SoftmaxRow(const float *in, float *out, std::size_t n, float scale, bool logSoftmax) {
  if (n == 0)
    return;
  const hn::ScalableTag<float> d;
  const std::size_t lanes = hn::Lanes(d);
  std::size_t i = 0;
  // Pass 1: the row's maximum.
  float max = in[0];
  if (n >= lanes) {
    auto vmax = hn::LoadU(d, in);
    for (i = lanes; i + lanes <= n; i += lanes)
      vmax = hn::Max(vmax, hn::LoadU(d, in + i));
    max = hn::GetLane(hn::MaxOfLanes(d, vmax));
  }
  for (; i < n; ++i)
    max = std::max(max, in[i]);
  // Pass 2: exp(x - max) into out, summed.
  const auto vm = hn::Set(d, max);
  auto vsum = hn::Zero(d);
  for (i = 0; i + lanes <= n; i += lanes) {
    const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, in + i), vm));
    vsum = hn::Add(vsum, e);
    if (!logSoftmax)
      hn::StoreU(e, d, out + i);
  }
  float sum = hn::GetLane(hn::SumOfLanes(d, vsum));
  for (; i < n; ++i) {
    const float e = std::exp(in[i] - max);
    sum += e;
    if (!logSoftmax)
      out[i] = e;
  }
  // Pass 3.
  if (logSoftmax) {
    // (x - max) first: exact for the elements near the max, whatever the logits' magnitude.
    const float logSum = std::log(sum);
    const auto vl = hn::Set(d, logSum);
    for (i = 0; i + lanes <= n; i += lanes)
      hn::StoreU(hn::Sub(hn::Sub(hn::LoadU(d, in + i), vm), vl), d, out + i);
    for (; i < n; ++i)
      out[i] = in[i] - max - logSum;
    return;
  }
  const float factor = scale / sum;
  const auto vf = hn::Set(d, factor);
  for (i = 0; i + lanes <= n; i += lanes)
    hn::StoreU(hn::Mul(hn::LoadU(d, out + i), vf), d, out + i);
  for (; i < n; ++i)
    out[i] *= factor;
}

} // namespace HWY_NAMESPACE
} // namespace tessera::codelets::popnn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::codelets::popnn {
HWY_EXPORT(SoftmaxRow);
SoftmaxRowFn softmaxRowKernel() { return TESSERA_DYNAMIC_POINTER(SoftmaxRow); }
} // namespace tessera::codelets::popnn
#endif
