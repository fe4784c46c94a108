#include "PlanOptions.hpp"

namespace poplin::detail {

std::vector<poputil::OptionSpec::value_type> sharedPlanOptions(double &availableMemoryProportion,
                                                               poplar::Type &partialsType,
                                                               std::string &ignored) {
  using H = poputil::OptionHandler;
  const bool lowerOpen = true;
  return {
      {"availableMemoryProportion",
       H::createWithDouble(availableMemoryProportion, 0, 1, lowerOpen)},
      {"partialsType",
       H::createWithEnum(partialsType, {{"float", poplar::FLOAT}, {"half", poplar::HALF}})},
      {"planConstraints", H::createWithString(ignored)},
      {"remapOutputTensor", H::createWithString(ignored)},
      {"enableMultiStageReduce", H::createWithString(ignored)},
      {"enableFastReduce", H::createWithString(ignored)},
      {"use128BitConvUnitLoad", H::createWithString(ignored)},
      {"disableSRForAMPConvs", H::createWithString(ignored)},
  };
}

} // namespace poplin::detail
