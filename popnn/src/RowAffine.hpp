// Per-row affine maps over [rows][rowLength] FLOAT tensors with popnn's RowAffine / RowAxpby
// vertices: the per-channel (or per-group) scale-and-shift of the norm layers without
// broadcasting every coefficient element by element.
#pragma once

#include <utility>

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

/// The norms' forward in one read of x: returns (out, whitened) with
/// whitened = (x[r][i] - mean[r]) * invStdDev[r] and out = gamma[r] * whitened[r][i] + beta[r],
/// both laid out like x. x: [rows][rowLength]; mean, invStdDev, gamma, beta: [rows] (views such
/// as broadcasts of per-channel tensors are fine: nothing per row is materialised); all FLOAT.
std::pair<poplar::Tensor, poplar::Tensor>
rowNormalise(poplar::Graph &graph, const poplar::Tensor &x, const poplar::Tensor &mean,
             const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
             const poplar::Tensor &beta, poplar::program::Sequence &prog,
             const poplar::DebugContext &dc);

/// Batch norm's input gradient in one pass: with s = scale[r] * invStdDev[r],
/// out = s * x - s * sumXY[r] * invN * y - s * sumX[r] * invN, laid out like x. x (gradsIn),
/// y (whitened): [rows][rowLength]; scale (gamma), invStdDev, sumX (Σ gradsIn), sumXY
/// (Σ gradsIn * whitened): [rows] views; all FLOAT.
poplar::Tensor rowNormGradient(poplar::Graph &graph, const poplar::Tensor &x,
                               const poplar::Tensor &y, const poplar::Tensor &scale,
                               const poplar::Tensor &invStdDev, const poplar::Tensor &sumX,
                               const poplar::Tensor &sumXY, float invN,
                               poplar::program::Sequence &prog, const poplar::DebugContext &dc);

} // namespace popnn::detail
