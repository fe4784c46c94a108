// Softmax and log-softmax over the innermost dimension, built from popops reductions and maps;
// used by NonLinearity.cpp and LogSoftmax.cpp.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popnn::detail {

/// out = scale * softmax(t) (log=false) or log-softmax(t) (log=true), written into `out` (may be
/// `t` itself), max-subtracted. FLOAT: one compute set of popnn::SoftmaxRows vertices; HALF:
/// MAX and ADD reductions per row around two fused popops maps.
void softmaxRows(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &out, bool log,
                 float scale, poplar::program::Sequence &prog, const poplar::DebugContext &dc);

/// Input gradient of softmax (y = softmax output) or log-softmax (y = log-softmax output).
poplar::Tensor softmaxRowsGradient(poplar::Graph &graph, const poplar::Tensor &y,
                                   const poplar::Tensor &g, bool log,
                                   poplar::program::Sequence &prog, const poplar::DebugContext &dc);

} // namespace popnn::detail
