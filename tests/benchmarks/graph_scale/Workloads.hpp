// The workloads graph_scale_bench knows: the two matrix-vector programs it builds itself, and
// the trainers' --estimate-ipu runs it starts as they are.
#pragma once

#include <string>
#include <vector>

namespace graph_scale {

struct Workload {
  std::string name;
  /// Empty: a matrix-vector program measured by this program's own child mode. Otherwise the
  /// trainer ("resnet50", "bert") whose --estimate-ipu run is the child.
  std::string trainer;
  std::string sizeMeaning; ///< what `size` is: "rows" or "micro-batch"
  std::vector<unsigned> defaultSizes;
  bool optIn = false; ///< long: only run when --workloads names it
};

const std::vector<Workload> &workloads();

/// The workload called `name`; throws std::invalid_argument listing the names otherwise.
const Workload &workloadNamed(const std::string &name);

/// The trainer's arguments for one point: its --estimate-ipu configuration at micro-batch
/// `size`, then `overrides` ("--flag value" pairs replace the flag's value, others are added).
std::vector<std::string> trainerArguments(const Workload &w, unsigned size,
                                          const std::vector<std::string> &overrides);

} // namespace graph_scale
