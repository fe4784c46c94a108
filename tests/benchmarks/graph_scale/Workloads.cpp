#include "Workloads.hpp"

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

// The model flags tessera-bench ipu-estimate gives (apps/bench/IpuEstimateCommand.cpp; its
// POD-shape flags only change the printed estimate, not what is compiled), with the micro-batch
// as the size: ResNet-50 v1.5 at full width on 224x224 images, and BERT-Large (the trainer
// compiles one and two encoder layers and infers the rest).
std::vector<std::string> estimateArguments(const std::string &trainer, unsigned size) {
  const std::string batch = std::to_string(size);
  if (trainer == "resnet50")
    return {"--estimate-ipu", "--depth",      "50",  "--width",      "1",   "--stem",
            "imagenet",       "--image-size", "224", "--batch-size", batch, "--precision",
            "16.16",          "--ipus",       "1",   "--tiles",      "0"};
  return {"--estimate-ipu",
          "--config",
          "large",
          "--sequence-length",
          "128",
          "--batch-size",
          batch,
          "--precision",
          "16.16",
          "--optimiser",
          "lamb",
          "--vocab-size",
          "30400",
          "--tiles",
          "0",
          "--tile-memory",
          "0"};
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
