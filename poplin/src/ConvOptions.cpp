#include "ConvOptions.hpp"

#include <vector>

#include "PlanOptions.hpp"

namespace poplin::detail {

std::string ConvOptions::key() const {
  return std::to_string(availableMemoryProportion) + "/" + partialsType.toString() + "/" + pass +
         "/" + pointwiseAsMatMul + "/" + useWinograd + "/" + im2colMatMul + "/" +
         (objective == PlanObjective::HOST_TIME ? "hostTime" : "ipuCycles");
}

ConvOptions parseConvOptions(const poplar::OptionFlags &options) {
  using H = poputil::OptionHandler;
  ConvOptions result;
  std::string ignored;
  auto table = sharedPlanOptions(result.availableMemoryProportion, result.partialsType, ignored);
  const std::vector<std::string> methodChoices = {"auto", "true", "false"};
  table.insert(table.end(),
               {{"pass", H::createWithChoice(result.pass, {"NONE", "INFERENCE_FWD", "TRAINING_FWD",
                                                           "TRAINING_BWD", "TRAINING_WU",
                                                           "FC_INFERENCE_FWD", "FC_TRAINING_FWD",
                                                           "FC_TRAINING_BWD", "FC_TRAINING_WU"})},
                {"enableConvDithering", H::createWithString(ignored)},
                {"pointwiseAsMatMul", H::createWithChoice(result.pointwiseAsMatMul, methodChoices)},
                {"useWinograd", H::createWithChoice(result.useWinograd, methodChoices)},
                {"im2colMatMul", H::createWithChoice(result.im2colMatMul, methodChoices)},
                {"planObjective",
                 H::createWithEnum(result.objective, {{"hostTime", PlanObjective::HOST_TIME},
                                                      {"ipuCycles", PlanObjective::IPU_CYCLES}})}});
  poputil::OptionSpec("convolution", std::move(table)).parse(options);
  return result;
}

} // namespace poplin::detail
