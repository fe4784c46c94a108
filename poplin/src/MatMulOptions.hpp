// Parsing of matMul's OptionFlags into a checked struct.
#pragma once

#include <string>

#include <poplar/OptionFlags.hpp>
#include <poplar/Type.hpp>

#include <poplin/MatMul.hpp>
#include <poplin/MatMulPlan.hpp>

namespace poplin::detail {

struct MatMulOptions {
  double availableMemoryProportion = 0.6;
  poplar::Type partialsType = poplar::FLOAT;
  FullyConnectedPass pass = FullyConnectedPass::NONE;
  PlanObjective objective = PlanObjective::HOST_TIME;
  /// A canonical rendering used in planning-cache keys.
  std::string key() const;
};

/// Throws poplar::invalid_option for unknown names (suggesting the nearest) and bad values.
MatMulOptions parseMatMulOptions(const poplar::OptionFlags &options);

} // namespace poplin::detail
