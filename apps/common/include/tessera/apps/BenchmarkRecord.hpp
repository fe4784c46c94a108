// Benchmark records (proto/benchmark_record.proto): what SDK version, code and machine produced
// which throughput and time-to-accuracy. Trainers write one with --record-file; tessera-bench
// collects them per VERSION and host class and compares versions.
#pragma once

#include "benchmark_record.pb.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::apps {

using BenchmarkRecord = pb::BenchmarkRecord;
using HostInfo = pb::HostInfo;

/// A stable slug naming a class of machines whose results are comparable: the CPU model
/// lower-cased with vendor marks, "CPU" and the clock suffix removed, plus the core count,
/// e.g. "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", 8 → "intel-xeon-platinum-8375c-8c".
std::string hostClassOf(std::string_view cpuModel, unsigned cores);

/// Host description from the text of /proc/cpuinfo (first "model name", or "unknown-cpu") and
/// the number of logical CPUs.
HostInfo hostInfoFromCpuinfo(std::string_view cpuinfo, unsigned logicalCpus);

/// This machine: /proc/cpuinfo and the CPUs this process may run on.
HostInfo detectHost();

/// `git -C sourceDir rev-parse --short HEAD`, or "unknown" when git or the repository is absent.
/// An empty path means the source tree this library was built from.
std::string gitCommit(const std::filesystem::path &sourceDir = {});

/// A record for `app` with the SDK version, git commit, host and current UTC time filled in.
BenchmarkRecord newBenchmarkRecord(const std::string &app);

/// What a trainer measured in one run, for its --record-file.
struct RunSummary {
  std::string app;
  std::map<std::string, std::string> config; ///< setting → value text
  double samplesPerSecond = 0;               ///< images, or sequences for BERT
  std::optional<double> timeToTargetSeconds;
  double targetAccuracy = 0; ///< 0: none
  double finalAccuracy = 0;
  unsigned epochs = 0;
  std::map<std::string, double> metrics; ///< the app's own figures, by name
};

/// newBenchmarkRecord(run.app) with the run's settings and figures filled in.
BenchmarkRecord benchmarkRecordOf(const RunSummary &run);

/// Indented JSON (proto field names in lowerCamelCase, as protobuf's JSON mapping does).
std::string benchmarkRecordToJson(const BenchmarkRecord &record);
/// Parses JSON; `origin` names the source (file) in errors. Throws record_error.
BenchmarkRecord benchmarkRecordFromJson(const std::string &json, const std::string &origin);

/// Writes `record` to `file` (atomically: temp file + rename): JSON when the name ends in
/// ".json", binary protobuf otherwise. Throws record_error naming the file.
void saveBenchmarkRecord(const std::filesystem::path &file, const BenchmarkRecord &record);
/// Reads a record written by saveBenchmarkRecord (format chosen by extension as above).
/// Throws record_error naming the file when it is missing, corrupt or lacks the SDK version.
BenchmarkRecord loadBenchmarkRecord(const std::filesystem::path &file);

/// "<sdk_version>_<benchmark>_<host_class>.json": the file tessera-bench keeps per record.
std::string benchmarkRecordFileName(const BenchmarkRecord &record);
/// Every *.json record in `directory` but the comparison records (compare_*.json), sorted by file
/// name; empty when the directory is absent.
std::vector<BenchmarkRecord> loadBenchmarkRecords(const std::filesystem::path &directory);

} // namespace tessera::apps
