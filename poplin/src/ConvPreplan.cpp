#include <poplin/ConvPreplan.hpp>

namespace poplin {

void preplan(const std::set<ConvPlanParams> &convs, const std::set<MatMulPlanParams> &matmuls,
             PlanningCache &cache) {
  preplanConvolutions(convs, cache);
  preplanMatMuls(matmuls, cache);
}

} // namespace poplin
