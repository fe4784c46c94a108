// Layer norm on [samples][channels] activations (rank 2, one element per channel) with popnn's
// column vertices: each row is one sample, γ, β and the parameter gradients vary along it, so
// nothing is broadcast element by element and no row is one element long.
#pragma once

#include <cstddef>
#include <utility>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include "RowSums.hpp"

namespace popnn::detail {

/// Returns (out, whitened), both laid out like x: with s = (r * C + c) / segLength, the statistic
/// of element (r, c), whitened = (x - mean[s]) * invStdDev[s] and out = gamma[c] * whitened +
/// beta[c]. x: [rows][C]; mean, invStdDev: [rows * C / segLength]; gamma, beta: [C]; segLength
/// divides C; all FLOAT. Rounds exactly as rowNormalise does.
std::pair<poplar::Tensor, poplar::Tensor>
columnNormalise(poplar::Graph &graph, const poplar::Tensor &x, const poplar::Tensor &mean,
                const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                const poplar::Tensor &beta, std::size_t segLength, poplar::program::Sequence &prog,
                const poplar::DebugContext &dc);

/// out[r][c] = gamma[c] * x[r][c], laid out like x. x: [rows][C], gamma: [C], FLOAT.
poplar::Tensor columnScale(poplar::Graph &graph, const poplar::Tensor &x,
                           const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                           const poplar::DebugContext &dc);

/// Σ_r x[r][c] and Σ_r x[r][c] * y[r][c] per column c, new [C] FLOAT tensors. Two compute sets:
/// one vertex per tile run of x sums the columns it touches row by row (partials stay on its
/// tile); then one vertex per chunk of columns adds the runs' partials in run order. So results
/// never depend on host threads.
StatSums columnSums(poplar::Graph &graph, const poplar::Tensor &x, const poplar::Tensor &y,
                    poplar::program::Sequence &prog, const poplar::DebugContext &dc);

} // namespace popnn::detail
