// Written once with Highway, compiled for each enabled target, dispatched at run time. Always
// 4 vectors of exactly 4 lanes (FixedTag), so the 16 interleaved accumulators, and with them the
// rounding, are the same on SSE4, AVX2 and AVX-512. The loads dominate, so the narrower vectors
// cost nothing measurable. Built with -ffp-contract=off: multiply and add round separately, as
// in the scalar reference.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "popnn/kernels/RowSumsKernels.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep
#include <hwy/highway.h>

#include "common/Dispatch.hpp"
#include "popnn/kernels/RowSumsKernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::codelets::popnn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void RowSums(const float *x, const float *y, std::size_t n, float *sums) {
#if HWY_TARGET == HWY_SCALAR
  // One lane only: the reference itself (same order of additions).
  rowSumsReference(x, y, n, sums);
#else
  const hn::FixedTag<float, 4> d;
  static_assert(kRowSumLanes == 16, "four vectors of four lanes");
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  auto p0 = hn::Zero(d), p1 = hn::Zero(d), p2 = hn::Zero(d), p3 = hn::Zero(d);
  const float *yy = y ? y : x;
  std::size_t i = 0;
  for (; i + kRowSumLanes <= n; i += kRowSumLanes) {
    const auto x0 = hn::LoadU(d, x + i), x1 = hn::LoadU(d, x + i + 4);
    const auto x2 = hn::LoadU(d, x + i + 8), x3 = hn::LoadU(d, x + i + 12);
    s0 = hn::Add(s0, x0);
    s1 = hn::Add(s1, x1);
    s2 = hn::Add(s2, x2);
    s3 = hn::Add(s3, x3);
    p0 = hn::Add(p0, hn::Mul(x0, hn::LoadU(d, yy + i)));
    p1 = hn::Add(p1, hn::Mul(x1, hn::LoadU(d, yy + i + 4)));
    p2 = hn::Add(p2, hn::Mul(x2, hn::LoadU(d, yy + i + 8)));
    p3 = hn::Add(p3, hn::Mul(x3, hn::LoadU(d, yy + i + 12)));
  }
  alignas(16) float s[kRowSumLanes], p[kRowSumLanes];
  hn::Store(s0, d, s);
  hn::Store(s1, d, s + 4);
  hn::Store(s2, d, s + 8);
  hn::Store(s3, d, s + 12);
  hn::Store(p0, d, p);
  hn::Store(p1, d, p + 4);
  hn::Store(p2, d, p + 8);
  hn::Store(p3, d, p + 12);
  // The tail starts at a multiple of kRowSumLanes, so element i still lands in lane i % 16.
  for (std::size_t l = 0; i < n; ++i, ++l) {
    const float product = x[i] * yy[i];
    s[l] += x[i];
    p[l] += product;
  }
  float sx = 0.0f, sxy = 0.0f;
  for (std::size_t l = 0; l < kRowSumLanes; ++l) {
    sx += s[l];
    sxy += p[l];
  }
  sums[0] += sx;
  sums[1] += sxy;
#endif
}

} // namespace HWY_NAMESPACE
} // namespace tessera::codelets::popnn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::codelets::popnn {
HWY_EXPORT(RowSums);
RowSumsFn rowSumsKernel() { return TESSERA_DYNAMIC_POINTER(RowSums); }
} // namespace tessera::codelets::popnn
#endif
