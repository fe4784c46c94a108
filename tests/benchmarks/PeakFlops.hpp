// The machine's peak FP32 rate, measured: the benchmarks' "of peak" columns divide by it, so a
// CPU with wider vectors (AVX-512) or two FMA units is not judged against a constant.
#pragma once

#include <string>

namespace bench {

struct PeakFlops {
  double gflopsOneThread = 0;  ///< one thread alone
  double gflopsAllThreads = 0; ///< `threads` threads at once (cores may share units or clocks)
  unsigned threads = 1;
  std::string target; ///< the Highway target the loop ran on, e.g. "AVX3"
};

/// Independent FMA chains on the widest vectors Highway dispatches to, long enough to cover the
/// FMA latency, run for about `seconds` on one thread and then on `threads` threads together.
PeakFlops measurePeakFlops(unsigned threads, double seconds = 0.2);

} // namespace bench
