// tessera-bench ipu-estimate: the simulated IPU-POD16 view. Runs each trainer's --estimate-ipu
// on the full-size model in the configuration Graphcore published a figure for (ResNet-50 at
// 224 px, micro-batch 20, 16 replicas accumulating 6; BERT-Large phase 1, micro-batch 8,
// pipelined 3/7/7/7 over 4 IPUs, 4 replicas accumulating 2048), and prints each estimate beside
// the published figure as a ratio. Compile-and-estimate only: nothing trains.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace tessera::bench {

struct IpuEstimateSpec {
  std::string name; ///< "resnet50", "bert-large"
  std::string app;  ///< the trainer under apps/
  std::vector<std::string> args;
};

/// The models the simulated POD view prices, with their trainers' arguments.
const std::vector<IpuEstimateSpec> &ipuEstimateSpecs();

/// One "ipu-estimate:" line a trainer printed, taken apart.
struct IpuEstimateLine {
  std::string model, system, unit;
  double samplesPerSecond = 0, published = 0, ratio = 0;
};

/// The last "ipu-estimate: …" line of `output`; throws app_error naming `what` when there is
/// none or it does not parse.
IpuEstimateLine parseIpuEstimateLine(const std::string &output, const std::string &what);

/// The spec's arguments with `extra` applied: "--flag=value" (or "--flag" "value") replaces
/// the spec's own value of --flag, anything else is appended — so a smaller host can ask for a
/// smaller micro-batch (--batch-size=4 --pod-accumulation=30 keeps ResNet-50's batch of 1920).
std::vector<std::string> withOverrides(const std::vector<std::string> &specArgs,
                                       const std::vector<std::string> &extra);

/// Runs the selected specs (comma-separated names; empty: all) with the trainers of `buildDir`,
/// each trainer's output in `logDir`/ipu-estimate-<name>.log, and prints the table. Returns the
/// process exit status (1 when an estimate failed; the others are still printed).
int runIpuEstimates(const std::filesystem::path &buildDir, const std::string &selection,
                    const std::vector<std::string> &extraArgs, const std::filesystem::path &logDir,
                    std::ostream &out);

} // namespace tessera::bench
