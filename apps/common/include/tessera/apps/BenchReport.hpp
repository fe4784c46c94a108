// Comparisons between benchmark records: speedups of one SDK VERSION over earlier ones on the
// same host class, performance per dollar, and the generated benchmark section of RELEASES.md.
// Pure functions of the records, so tests check them with hand-made records.
#pragma once

#include "tessera/apps/BenchmarkRecord.hpp"
#include "tessera/apps/ComparisonRecord.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tessera::apps {

/// Orders dotted numeric versions ("0.10.0" > "0.9.2"); missing components count as 0 and a
/// non-numeric component compares as text. Returns <0, 0 or >0.
int compareVersions(const std::string &a, const std::string &b);

/// One benchmark of the current version against one earlier version.
struct SpeedupRow {
  std::string benchmark;
  std::string baselineVersion;
  std::string currentVersion;
  double baselineThroughput = 0; // images/s
  double currentThroughput = 0;
  /// current / baseline throughput: > 1 means the current version is faster.
  double throughputRatio = 0;
  std::optional<double> baselineTimeToTrain; // seconds to the target accuracy
  std::optional<double> currentTimeToTrain;
  /// baseline / current time to train (> 1 means faster); present when both reached the target.
  std::optional<double> timeToTrainRatio;
};

/// For every benchmark recorded for `currentVersion` on `hostClass`, one row per earlier
/// version recorded on the same host class, newest baseline first. When a (version, benchmark,
/// host class) has several records the latest timestamp wins.
std::vector<SpeedupRow> speedupTable(const std::vector<BenchmarkRecord> &records,
                                     const std::string &currentVersion,
                                     const std::string &hostClass);

/// A fixed-width text table of `rows` for terminals.
std::string formatSpeedupTable(const std::vector<SpeedupRow> &rows);

/// Hourly price of a machine bought for `systemPrice` dollars and written off over
/// `amortisationYears` of continuous use (365.25-day years). Throws app_error on values ≤ 0.
double pricePerHourFromSystem(double systemPrice, double amortisationYears);

struct CostFigures {
  /// Throughput per dollar-hour: images/s ÷ ($/h).
  double imagesPerSecondPerDollarHour = 0;
  /// Dollars spent reaching the target accuracy, when it was reached.
  std::optional<double> costToTrain;
};

/// Cost figures of `record` at `pricePerHour` dollars per hour (> 0, else app_error).
CostFigures costFigures(const BenchmarkRecord &record, double pricePerHour);

/// Markdown section summarising all records, one table per host class, versions newest first,
/// with the throughput speedup over the previous recorded version. Starts with
/// kReleasesBeginMarker and ends with kReleasesEndMarker. `comparisons` add the measured
/// release-over-release speedups (ReleaseHistory.hpp) after the tables.
std::string releasesSection(const std::vector<BenchmarkRecord> &records,
                            const std::vector<ComparisonRecord> &comparisons = {});

inline constexpr const char *kReleasesBeginMarker = "<!-- tessera-bench:begin -->";
inline constexpr const char *kReleasesEndMarker = "<!-- tessera-bench:end -->";

/// `document` with its marked section replaced by `section`, or with `section` appended when
/// the markers are absent. Throws app_error when only one marker is present.
std::string replaceReleasesSection(const std::string &document, const std::string &section);

} // namespace tessera::apps
