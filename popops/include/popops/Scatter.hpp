// XLA-style scatter: writes (or combines) windows of `updates` into `operand` at start
// positions read from `indices` on the device.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

/// Scatters `updates` into `operand` in place, with XLA's scatter semantics:
///  - the dimensions of `updates` listed in `updateWindowDims` (ascending) are window
///    dimensions; the others are scatter dimensions, matching, in order, the dimensions of
///    `indices` other than `indexVectorDim` (indexVectorDim == indices.rank() means each index
///    vector has one component);
///  - each index vector gives the window's start in the operand dimensions
///    `scatterDimsToOperandDims[k]`, the other operand dimensions starting at 0;
///  - window dimensions map, in order, to the operand dimensions not listed in
///    `insertWindowDims`, which have window size 1.
/// A window that would not fit entirely inside `operand` (a negative or too large start) is
/// skipped. When windows overlap, the one later in the scatter order (row-major over the
/// scatter dimensions) wins. `indices` is INT or UNSIGNED_INT; `operand` and `updates` have the
/// same type (FLOAT, HALF, INT or UNSIGNED_INT) and `operand` must be mapped: each tile writes
/// the operand elements it holds. Throws poputil::poplibs_error naming the argument whose rank,
/// dimension list or type does not fit.
void scatter(poplar::Graph &graph, const poplar::Tensor &operand, const poplar::Tensor &indices,
             const poplar::Tensor &updates, std::size_t indexVectorDim,
             std::vector<unsigned> updateWindowDims, std::vector<std::size_t> insertWindowDims,
             std::vector<unsigned> scatterDimsToOperandDims, poplar::program::Sequence &prog,
             const poplar::DebugContext &debugContext = {});

/// Builds the combination of a window's current operand values (first argument) and its update
/// values (second), adding its programs to the sequence, e.g. an addition for scatter-add.
using UpdateComputationFunc = std::function<poplar::Tensor(
    poplar::Graph &, poplar::Tensor &, poplar::Tensor &, poplar::program::Sequence &)>;

/// As above, writing updateComputation(current, update) instead of the update. Windows are
/// processed one after another (a counted loop), so overlapping windows combine in scatter
/// order, each seeing the previous ones' results (duplicate indices accumulate under an
/// addition). The operand type must be FLOAT, HALF or INT here.
void scatter(poplar::Graph &graph, const poplar::Tensor &operand, const poplar::Tensor &indices,
             const poplar::Tensor &updates, std::size_t indexVectorDim,
             std::vector<unsigned> updateWindowDims, std::vector<std::size_t> insertWindowDims,
             std::vector<unsigned> scatterDimsToOperandDims,
             UpdateComputationFunc &updateComputation, poplar::program::Sequence &prog,
             const poplar::DebugContext &debugContext = {});

} // namespace popops
