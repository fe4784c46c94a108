// The matMul planner: the cheapest split of a grouped product over tiles within the memory
// budget, by a simple cycle model of the target (compute, exchange, partials reduction).
#pragma once

#include <poplar/Target.hpp>

#include <poplin/MatMulPlan.hpp>

#include "MatMulOptions.hpp"

namespace poplin::detail {

/// Plans C[G][M][N] = A[G][M][K] · B[G][K][N]; consults and fills `cache` when given.
MatMulPlan planMatMul(const poplar::Target &target, const poplar::Type &inputType,
                      const poplar::Type &outputType, std::size_t G, std::size_t M, std::size_t N,
                      std::size_t K, const MatMulOptions &options, PlanningCache *cache);

} // namespace poplin::detail
