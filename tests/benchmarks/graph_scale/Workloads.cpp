#include "Workloads.hpp"

#include "IpuEstimateCommand.hpp"

#include <algorithm>
#include <stdexcept>

namespace graph_scale {

const std::vector<Workload> &workloads() {
  static const std::vector<Workload> list{
      {"matvec-spread", "", "rows", {1000, 2000, 5000, 10000, 20000}, false},
      {"matvec-local", "", "rows", {1000, 2000, 5000, 10000, 20000}, false},
      {"resnet50", "resnet50", "micro-batch", {1, 2, 4, 8, 20}, true},
      {"bert-large", "bert", "micro-batch", {8}, true},
  };
  return list;
}

const Workload &workloadNamed(const std::string &name) {
  std::string names;
  for (const auto &w : workloads()) {
    if (w.name == name)
      return w;
    names += (names.empty() ? "" : ", ") + w.name;
  }
  throw std::invalid_argument("no workload named '" + name + "'; there are " + names);
}

namespace {

// The trainer flags `tessera-bench ipu-estimate` runs (apps/bench/IpuEstimateCommand.cpp: its
// POD-shape flags only change the printed estimate, not what is compiled), with the micro-batch
// as the size: ResNet-50 v1.5 at full width on 224x224 images, and BERT-Large (the trainer
// compiles one and two encoder layers and infers the rest).
std::vector<std::string> estimateArguments(const std::string &trainer, unsigned size) {
  for (const auto &spec : tessera::bench::ipuEstimateSpecs()) {
    if (spec.app != trainer)
      continue;
    std::vector<std::string> args = spec.args;
    const auto batch = std::find(args.begin(), args.end(), "--batch-size");
    if (batch == args.end() || batch + 1 == args.end())
      throw std::logic_error("ipu-estimate's " + spec.name + " arguments set no --batch-size");
    *(batch + 1) = std::to_string(size);
    return args;
  }
  throw std::invalid_argument("tessera-bench ipu-estimate prices no model of trainer '" +
                              trainer + "'");
}

} // namespace

std::vector<std::string> trainerArguments(const Workload &w, unsigned size,
                                          const std::vector<std::string> &overrides) {
  std::vector<std::string> args = estimateArguments(w.trainer, size);
  for (std::size_t i = 0; i < overrides.size(); ++i) {
    const std::string &flag = overrides[i];
    const bool hasValue = flag.rfind("--", 0) == 0 && i + 1 < overrides.size() &&
                          overrides[i + 1].rfind("--", 0) != 0;
    const auto at = std::find(args.begin(), args.end(), flag);
    if (hasValue && at != args.end() && at + 1 != args.end() && (at + 1)->rfind("--", 0) != 0) {
      *(at + 1) = overrides[++i];
      continue;
    }
    args.push_back(flag);
    if (hasValue)
      args.push_back(overrides[++i]);
  }
  return args;
}

} // namespace graph_scale
