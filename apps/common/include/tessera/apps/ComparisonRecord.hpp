// Comparison records (proto/comparison_record.proto): two builds measured side by side on one
// benchmark by `tessera-bench compare`. Kept beside the benchmark records, as JSON, in files named
// compare_<current>_vs_<baseline>_<benchmark>_<host class>.json.
#pragma once

#include "comparison_record.pb.h"

#include "tessera/apps/BenchmarkRecord.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace tessera::apps {

using ComparisonRecord = pb::ComparisonRecord;
using ComparisonSide = pb::ComparisonSide;
using ComparisonRun = pb::ComparisonRun;

/// Prefix of comparison record files, which loadBenchmarkRecords skips.
inline constexpr const char *kComparisonFilePrefix = "compare_";

/// Indented JSON, field names in lowerCamelCase as protobuf's JSON mapping writes them.
std::string comparisonRecordToJson(const ComparisonRecord &record);
/// Parses JSON; `origin` names the source in errors. Throws record_error.
ComparisonRecord comparisonRecordFromJson(const std::string &json, const std::string &origin);

/// Writes `record` as JSON to `file` atomically (temp file + rename). Throws record_error naming
/// the file.
void saveComparisonRecord(const std::filesystem::path &file, const ComparisonRecord &record);
/// Reads a record written by saveComparisonRecord. Throws record_error naming the file when it is
/// missing, not JSON, or not a comparison record.
ComparisonRecord loadComparisonRecord(const std::filesystem::path &file);

/// "compare_<current label>_vs_<baseline label>_<benchmark>_<host class>.json", one safe path
/// component whatever the fields hold.
std::string comparisonRecordFileName(const ComparisonRecord &record);
/// Every compare_*.json in `directory`, sorted by file name; empty when the directory is absent.
std::vector<ComparisonRecord> loadComparisonRecords(const std::filesystem::path &directory);

/// Whether `file`'s name marks it as a comparison record rather than a benchmark record.
bool isComparisonRecordFile(const std::filesystem::path &file);

} // namespace tessera::apps
