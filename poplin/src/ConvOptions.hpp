// Parsing of the convolution functions' OptionFlags into a checked struct.
#pragma once

#include <string>

#include <poplar/OptionFlags.hpp>
#include <poplar/Type.hpp>
#include <poplin/MatMulPlan.hpp>

namespace poplin::detail {

struct ConvOptions {
  double availableMemoryProportion = 0.6;
  poplar::Type partialsType = poplar::FLOAT;
  std::string pass = "NONE";
  /// Tessera: "auto" (a pointwise convolution is a matrix product when the host-cost models
  /// expect that to be faster), "true" (whenever it is pointwise) or "false" (never).
  std::string pointwiseAsMatMul = "auto";
  /// "auto" (a 3x3 stride-1 convolution uses Winograd's F(2x2, 3x3) when the host-cost models
  /// expect that to be faster), "true" (whenever it applies) or "false" (never).
  std::string useWinograd = "auto";
  /// "auto" (a strided convolution, or its input gradient, is lowered to one matrix product by
  /// im2col or col2im when the host-cost models expect that to be faster), "true" (any 2-D FLOAT
  /// convolution with a kernel of more than one element) or "false" (never).
  std::string im2colMatMul = "auto";
  /// Tessera: what the planner minimises — the host's estimated time ("hostTime", default) or
  /// the IPU cost model's cycles ("ipuCycles", for estimating a real IPU). With "ipuCycles" the
  /// "auto" methods keep to those an IPU would use: blocks, or a pointwise convolution as a
  /// matrix product when that has fewer cycles (Winograd and lowering only when "true").
  PlanObjective objective = PlanObjective::HOST_TIME;
  /// A canonical rendering used in planning-cache keys.
  std::string key() const;
};

/// Throws poplar::invalid_option for unknown names (suggesting the nearest) and bad values.
ConvOptions parseConvOptions(const poplar::OptionFlags &options);

} // namespace poplin::detail
