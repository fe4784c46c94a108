// `tessera-bench compare BASELINE`: builds the baseline commit beside the current tree, runs each
// benchmark on both in alternating rounds (current first in odd rounds, baseline first in even
// ones: A B, B A, A B …, so drifts in machine load fall on both sides alike), prints each side's
// median and range and the speedup with its interval, and stores a comparison record per
// benchmark.
#pragma once

#include "BenchSuite.hpp"
#include "Comparison.hpp"

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace tessera::bench {

struct CompareOptions {
  std::string baseline; ///< VERSION or git revision
  std::vector<BenchmarkSpec> benchmarks;
  unsigned rounds = 3;
  std::filesystem::path repo;            ///< the git repository both sides come from
  std::filesystem::path recordsDir;      ///< benchmark records (for versions) and where to save
  std::filesystem::path currentBuildDir; ///< apps/<app>/<app> of the current side
  std::string currentTrainer;            ///< overrides currentBuildDir for every benchmark
  std::string currentVersion;
  std::filesystem::path baselinesDir;     ///< where baseline worktrees go
  std::filesystem::path baselineBuildDir; ///< an existing baseline build: no worktree, no build
  std::vector<std::string> trainerArgs;   ///< passed to both sides
  std::string hostClass;                  ///< empty: this machine's
  BootstrapSettings bootstrap;
  /// Dollars per hour for the per-dollar figures (absent: the host class's list price, if any).
  std::optional<double> pricePerHour;
  std::string priceSource; ///< where pricePerHour came from
};

/// Runs the comparison, printing progress and results to `out`. Returns the exit status: 0 when
/// every benchmark was measured on the current side and the baseline built, 1 otherwise.
int runCompare(const CompareOptions &options, std::ostream &out);

} // namespace tessera::bench
