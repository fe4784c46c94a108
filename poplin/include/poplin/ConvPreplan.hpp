// Planning many convolutions and matrix multiplies ahead of building them, so the build calls
// find their plans in the cache (and a model's planning can be done in one place).
#pragma once

#include <set>

#include <poplin/Convolution.hpp>
#include <poplin/MatMul.hpp>

namespace poplin {

/// Plans every convolution of `convs` and every multiply of `matmuls` into `cache` (see
/// preplanConvolutions and preplanMatMuls). Entries name their target; throws
/// poputil::poplibs_error for an entry without one or with bad shapes, poplar::invalid_option
/// for bad options.
void preplan(const std::set<ConvPlanParams> &convs, const std::set<MatMulPlanParams> &matmuls,
             PlanningCache &cache);

} // namespace poplin
