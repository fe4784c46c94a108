// The standard benchmark set and how one benchmark is run: invoke the trainer executable with
// the benchmark's arguments plus --record-file, then read back the BenchmarkRecord it wrote.
#pragma once

#include <tessera/apps/BenchmarkRecord.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tessera::bench {

struct BenchmarkSpec {
  std::string name;        // record key, e.g. "resnet50-synthetic-throughput"
  std::string app;         // the trainer, e.g. "resnet50"
  std::string description; // one line for --list
  std::vector<std::string> args;
  /// Minutes to hours (time to accuracy): run only with --long or when named in --benchmarks.
  bool longRunning = false;
};

/// The benchmarks tessera-bench runs; the single place their fixed configurations live.
const std::vector<BenchmarkSpec> &standardBenchmarks();

/// The benchmarks `names` (comma-separated) picks, in the suite's order; all but the long ones
/// when `names` is empty, all of them when `includeLong` is set too. Throws cli_error naming an
/// unknown benchmark and the nearest known name.
std::vector<BenchmarkSpec> selectBenchmarks(const std::string &names, bool includeLong);

/// apps/<app>/<app> under a build tree: where a trainer is built.
std::filesystem::path trainerIn(const std::filesystem::path &buildDir, const std::string &app);

/// A trainer's record with how its process fared.
struct MeasuredRun {
  apps::BenchmarkRecord record;
  double wallSeconds = 0;
  std::optional<std::uint64_t> peakRssKiB;
  std::optional<double> stealShare; ///< /proc/stat steal over the run (CpuSteal.hpp)
};

/// runBenchmark, also measuring the process's wall time, peak resident set and the CPU time
/// stolen while it ran.
MeasuredRun runBenchmarkMeasured(const BenchmarkSpec &spec, const std::filesystem::path &trainer,
                                 const std::vector<std::string> &extraArgs);

/// Runs `trainer` with spec.args, `extraArgs` and "--record-file <temporary>.json", waits for
/// it and returns its record with the benchmark name set and the spec's arguments added to the
/// config (as "bench-args"). Throws app_error naming the trainer when it cannot be started,
/// fails, or writes no record.
apps::BenchmarkRecord runBenchmark(const BenchmarkSpec &spec, const std::filesystem::path &trainer,
                                   const std::vector<std::string> &extraArgs);

} // namespace tessera::bench
