#include "PointResult.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <regex>
#include <sstream>

namespace graph_scale {

namespace {

const char *const pointTag = "graph-scale-point ";

// The fields the child reports, in one table so writing and reading cannot drift.
struct SecondsField {
  const char *key;
  std::optional<double> PointResult::*member;
};
const SecondsField doubleFields[] = {
    {"codelets_s", &PointResult::codeletSeconds},
    {"build_s", &PointResult::buildSeconds},
    {"compile_s", &PointResult::compileSeconds},
    {"serialize_s", &PointResult::serializeSeconds},
    {"warm_start_s", &PointResult::warmStartSeconds},
    {"run_s", &PointResult::runSeconds},
    {"compile_peak_mib", &PointResult::compilePeakMiB},
    {"serialize_peak_mib", &PointResult::serializePeakMiB},
    {"max_rel_error", &PointResult::maxRelativeError},
};
struct CountField {
  const char *key;
  std::optional<std::size_t> PointResult::*member;
};
const CountField countFields[] = {
    {"exe_bytes", &PointResult::executableBytes},
    {"vertices", &PointResult::vertices},
};

std::string fixed(const std::optional<double> &v, int decimals) {
  if (!v)
    return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, *v);
  return text;
}

std::string general(const std::optional<double> &v) {
  if (!v)
    return "";
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", *v);
  return text;
}

std::string count(const std::optional<std::size_t> &v) {
  return v ? std::to_string(*v) : std::string();
}

} // namespace

std::string pointLine(const PointResult &r) {
  std::ostringstream line;
  line << pointTag << "workload=" << r.workload << " size=" << r.size;
  for (const auto &f : doubleFields)
    if (r.*f.member)
      line << " " << f.key << "=" << general(r.*f.member);
  for (const auto &f : countFields)
    if (r.*f.member)
      line << " " << f.key << "=" << *(r.*f.member);
  return line.str();
}

bool readPointLine(const std::string &childOutput, PointResult &r) {
  const std::size_t at = childOutput.rfind(pointTag);
  if (at == std::string::npos)
    return false;
  std::string text = childOutput.substr(at + std::string(pointTag).size());
  text.resize(std::min(text.size(), text.find('\n')));
  std::istringstream line(text);
  std::map<std::string, std::string> values;
  for (std::string word; line >> word;)
    if (const std::size_t eq = word.find('='); eq != std::string::npos)
      values[word.substr(0, eq)] = word.substr(eq + 1);
  for (const auto &f : doubleFields)
    if (auto it = values.find(f.key); it != values.end())
      r.*f.member = std::stod(it->second);
  for (const auto &f : countFields)
    if (auto it = values.find(f.key); it != values.end())
      r.*f.member = std::stoull(it->second);
  return true;
}

void readTrainerLog(const std::string &log, PointResult &r) {
  auto sum = [&](const std::regex &pattern, std::optional<double> &into) {
    for (auto it = std::sregex_iterator(log.begin(), log.end(), pattern);
         it != std::sregex_iterator(); ++it)
      into = into.value_or(0) + std::stod((*it)[1].str());
  };
  sum(std::regex(R"(parameter tensors, graph ([0-9.eE+-]+) s)"), r.buildSeconds);
  sum(std::regex(R"(compiled in ([0-9.eE+-]+) s)"), r.compileSeconds);
}

void printTableHeader(std::ostream &out) {
  char line[256];
  std::snprintf(line, sizeof line, "%-14s %7s %9s %10s %13s %9s %13s %8s %8s  %s", "workload",
                "size", "build s", "compile s", "peak RSS MiB", "exe MiB", "warm-start s", "run s",
                "wall s", "status");
  out << line << std::endl;
}

void printTableRow(std::ostream &out, const PointResult &r) {
  std::optional<double> exeMiB;
  if (r.executableBytes)
    exeMiB = static_cast<double>(*r.executableBytes) / (1024.0 * 1024.0);
  char line[512];
  std::snprintf(line, sizeof line, "%-14s %7u %9s %10s %13.0f %9s %13s %8s %8.1f  %s",
                r.workload.c_str(), r.size, fixed(r.buildSeconds, 2).c_str(),
                fixed(r.compileSeconds, 2).c_str(), r.peakRssMiB, fixed(exeMiB, 2).c_str(),
                fixed(r.warmStartSeconds, 2).c_str(), fixed(r.runSeconds, 3).c_str(), r.wallSeconds,
                r.status.c_str());
  out << line << std::endl;
}

void printCsvHeader(std::ostream &out) {
  out << "workload,size,status,wall_s,peak_rss_mib";
  for (const auto &f : doubleFields)
    out << "," << f.key;
  for (const auto &f : countFields)
    out << "," << f.key;
  out << "\n";
}

void printCsvRow(std::ostream &out, const PointResult &r) {
  out << r.workload << "," << r.size << ",\"" << r.status << "\"," << general(r.wallSeconds) << ","
      << general(r.peakRssMiB);
  for (const auto &f : doubleFields)
    out << "," << general(r.*f.member);
  for (const auto &f : countFields)
    out << "," << count(r.*f.member);
  out << "\n";
}

} // namespace graph_scale
