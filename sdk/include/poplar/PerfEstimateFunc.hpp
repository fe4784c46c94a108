// A vertex's cost estimate, as Graph::setPerfEstimate takes it.
#pragma once

#include <cstdint>

namespace poplar {

/// Cycles one run of a vertex takes and the floating-point operations it performs; used by the
/// cost model in place of the vertex type's own estimate.
struct VertexPerfEstimate {
  VertexPerfEstimate() = default;
  VertexPerfEstimate(std::uint64_t cycles, std::uint64_t flops = 0)
      : cycles(cycles), flops(flops) {}
  std::uint64_t cycles = 0;
  std::uint64_t flops = 0;
};

} // namespace poplar
