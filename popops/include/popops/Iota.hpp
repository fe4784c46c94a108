// Filling a vector with consecutive integers.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

/// t[i] = startInteger + i for the rank-1 UNSIGNED_INT tensor `t`; each tile writes the
/// elements mapped to it. Other ranks or types throw poputil::poplibs_error naming `t`.
void iota(poplar::Graph &graph, const poplar::Tensor &t, unsigned startInteger,
          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
/// As above for an INT tensor.
void iota(poplar::Graph &graph, const poplar::Tensor &t, int startInteger,
          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

} // namespace popops
