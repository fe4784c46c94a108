#include "IpuEstimateCommand.hpp"

#include "BenchSuite.hpp"
#include "Process.hpp"

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/TrainingOptions.hpp>

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace tessera::bench {

const std::vector<IpuEstimateSpec> &ipuEstimateSpecs() {
  static const std::vector<IpuEstimateSpec> specs{
      // Graphcore's mk2_resnet50_mlperf_pod16_bs20: 16 replicas of one IPU, micro-batch 20,
      // global batch 1920, 16.16. (The trainer's images have one channel, not three.)
      {"resnet50",
       "resnet50",
       {"--estimate-ipu",
        "--depth",
        "50",
        "--width",
        "1",
        "--stem",
        "imagenet",
        "--image-size",
        "224",
        "--batch-size",
        "20",
        "--precision",
        "16.16",
        "--ipus",
        "1",
        "--tiles",
        "0",
        "--pod-replicas",
        "16",
        "--pod-accumulation",
        "6"}},
      // Graphcore's PopART pretrain_large_128: 4 replicas of a 4-IPU pipeline (3/7/7/7 layers),
      // micro-batch 8, global batch 65536, LAMB, 16.16, vocabulary 30400.
      {"bert-large",
       "bert",
       {"--estimate-ipu",
        "--config",
        "large",
        "--sequence-length",
        "128",
        "--batch-size",
        "8",
        "--precision",
        "16.16",
        "--optimiser",
        "lamb",
        "--vocab-size",
        "30400",
        "--tiles",
        "0",
        "--tile-memory",
        "0",
        "--pipeline-layers",
        "3,7,7,7",
        "--pod-replicas",
        "4",
        "--pod-accumulation",
        "2048"}},
  };
  return specs;
}

IpuEstimateLine parseIpuEstimateLine(const std::string &output, const std::string &what) {
  const std::string tag = "ipu-estimate: ";
  const std::size_t at = output.rfind(tag);
  if (at == std::string::npos)
    throw apps::app_error(what + " printed no 'ipu-estimate:' line");
  std::istringstream in(output.substr(at + tag.size()));
  IpuEstimateLine l;
  std::string publishedWord, published, ratioWord, ratio;
  if (!(in >> l.model >> l.system >> l.samplesPerSecond >> l.unit >> publishedWord >> published >>
        ratioWord >> ratio) ||
      publishedWord != "published" || ratioWord != "ratio")
    throw apps::app_error(what + ": cannot read its 'ipu-estimate:' line");
  l.published = published == "-" ? 0 : std::stod(published);
  l.ratio = ratio == "-" ? 0 : std::stod(ratio);
  return l;
}

std::vector<std::string> withOverrides(const std::vector<std::string> &specArgs,
                                       const std::vector<std::string> &extra) {
  std::vector<std::string> args = specArgs;
  for (std::size_t i = 0; i < extra.size(); ++i) {
    std::string flag = extra[i], value;
    bool hasValue = false;
    if (const std::size_t eq = flag.find('=');
        flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag.resize(eq);
      hasValue = true;
    } else if (flag.rfind("--", 0) == 0 && i + 1 < extra.size() &&
               extra[i + 1].rfind("--", 0) != 0) {
      value = extra[++i];
      hasValue = true;
    }
    const auto it = std::find(args.begin(), args.end(), flag);
    if (hasValue && it != args.end() && it + 1 != args.end() && (it + 1)->rfind("--", 0) != 0) {
      *(it + 1) = value;
      continue;
    }
    args.push_back(flag);
    if (hasValue)
      args.push_back(value);
  }
  return args;
}

int runIpuEstimates(const std::filesystem::path &buildDir, const std::string &selection,
                    const std::vector<std::string> &extraArgs, const std::filesystem::path &logDir,
                    std::ostream &out) {
  std::vector<IpuEstimateSpec> chosen;
  std::vector<std::string> names;
  for (const auto &s : ipuEstimateSpecs())
    names.push_back(s.name);
  std::istringstream list(selection);
  for (std::string name; std::getline(list, name, ',');) {
    bool found = false;
    for (const auto &s : ipuEstimateSpecs())
      if (s.name == name) {
        chosen.push_back(s);
        found = true;
      }
    if (!found) {
      const std::string nearest = apps::nearestName(name, names);
      throw apps::cli_error("no IPU estimate named '" + name + "'" +
                            (nearest.empty() ? "" : "; did you mean '" + nearest + "'?") +
                            " (there are resnet50 and bert-large)");
    }
  }
  if (selection.empty())
    chosen = ipuEstimateSpecs();

  std::filesystem::create_directories(logDir);
  std::vector<IpuEstimateLine> lines;
  int status = 0;
  for (const auto &s : chosen) {
    std::vector<std::string> argv{trainerIn(buildDir, s.app).string()};
    const std::vector<std::string> args = withOverrides(s.args, extraArgs);
    argv.insert(argv.end(), args.begin(), args.end());
    const std::filesystem::path log = logDir / ("ipu-estimate-" + s.name + ".log");
    std::filesystem::remove(log);
    out << "tessera-bench: estimating " << s.name << " (compiles the full-size model; output in "
        << log.string() << ")\n  " << commandLine(argv) << std::endl;
    ProcessOptions po;
    po.logFile = log;
    const ProcessResult r = runProcess(argv, po);
    std::ifstream in(log);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      if (r.status != 0)
        throw apps::app_error(s.name + " failed (exit status " + std::to_string(r.status) +
                              (r.status == 128 + 9 ? ", killed: most likely by the kernel for "
                                                     "want of memory"
                                                   : "") +
                              "); see " + log.string());
      lines.push_back(parseIpuEstimateLine(text, s.name));
      // The trainer's own account of how it got there.
      const std::size_t from = text.find("IPU estimate for ");
      out << (from == std::string::npos ? text : text.substr(from));
      out << "  (" << std::fixed << std::setprecision(0) << r.wallSeconds << " s";
      if (r.peakRssKiB)
        out << ", peak memory " << std::setprecision(1) << *r.peakRssKiB / 1048576.0 << " GiB";
      out << ")" << std::endl;
      out.unsetf(std::ios::floatfield);
    } catch (const apps::app_error &e) {
      out << "tessera-bench: " << e.what() << std::endl;
      status = 1;
    }
  }
  out << "\nSimulated IPU-POD (IPU cost model) against Graphcore's published figures:\n";
  for (const auto &l : lines) {
    out << "  " << std::left << std::setw(12) << l.model << std::right << " " << l.system << "  "
        << std::fixed << std::setprecision(0) << std::setw(8) << l.samplesPerSecond << " "
        << l.unit;
    if (l.published > 0)
      out << "   published " << std::setw(6) << l.published << "   ratio " << std::setprecision(3)
          << l.ratio;
    out << "\n";
  }
  out.unsetf(std::ios::floatfield);
  return status;
}

} // namespace tessera::bench
