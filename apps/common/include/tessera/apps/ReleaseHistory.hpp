// The measured release-over-release speedups in RELEASES.md, from `tessera-bench compare`'s
// comparison records (both releases built and run side by side on one machine), as opposed to
// the table of separately recorded runs that BenchReport.hpp writes.
#pragma once

#include "tessera/apps/ComparisonRecord.hpp"

#include <string>
#include <vector>

namespace tessera::apps {

/// One line per (host class, release, benchmark): the release's speedup over the latest earlier
/// release it was compared with, e.g.
///   "0.2.0 vs 0.1.0: resnet50-synthetic-throughput 1.80× [1.60–2.00] on intel-xeon-2c (…)".
/// Releases newest first, then benchmarks and host classes alphabetically. Comparisons between
/// trees of the same VERSION (development commits) are left out; a benchmark the baseline did
/// not have reads "new".
std::vector<std::string> measuredSpeedupLines(const std::vector<ComparisonRecord> &comparisons);

/// A speedup's interval as "[low–high]": two decimals, more (up to four) when a bound that is not
/// 1.0 would otherwise print as "1.00" — an interval [0.61–0.998] is significant and must not
/// read "[0.61–1.00]".
std::string intervalText(double low, double high);

/// The Markdown subsection holding measuredSpeedupLines, or "" when there are none.
std::string measuredSpeedupSection(const std::vector<ComparisonRecord> &comparisons);

} // namespace tessera::apps
