#include "MatMulOptions.hpp"

#include <array>
#include <map>
#include <string_view>

#include "PlanOptions.hpp"

namespace poplin::detail {
namespace {

constexpr std::array<std::string_view, 5> kPassNames = {"NONE", "INFERENCE_FWD", "TRAINING_FWD",
                                                        "TRAINING_BWD", "TRAINING_WU"};

} // namespace

std::string MatMulOptions::key() const {
  return std::to_string(availableMemoryProportion) + "/" + partialsType.toString() + "/" +
         std::string(kPassNames[static_cast<unsigned>(pass)]) + "/" +
         (objective == PlanObjective::HOST_TIME ? "hostTime" : "ipuCycles");
}

MatMulOptions parseMatMulOptions(const poplar::OptionFlags &options) {
  using H = poputil::OptionHandler;
  MatMulOptions result;
  std::string ignored;
  std::map<std::string, FullyConnectedPass> passes;
  for (std::size_t i = 0; i < kPassNames.size(); ++i)
    passes.emplace(kPassNames[i], static_cast<FullyConnectedPass>(i));
  auto table = sharedPlanOptions(result.availableMemoryProportion, result.partialsType, ignored);
  table.insert(table.end(),
               {{"fullyConnectedPass", H::createWithEnum(result.pass, std::move(passes))},
                {"inputRHSIsPreArranged", H::createWithString(ignored)},
                {"planObjective",
                 H::createWithEnum(result.objective, {{"hostTime", PlanObjective::HOST_TIME},
                                                      {"ipuCycles", PlanObjective::IPU_CYCLES}})}});
  poputil::OptionSpec("matMul", std::move(table)).parse(options);
  return result;
}

} // namespace poplin::detail
