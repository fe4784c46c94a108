// Sorting along one dimension of a tensor, on the device.
//
// Every 1-D run along `dim` is sorted into ascending order, stably; NaN sorts after every
// number. Each run is sorted by one vertex on the tile holding its first element (so a run
// spread over tiles is exchanged to that tile and back). Types: FLOAT, HALF, INT, UNSIGNED_INT.
// A `dim` out of range or an unsupported type throws poputil::poplibs_error naming the tensor.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

/// A sorted copy of `t` (mapped like `t`).
poplar::Tensor sort(poplar::Graph &graph, const poplar::Tensor &t, unsigned dim,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

/// Sorts `t` in place.
void sortInPlace(poplar::Graph &graph, const poplar::Tensor &t, unsigned dim,
                 poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

/// Returns a copy of `v` permuted as a stable sort of `k` along `dim` would permute `k`
/// (`k` and `v` have the same shape; `k` is not changed).
poplar::Tensor sortKeyValue(poplar::Graph &graph, const poplar::Tensor &k, const poplar::Tensor &v,
                            unsigned dim, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext = {});

/// Sorts `k` in place along `dim` and applies the same permutation to `v` in place.
void sortKeyValueInPlace(poplar::Graph &graph, const poplar::Tensor &k, const poplar::Tensor &v,
                         unsigned dim, poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext = {});

} // namespace popops
