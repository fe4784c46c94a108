// log(softmax(x)) over the innermost dimension, computed stably as x - max - log(sum(exp(x -
// max))).
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popnn {

/// Returns log-softmax of `t` (FLOAT or HALF, rank >= 1) over its innermost dimension.
poplar::Tensor logSoftmax(poplar::Graph &graph, poplar::Tensor t, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {});

/// As logSoftmax, writing the result into `t`.
void logSoftmaxInPlace(poplar::Graph &graph, poplar::Tensor t, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {});

} // namespace popnn
