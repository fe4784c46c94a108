// Choosing a ConvPlan: enumerate splits under the tile memory budget, minimise the cost model.
#pragma once

#include <poplar/Target.hpp>
#include <poplin/ConvParams.hpp>
#include <poplin/MatMul.hpp>

#include "ConvOptions.hpp"
#include "ConvPlan.hpp"

namespace poplin::detail {

/// The plan for `params` (already validated) and `pass`, from `cache` when it holds one.
ConvPlan planConvolution(const poplar::Target &target, const ConvParams &params, ConvPass pass,
                         const ConvOptions &options, PlanningCache *cache);

} // namespace poplin::detail
