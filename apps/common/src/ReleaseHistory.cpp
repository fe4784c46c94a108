#include "tessera/apps/ReleaseHistory.hpp"

#include "tessera/apps/BenchReport.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <tuple>

namespace tessera::apps {
namespace {

std::string twoDecimals(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", value);
  return text;
}

/// `value` with two decimals, or as many more (up to four) as it takes not to read "1.00".
std::string boundText(double value) {
  char text[32];
  for (int decimals = 2;; ++decimals) {
    std::snprintf(text, sizeof(text), "%.*f", decimals, value);
    if (decimals == 4 || value == 1.0 || std::strtod(text, nullptr) != 1.0)
      return text;
  }
}

} // namespace

std::string intervalText(double low, double high) {
  std::ostringstream text; // not operator+ chains: GCC 12 -O3 misreads them (-Wrestrict)
  text << "[" << boundText(low) << "–" << boundText(high) << "]";
  return text.str();
}

namespace {

bool comparable(const ComparisonRecord &c) {
  return compareVersions(c.baseline().version(), c.current().version()) < 0 &&
         (c.has_speedup() || c.baseline().status() == pb::SIDE_NEW);
}

std::string lineOf(const ComparisonRecord &c) {
  // A stream rather than string operator+ chains, which GCC 12 at -O3 misreads (-Wrestrict).
  std::ostringstream line;
  line << c.current().version() << " vs " << c.baseline().version() << ": " << c.benchmark();
  if (!c.has_speedup()) {
    line << " new on " << c.host().host_class();
    return line.str();
  }
  line << " " << twoDecimals(c.speedup()) << "×";
  if (c.has_interval_low() && c.has_interval_high())
    line << " " << intervalText(c.interval_low(), c.interval_high());
  line << " on " << c.host().host_class() << " (" << c.rounds() << " rounds, "
       << c.current().commit() << " vs " << c.baseline().commit() << ", "
       << (c.significant() ? "significant" : "not significant") << ")";
  return line.str();
}

} // namespace

std::vector<std::string> measuredSpeedupLines(const std::vector<ComparisonRecord> &comparisons) {
  // (host class, release, benchmark) → the comparison against the latest earlier baseline.
  std::map<std::tuple<std::string, std::string, std::string>, const ComparisonRecord *> chosen;
  for (const ComparisonRecord &c : comparisons) {
    if (!comparable(c))
      continue;
    const ComparisonRecord *&slot =
        chosen[{c.host().host_class(), c.current().version(), c.benchmark()}];
    if (!slot || compareVersions(c.baseline().version(), slot->baseline().version()) > 0 ||
        (c.baseline().version() == slot->baseline().version() && c.timestamp() > slot->timestamp()))
      slot = &c;
  }
  std::vector<const ComparisonRecord *> sorted;
  for (const auto &entry : chosen)
    sorted.push_back(entry.second);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto *x, const auto *y) {
    const int c = compareVersions(x->current().version(), y->current().version());
    if (c != 0)
      return c > 0;
    return std::tie(x->benchmark(), x->host().host_class()) <
           std::tie(y->benchmark(), y->host().host_class());
  });
  std::vector<std::string> lines;
  for (const auto *c : sorted)
    lines.push_back(lineOf(*c));
  return lines;
}

std::string measuredSpeedupSection(const std::vector<ComparisonRecord> &comparisons) {
  const auto lines = measuredSpeedupLines(comparisons);
  if (lines.empty())
    return "";
  std::ostringstream out;
  out << "\n### Measured side by side\n\n"
      << "From `tessera-bench compare` records: each release against the previous one, both "
         "built from their commits and run in alternating rounds on one machine; speedup = "
         "current / baseline median throughput, [95% paired bootstrap interval over rounds].\n\n";
  for (const auto &line : lines)
    out << "- " << line << "\n";
  return out.str();
}

} // namespace tessera::apps
