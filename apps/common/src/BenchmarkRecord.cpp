#include "tessera/apps/BenchmarkRecord.hpp"

#include "RecordFiles.hpp"
#include "tessera/apps/ComparisonRecord.hpp"
#include "tessera/apps/Errors.hpp"

#include <poplar/Version.hpp>

#include <sched.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

namespace tessera::apps {
namespace {

bool isJsonFile(const std::filesystem::path &file) { return file.extension() == ".json"; }

std::string utcTimestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

// Single-quotes `text` for /bin/sh.
std::string shellQuote(const std::string &text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'')
      quoted += "'\\''";
    else
      quoted += c;
  }
  return quoted + "'";
}

void checkRecord(const BenchmarkRecord &record, const std::string &origin) {
  if (record.sdk_version().empty())
    throw record_error(origin + " is not a benchmark record: it has no sdkVersion");
}

} // namespace

std::string hostClassOf(std::string_view cpuModel, unsigned cores) {
  std::string model(cpuModel);
  // The clock suffix varies with steppings of the same part; the marks carry no information.
  if (const auto at = model.find('@'); at != std::string::npos)
    model.erase(at);
  for (const char *noise : {"(R)", "(r)", "(TM)", "(tm)"})
    for (std::size_t p; (p = model.find(noise)) != std::string::npos;)
      model.erase(p, std::strlen(noise));
  std::string slug;
  std::string word;
  auto flush = [&] {
    if (!word.empty() && word != "cpu" && word != "processor") {
      slug += (slug.empty() ? "" : "-") + word;
    }
    word.clear();
  };
  for (char c : model) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else
      flush();
  }
  flush();
  if (slug.empty())
    slug = "unknown-cpu";
  return slug + "-" + std::to_string(cores) + "c";
}

HostInfo hostInfoFromCpuinfo(std::string_view cpuinfo, unsigned logicalCpus) {
  HostInfo host;
  std::string model = "unknown-cpu";
  std::istringstream lines{std::string(cpuinfo)};
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("model name", 0) != 0)
      continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos)
      continue;
    const auto begin = line.find_first_not_of(" \t", colon + 1);
    if (begin != std::string::npos)
      model = line.substr(begin);
    break;
  }
  host.set_cpu_model(model);
  host.set_cores(logicalCpus);
  host.set_host_class(hostClassOf(model, logicalCpus));
  return host;
}

HostInfo detectHost() {
  std::string cpuinfo;
  if (std::ifstream in("/proc/cpuinfo"); in)
    cpuinfo.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  // The CPUs this process may use, which is what a benchmark actually gets in a container.
  unsigned cpus = 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    cpus = static_cast<unsigned>(CPU_COUNT(&set));
  if (cpus == 0)
    cpus = std::max(1u, std::thread::hardware_concurrency());
  return hostInfoFromCpuinfo(cpuinfo, cpus);
}

std::string gitCommit(const std::filesystem::path &sourceDir) {
  const std::filesystem::path dir = sourceDir.empty() ? TESSERA_SOURCE_DIR : sourceDir;
  const std::string command =
      "git -C " + shellQuote(dir.string()) + " rev-parse --short HEAD 2>/dev/null";
  FILE *pipe = ::popen(command.c_str(), "r");
  if (!pipe)
    return "unknown";
  std::string output;
  std::array<char, 128> chunk{};
  while (std::fgets(chunk.data(), chunk.size(), pipe))
    output += chunk.data();
  const int status = ::pclose(pipe);
  while (!output.empty() && std::isspace(static_cast<unsigned char>(output.back())))
    output.pop_back();
  if (status != 0 || output.empty() ||
      output.find_first_not_of("0123456789abcdef") != std::string::npos)
    return "unknown";
  return output;
}

BenchmarkRecord newBenchmarkRecord(const std::string &app) {
  BenchmarkRecord record;
  record.set_sdk_version(poplar::versionNumber());
  record.set_sdk_version_string(poplar::versionString());
  record.set_git_commit(gitCommit());
  record.set_app(app);
  *record.mutable_host() = detectHost();
  record.set_timestamp(utcTimestamp());
  return record;
}

BenchmarkRecord benchmarkRecordOf(const RunSummary &run) {
  BenchmarkRecord record = newBenchmarkRecord(run.app);
  for (const auto &[k, v] : run.config)
    (*record.mutable_config())[k] = v;
  record.set_throughput_images_per_second(run.samplesPerSecond);
  if (run.timeToTargetSeconds)
    record.set_time_to_target_seconds(*run.timeToTargetSeconds);
  record.set_target_accuracy(run.targetAccuracy);
  record.set_final_accuracy(run.finalAccuracy);
  record.set_epochs(run.epochs);
  for (const auto &[k, v] : run.metrics)
    (*record.mutable_metrics())[k] = v;
  return record;
}

std::string benchmarkRecordToJson(const BenchmarkRecord &record) {
  return records::toJson(record, "benchmark record");
}

BenchmarkRecord benchmarkRecordFromJson(const std::string &json, const std::string &origin) {
  BenchmarkRecord record;
  records::fromJson(json, record, origin, "benchmark record");
  checkRecord(record, origin);
  return record;
}

void saveBenchmarkRecord(const std::filesystem::path &file, const BenchmarkRecord &record) {
  std::string bytes;
  if (isJsonFile(file)) {
    bytes = benchmarkRecordToJson(record);
  } else if (!record.SerializeToString(&bytes)) {
    throw record_error("cannot serialise benchmark record for " + file.string());
  }
  records::write(file, bytes, "--record-file");
}

BenchmarkRecord loadBenchmarkRecord(const std::filesystem::path &file) {
  const std::string bytes = records::read(file, "benchmark record");
  if (isJsonFile(file))
    return benchmarkRecordFromJson(bytes, file.string());
  BenchmarkRecord record;
  if (!record.ParseFromString(bytes))
    throw record_error(file.string() + " is corrupt: not a binary benchmark record");
  checkRecord(record, file.string());
  return record;
}

std::string benchmarkRecordFileName(const BenchmarkRecord &record) {
  std::string name =
      record.sdk_version() + "_" + record.benchmark() + "_" + record.host().host_class() + ".json";
  // Keep the name a single safe path component whatever the fields hold.
  return records::safeFileName(name);
}

std::vector<BenchmarkRecord> loadBenchmarkRecords(const std::filesystem::path &directory) {
  // Comparison records share the directory but are another message.
  const auto isBenchmarkRecord = [](const std::filesystem::path &f) {
    return !isComparisonRecordFile(f);
  };
  std::vector<BenchmarkRecord> found;
  for (const auto &file : records::jsonFilesIn(directory, isBenchmarkRecord))
    found.push_back(loadBenchmarkRecord(file));
  return found;
}

} // namespace tessera::apps
