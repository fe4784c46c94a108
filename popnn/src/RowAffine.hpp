// Per-row affine maps over [rows][rowLength] FLOAT tensors with popnn's RowAffine / RowAxpby
// vertices: the per-channel (or per-group) scale-and-shift of the norm layers without
// broadcasting every coefficient element by element.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popnn::detail {

/// Returns out = a[r] * x[r][i] + k[r] (when `y` is not valid) or
/// a[r] * x[r][i] + b[r] * y[r][i] + k[r]; out is laid out like `x`. x, y: [rows][rowLength];
/// a, b, k: [rows]; all FLOAT. One compute set, one vertex per tile run of x.
poplar::Tensor rowAffine(poplar::Graph &graph, const poplar::Tensor &x, const poplar::Tensor &y,
                         const poplar::Tensor &a, const poplar::Tensor &b, const poplar::Tensor &k,
                         poplar::program::Sequence &prog, const poplar::DebugContext &dc);

} // namespace popnn::detail
