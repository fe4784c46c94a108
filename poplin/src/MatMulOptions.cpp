#include "MatMulOptions.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include <poplar/exceptions.hpp>

#include "OptionSuggestion.hpp"

namespace poplin::detail {
namespace {

constexpr std::array<std::string_view, 11> kOptionNames = {
    "availableMemoryProportion", "partialsType",          "fullyConnectedPass",
    "planConstraints",           "remapOutputTensor",     "enableMultiStageReduce",
    "enableFastReduce",          "use128BitConvUnitLoad", "inputRHSIsPreArranged",
    "disableSRForAMPConvs",      "planObjective"};

constexpr std::array<std::string_view, 5> kPassNames = {"NONE", "INFERENCE_FWD", "TRAINING_FWD",
                                                        "TRAINING_BWD", "TRAINING_WU"};

} // namespace

std::string MatMulOptions::key() const {
  return std::to_string(availableMemoryProportion) + "/" + partialsType.toString() + "/" +
         std::string(kPassNames[static_cast<unsigned>(pass)]) + "/" +
         (objective == PlanObjective::HOST_TIME ? "hostTime" : "ipuCycles");
}

MatMulOptions parseMatMulOptions(const poplar::OptionFlags &options) {
  MatMulOptions result;
  for (const auto &[name, value] : options) {
    if (std::find(kOptionNames.begin(), kOptionNames.end(), name) == kOptionNames.end())
      throw poplar::invalid_option("unknown matMul option '" + name + "'" +
                                   didYouMean(name, kOptionNames));
    if (name == "availableMemoryProportion") {
      result.availableMemoryProportion = parseMemoryProportion("matMul", value);
    } else if (name == "partialsType") {
      if (value == "float")
        result.partialsType = poplar::FLOAT;
      else if (value == "half")
        result.partialsType = poplar::HALF;
      else
        throw poplar::invalid_option("matMul option partialsType must be 'float' or 'half', not '" +
                                     value + "'");
    } else if (name == "fullyConnectedPass") {
      const auto it = std::find(kPassNames.begin(), kPassNames.end(), value);
      if (it == kPassNames.end())
        throw poplar::invalid_option("matMul option fullyConnectedPass: unknown pass '" + value +
                                     "'" + didYouMean(value, kPassNames));
      result.pass = static_cast<FullyConnectedPass>(it - kPassNames.begin());
    } else if (name == "planObjective") {
      if (value == "hostTime")
        result.objective = PlanObjective::HOST_TIME;
      else if (value == "ipuCycles")
        result.objective = PlanObjective::IPU_CYCLES;
      else
        throw poplar::invalid_option(
            "matMul option planObjective must be 'hostTime' or 'ipuCycles', not '" + value + "'");
    }
  }
  return result;
}

} // namespace poplin::detail
