// Fused per-statistic reductions over [rows][rowLength] FLOAT tensors with popnn's RowSums /
// SumPartialPairs / MomentsFromPartials vertices: Σx together with Σx·y (or Σx²) in one read of
// the data, without materialising the products, for the norm layers' statistics and gradients.
#pragma once

#include <cstddef>
#include <functional>
#include <utility>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popnn::detail {

/// Which statistic (< numStats) each row of the [rows][rowLength] input belongs to.
struct RowStats {
  std::size_t numStats;
  std::function<std::size_t(std::size_t row)> statOf;
};

/// Σx and Σx·y per statistic, each a new [numStats] FLOAT tensor.
struct StatSums {
  poplar::Tensor sumX, sumXY;
};

/// y invalid: Σx² instead of Σx·y. Two compute sets: one vertex per tile run of x sums each of
/// its rows (the partial sums stay on that tile); then one vertex per run of statistics adds up
/// each statistic's partials in a fixed order (by row, then by position in the row), on the tile
/// holding the statistic's first partial. So results never depend on host threads.
StatSums rowSums(poplar::Graph &graph, const poplar::Tensor &x, const poplar::Tensor &y,
                 const RowStats &stats, poplar::program::Sequence &prog,
                 const poplar::DebugContext &dc);

/// Mean and inverse standard deviation per statistic from one read of x (the same two compute
/// sets): mean = Σx * invN, invStdDev = 1 / sqrt(max(Σx² * invN - mean², 0) * correction + eps),
/// invN = 1 / (elements per statistic). New [numStats] FLOAT tensors.
std::pair<poplar::Tensor, poplar::Tensor> rowMoments(poplar::Graph &graph, const poplar::Tensor &x,
                                                     const RowStats &stats, float invN, float eps,
                                                     float correction,
                                                     poplar::program::Sequence &prog,
                                                     const poplar::DebugContext &dc);

} // namespace popnn::detail
