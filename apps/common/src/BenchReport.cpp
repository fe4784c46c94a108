#include "tessera/apps/BenchReport.hpp"

#include "tessera/apps/Errors.hpp"
#include "tessera/apps/ReleaseHistory.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace tessera::apps {
namespace {

std::vector<std::string> splitVersion(const std::string &v) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(v);
  while (std::getline(in, part, '.'))
    parts.push_back(part);
  return parts;
}

bool isNumber(const std::string &s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

std::optional<double> timeToTrain(const BenchmarkRecord &r) {
  if (r.has_time_to_target_seconds())
    return r.time_to_target_seconds();
  return std::nullopt;
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  return text;
}

std::string optionalFixed(const std::optional<double> &value, int decimals,
                          const std::string &suffix = "") {
  return value ? fixed(*value, decimals) + suffix : "-";
}

// (version, benchmark) → newest record, for one host class.
using Latest = std::map<std::pair<std::string, std::string>, const BenchmarkRecord *>;

Latest latestByVersionAndBenchmark(const std::vector<BenchmarkRecord> &records,
                                   const std::string &hostClass) {
  Latest latest;
  for (const BenchmarkRecord &r : records) {
    if (r.host().host_class() != hostClass)
      continue;
    const BenchmarkRecord *&slot = latest[{r.sdk_version(), r.benchmark()}];
    // ISO 8601 UTC timestamps order as text.
    if (!slot || r.timestamp() > slot->timestamp())
      slot = &r;
  }
  return latest;
}

std::string padRight(const std::string &s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

} // namespace

int compareVersions(const std::string &a, const std::string &b) {
  const std::vector<std::string> pa = splitVersion(a), pb = splitVersion(b);
  for (std::size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    const std::string x = i < pa.size() ? pa[i] : "0";
    const std::string y = i < pb.size() ? pb[i] : "0";
    if (isNumber(x) && isNumber(y)) {
      const unsigned long long nx = std::stoull(x), ny = std::stoull(y);
      if (nx != ny)
        return nx < ny ? -1 : 1;
    } else if (x != y) {
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

std::vector<SpeedupRow> speedupTable(const std::vector<BenchmarkRecord> &records,
                                     const std::string &currentVersion,
                                     const std::string &hostClass) {
  const Latest latest = latestByVersionAndBenchmark(records, hostClass);
  std::vector<SpeedupRow> rows;
  for (const auto &[key, current] : latest) {
    if (key.first != currentVersion)
      continue;
    std::vector<const BenchmarkRecord *> baselines;
    for (const auto &[otherKey, other] : latest)
      if (otherKey.second == key.second && compareVersions(otherKey.first, currentVersion) < 0)
        baselines.push_back(other);
    std::sort(baselines.begin(), baselines.end(), [](const auto *x, const auto *y) {
      return compareVersions(x->sdk_version(), y->sdk_version()) > 0;
    });
    for (const BenchmarkRecord *baseline : baselines) {
      SpeedupRow row;
      row.benchmark = key.second;
      row.baselineVersion = baseline->sdk_version();
      row.currentVersion = currentVersion;
      row.baselineThroughput = baseline->throughput_images_per_second();
      row.currentThroughput = current->throughput_images_per_second();
      row.throughputRatio =
          row.baselineThroughput > 0 ? row.currentThroughput / row.baselineThroughput : 0.0;
      row.baselineTimeToTrain = timeToTrain(*baseline);
      row.currentTimeToTrain = timeToTrain(*current);
      if (row.baselineTimeToTrain && row.currentTimeToTrain && *row.currentTimeToTrain > 0)
        row.timeToTrainRatio = *row.baselineTimeToTrain / *row.currentTimeToTrain;
      rows.push_back(row);
    }
  }
  return rows;
}

std::string formatSpeedupTable(const std::vector<SpeedupRow> &rows) {
  const std::vector<std::string> header = {"benchmark",    "baseline",    "current",
                                           "img/s base",   "img/s now",   "speedup",
                                           "train s base", "train s now", "train speedup"};
  std::vector<std::vector<std::string>> cells = {header};
  for (const SpeedupRow &r : rows)
    cells.push_back({r.benchmark, r.baselineVersion, r.currentVersion,
                     fixed(r.baselineThroughput, 1), fixed(r.currentThroughput, 1),
                     fixed(r.throughputRatio, 2) + "x", optionalFixed(r.baselineTimeToTrain, 1),
                     optionalFixed(r.currentTimeToTrain, 1),
                     optionalFixed(r.timeToTrainRatio, 2, "x")});
  std::vector<std::size_t> widths(header.size(), 0);
  for (const auto &line : cells)
    for (std::size_t c = 0; c < line.size(); ++c)
      widths[c] = std::max(widths[c], line[c].size());
  std::string out;
  for (const auto &line : cells) {
    for (std::size_t c = 0; c < line.size(); ++c)
      out += padRight(line[c], widths[c]) + (c + 1 < line.size() ? "  " : "");
    out += '\n';
  }
  return out;
}

double pricePerHourFromSystem(double systemPrice, double amortisationYears) {
  if (!(systemPrice > 0))
    throw app_error("--system-price " + fixed(systemPrice, 2) + " must be > 0 (dollars)");
  if (!(amortisationYears > 0))
    throw app_error("--amortisation-years " + fixed(amortisationYears, 2) +
                    " must be > 0 (years of continuous use)");
  return systemPrice / (amortisationYears * 365.25 * 24.0);
}

CostFigures costFigures(const BenchmarkRecord &record, double pricePerHour) {
  if (!(pricePerHour > 0))
    throw app_error("--price-per-hour " + fixed(pricePerHour, 4) + " must be > 0 (dollars)");
  CostFigures figures;
  figures.imagesPerSecondPerDollarHour = record.throughput_images_per_second() / pricePerHour;
  if (record.has_time_to_target_seconds())
    figures.costToTrain = record.time_to_target_seconds() / 3600.0 * pricePerHour;
  return figures;
}

std::string releasesSection(const std::vector<BenchmarkRecord> &records,
                            const std::vector<ComparisonRecord> &comparisons) {
  std::map<std::string, const BenchmarkRecord *> hostClasses; // class → a record describing it
  for (const BenchmarkRecord &r : records)
    hostClasses.emplace(r.host().host_class(), &r);
  std::ostringstream out;
  out << kReleasesBeginMarker << "\n";
  out << "## Benchmarks\n\n"
      << "Generated by `tessera-bench releases` from apps/bench/records/; speedups compare "
         "each version with the previous recorded one on the same host class.\n";
  for (const auto &[hostClass, example] : hostClasses) {
    out << "\n### " << hostClass << " (" << example->host().cpu_model() << ", "
        << example->host().cores() << " CPUs)\n\n"
        << "| version | benchmark | commit | images/s | speedup | time to target | final "
           "accuracy |\n"
        << "|---|---|---|---|---|---|---|\n";
    const Latest latest = latestByVersionAndBenchmark(records, hostClass);
    std::vector<const BenchmarkRecord *> sorted;
    for (const auto &entry : latest)
      sorted.push_back(entry.second);
    std::sort(sorted.begin(), sorted.end(), [](const auto *x, const auto *y) {
      const int c = compareVersions(x->sdk_version(), y->sdk_version());
      return c != 0 ? c > 0 : x->benchmark() < y->benchmark();
    });
    for (const BenchmarkRecord *r : sorted) {
      // The previous version's record of the same benchmark, if any.
      const BenchmarkRecord *previous = nullptr;
      for (const auto &[key, other] : latest)
        if (key.second == r->benchmark() && compareVersions(key.first, r->sdk_version()) < 0 &&
            (!previous || compareVersions(key.first, previous->sdk_version()) > 0))
          previous = other;
      const std::string speedup =
          previous && previous->throughput_images_per_second() > 0
              ? fixed(r->throughput_images_per_second() / previous->throughput_images_per_second(),
                      2) +
                    "x vs " + previous->sdk_version()
              : "-";
      out << "| " << r->sdk_version() << " | " << r->benchmark() << " | " << r->git_commit()
          << " | " << fixed(r->throughput_images_per_second(), 1) << " | " << speedup << " | "
          << optionalFixed(timeToTrain(*r), 1, " s") << " | "
          << fixed(100.0 * r->final_accuracy(), 2) << "% |\n";
    }
  }
  out << measuredSpeedupSection(comparisons);
  out << kReleasesEndMarker << "\n";
  return out.str();
}

std::string replaceReleasesSection(const std::string &document, const std::string &section) {
  const std::size_t begin = document.find(kReleasesBeginMarker);
  const std::size_t end = document.find(kReleasesEndMarker);
  if (begin == std::string::npos && end == std::string::npos) {
    std::string out = document;
    if (!out.empty() && out.back() != '\n')
      out += '\n';
    if (!out.empty())
      out += '\n';
    return out + section;
  }
  if (begin == std::string::npos || end == std::string::npos || end < begin)
    throw app_error(std::string("RELEASES.md has an unmatched ") +
                    (begin == std::string::npos ? kReleasesEndMarker : kReleasesBeginMarker) +
                    " marker; fix or remove it so the benchmark section can be regenerated");
  std::size_t after = end + std::string(kReleasesEndMarker).size();
  if (after < document.size() && document[after] == '\n')
    ++after;
  return document.substr(0, begin) + section + document.substr(after);
}

} // namespace tessera::apps
