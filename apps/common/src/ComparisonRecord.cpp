#include "tessera/apps/ComparisonRecord.hpp"

#include "tessera/apps/Errors.hpp"
#include "tessera/apps/FileEnvelope.hpp"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cctype>

namespace tessera::apps {

std::string comparisonRecordToJson(const ComparisonRecord &record) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(record, &json, options);
  if (!status.ok())
    throw record_error("cannot render comparison record as JSON: " + status.ToString());
  return json;
}

ComparisonRecord comparisonRecordFromJson(const std::string &json, const std::string &origin) {
  ComparisonRecord record;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &record, options);
  if (!status.ok())
    throw record_error(origin +
                       " is not a valid comparison record JSON: " + std::string(status.message()));
  // An empty object parses; without a benchmark and both labels it says nothing.
  if (record.benchmark().empty() || record.current().label().empty() ||
      record.baseline().label().empty())
    throw record_error(origin + " is not a comparison record: it lacks the benchmark or a "
                                "side's label");
  return record;
}

void saveComparisonRecord(const std::filesystem::path &file, const ComparisonRecord &record) {
  try {
    writeFileAtomically(file, comparisonRecordToJson(record));
  } catch (const file_write_error &e) {
    throw record_error(std::string(e.what()) +
                       "; check the path, permissions and free space of --records-dir");
  }
}

ComparisonRecord loadComparisonRecord(const std::filesystem::path &file) {
  std::string bytes;
  try {
    bytes = readWholeFile(file, "comparison record");
  } catch (const file_read_error &e) {
    throw record_error(e.what());
  }
  return comparisonRecordFromJson(bytes, file.string());
}

std::string comparisonRecordFileName(const ComparisonRecord &record) {
  std::string name = std::string(kComparisonFilePrefix) + record.current().label() + "_vs_" +
                     record.baseline().label() + "_" + record.benchmark() + "_" +
                     record.host().host_class() + ".json";
  // A revision label such as "HEAD~2" or "origin/main" must not become a path.
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_')
      c = '-';
  return name;
}

bool isComparisonRecordFile(const std::filesystem::path &file) {
  return file.filename().string().rfind(kComparisonFilePrefix, 0) == 0;
}

std::vector<ComparisonRecord> loadComparisonRecords(const std::filesystem::path &directory) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (!std::filesystem::is_directory(directory, ec))
    return {};
  for (const auto &entry : std::filesystem::directory_iterator(directory))
    if (entry.is_regular_file() && entry.path().extension() == ".json" &&
        isComparisonRecordFile(entry.path()))
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<ComparisonRecord> records;
  for (const auto &file : files)
    records.push_back(loadComparisonRecord(file));
  return records;
}

} // namespace tessera::apps
