#include "tessera/apps/ComparisonRecord.hpp"

#include "RecordFiles.hpp"
#include "tessera/apps/Errors.hpp"

namespace tessera::apps {

std::string comparisonRecordToJson(const ComparisonRecord &record) {
  return records::toJson(record, "comparison record");
}

ComparisonRecord comparisonRecordFromJson(const std::string &json, const std::string &origin) {
  ComparisonRecord record;
  records::fromJson(json, record, origin, "comparison record");
  // An empty object parses; without a benchmark and both labels it says nothing.
  if (record.benchmark().empty() || record.current().label().empty() ||
      record.baseline().label().empty())
    throw record_error(origin + " is not a comparison record: it lacks the benchmark or a "
                                "side's label");
  return record;
}

void saveComparisonRecord(const std::filesystem::path &file, const ComparisonRecord &record) {
  records::write(file, comparisonRecordToJson(record), "--records-dir");
}

ComparisonRecord loadComparisonRecord(const std::filesystem::path &file) {
  return comparisonRecordFromJson(records::read(file, "comparison record"), file.string());
}

std::string comparisonRecordFileName(const ComparisonRecord &record) {
  std::string name = std::string(kComparisonFilePrefix) + record.current().label() + "_vs_" +
                     record.baseline().label() + "_" + record.benchmark() + "_" +
                     record.host().host_class() + ".json";
  // A revision label such as "HEAD~2" or "origin/main" must not become a path.
  return records::safeFileName(name);
}

bool isComparisonRecordFile(const std::filesystem::path &file) {
  return file.filename().string().rfind(kComparisonFilePrefix, 0) == 0;
}

std::vector<ComparisonRecord> loadComparisonRecords(const std::filesystem::path &directory) {
  std::vector<ComparisonRecord> found;
  for (const auto &file : records::jsonFilesIn(directory, isComparisonRecordFile))
    found.push_back(loadComparisonRecord(file));
  return found;
}

} // namespace tessera::apps
