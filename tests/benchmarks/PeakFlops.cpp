#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "PeakFlops.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep
#include <hwy/highway.h>

#include "PeakFlops.hpp"

#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

HWY_BEFORE_NAMESPACE();
namespace bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// FLOPs done by `rounds` rounds of 12 independent FMA chains (2 FLOPs per lane each); the
/// result is returned through `sink` so nothing is optimised away.
std::uint64_t FmaChains(std::uint64_t rounds, float *sink) {
  const hn::ScalableTag<float> d;
  const auto a = hn::Set(d, 0.999f), b = hn::Set(d, 1e-3f);
  // Distinct starting values: identical chains would be merged into one by the compiler.
  auto c0 = hn::Set(d, 1.00f), c1 = hn::Set(d, 1.01f), c2 = hn::Set(d, 1.02f);
  auto c3 = hn::Set(d, 1.03f), c4 = hn::Set(d, 1.04f), c5 = hn::Set(d, 1.05f);
  auto c6 = hn::Set(d, 1.06f), c7 = hn::Set(d, 1.07f), c8 = hn::Set(d, 1.08f);
  auto c9 = hn::Set(d, 1.09f), c10 = hn::Set(d, 1.10f), c11 = hn::Set(d, 1.11f);
  for (std::uint64_t r = 0; r < rounds; ++r) {
    c0 = hn::MulAdd(c0, a, b);
    c1 = hn::MulAdd(c1, a, b);
    c2 = hn::MulAdd(c2, a, b);
    c3 = hn::MulAdd(c3, a, b);
    c4 = hn::MulAdd(c4, a, b);
    c5 = hn::MulAdd(c5, a, b);
    c6 = hn::MulAdd(c6, a, b);
    c7 = hn::MulAdd(c7, a, b);
    c8 = hn::MulAdd(c8, a, b);
    c9 = hn::MulAdd(c9, a, b);
    c10 = hn::MulAdd(c10, a, b);
    c11 = hn::MulAdd(c11, a, b);
  }
  const auto sum = hn::Add(hn::Add(hn::Add(c0, c1), hn::Add(c2, c3)),
                           hn::Add(hn::Add(hn::Add(c4, c5), hn::Add(c6, c7)),
                                   hn::Add(hn::Add(c8, c9), hn::Add(c10, c11))));
  *sink = hn::GetLane(sum);
  return rounds * 12 * 2 * hn::Lanes(d);
}

const char *TargetName() { return hwy::TargetName(HWY_TARGET); }

} // namespace HWY_NAMESPACE
} // namespace bench
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace bench {
namespace {
HWY_EXPORT(FmaChains);
HWY_EXPORT(TargetName);

/// GFLOP/s of one thread running chains for about `seconds`.
double runChains(double seconds) {
  using Clock = std::chrono::steady_clock;
  float sink = 0;
  std::uint64_t flops = 0, rounds = 1 << 16;
  const auto start = Clock::now();
  double elapsed = 0;
  while (elapsed < seconds) {
    flops += HWY_DYNAMIC_DISPATCH(FmaChains)(rounds, &sink);
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  }
  volatile float keep = sink;
  (void)keep;
  return double(flops) / elapsed / 1e9;
}
} // namespace

PeakFlops measurePeakFlops(unsigned threads, double seconds) {
  PeakFlops p;
  p.threads = threads ? threads : 1;
  p.target = HWY_DYNAMIC_DISPATCH(TargetName)();
  runChains(seconds / 4); // wake the core up (clocks ramp)
  p.gflopsOneThread = runChains(seconds);
  std::vector<double> rates(p.threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < p.threads; ++t)
    pool.emplace_back([&rates, t, seconds] { rates[t] = runChains(seconds); });
  for (auto &th : pool)
    th.join();
  for (double r : rates)
    p.gflopsAllThreads += r;
  return p;
}

} // namespace bench
#endif
