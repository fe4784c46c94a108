// The standard benchmark set and how one benchmark is run: invoke the trainer executable with
// the benchmark's arguments plus --record-file, then read back the BenchmarkRecord it wrote.
#pragma once

#include <tessera/apps/BenchmarkRecord.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace tessera::bench {

struct BenchmarkSpec {
  std::string name;        // record key, e.g. "resnet50-synthetic-throughput"
  std::string app;         // the trainer, e.g. "resnet50"
  std::string description; // one line for --list
  std::vector<std::string> args;
};

/// The benchmarks tessera-bench runs; the single place their fixed configurations live.
const std::vector<BenchmarkSpec> &standardBenchmarks();

/// Runs `trainer` with spec.args, `extraArgs` and "--record-file <temporary>.json", waits for
/// it and returns its record with the benchmark name set and the spec's arguments added to the
/// config (as "bench-args"). Throws app_error naming the trainer when it cannot be started,
/// fails, or writes no record.
apps::BenchmarkRecord runBenchmark(const BenchmarkSpec &spec, const std::filesystem::path &trainer,
                                   const std::vector<std::string> &extraArgs);

} // namespace tessera::bench
