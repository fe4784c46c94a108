// Collectives across the replicas of a replicated graph (Graph(target, replication_factor(R))),
// with the names of Graphcore's GCL. Each function appends one cross-replica step to `prog`:
// when the engine reaches it, every replica has run up to the same point, and the step combines
// the replicas' `data` into each replica's result.
//
// Reductions are element-wise over replicas 0, 1, …, R-1 in that order, in the element type
// (HALF accumulates in float and rounds once), so results are bit-identical however the replicas
// are spread over host threads and processes. MEAN divides the sum by R; SQUARE_ADD sums
// squares; LOGICAL_AND / LOGICAL_OR treat non-zero as true; LOCAL leaves each replica its own
// data (no reduction).
//
// Options (poplar::OptionFlags): GCL's `method` ("auto", "clockwise_ring",
// "anticlockwise_ring", "bidirectional_ring_pair", "meet_in_middle_ring",
// "quad_directional_ring") and `useSynclessCollectives` are accepted and do not change the
// result. Errors: poputil::poplibs_error naming the function and the culprit (a graph that is
// not replicated, a destination of the wrong shape or type); poplar::invalid_option for an
// unknown option, suggesting the nearest.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace gcl {

enum class CollectiveOperator {
  ADD,
  MEAN,
  MUL,
  MIN,
  MAX,
  LOGICAL_AND,
  LOGICAL_OR,
  SQUARE_ADD,
  LOCAL,
};

/// A new tensor mapped like `data`, holding the reduction of every replica's `data`.
poplar::Tensor allReduceCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                     CollectiveOperator op, poplar::program::Sequence &prog,
                                     const poplar::DebugContext &debugContext = {},
                                     const poplar::OptionFlags &options = {});
/// The reduction written back into `data`.
void allReduceInPlaceCrossReplica(poplar::Graph &graph, poplar::Tensor &data, CollectiveOperator op,
                                  poplar::program::Sequence &prog,
                                  const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});
/// The reduction written into `destination` (same shape and type as `data`).
void allReduceToDestinationCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                        poplar::Tensor &destination, CollectiveOperator op,
                                        poplar::program::Sequence &prog,
                                        const poplar::DebugContext &debugContext = {},
                                        const poplar::OptionFlags &options = {});

/// The reduction of the flattened `data` (n elements), split into R slices of ceil(n / R):
/// replica r gets slice r, as a 1-D tensor (zero past the end of the data).
poplar::Tensor reduceScatterCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                         CollectiveOperator op, poplar::program::Sequence &prog,
                                         const poplar::DebugContext &debugContext = {},
                                         const poplar::OptionFlags &options = {});
/// The same into `destination`, which must have ceil(n / R) elements of `data`'s type.
void reduceScatterToDestinationCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                            poplar::Tensor &destination, CollectiveOperator op,
                                            poplar::program::Sequence &prog,
                                            const poplar::DebugContext &debugContext = {},
                                            const poplar::OptionFlags &options = {});

/// Every replica's `data`, stacked in replica order: shape [R, data's shape…], each replica's
/// part mapped like `data`.
poplar::Tensor allGatherCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                     poplar::program::Sequence &prog,
                                     const poplar::DebugContext &debugContext = {},
                                     const poplar::OptionFlags &options = {});
/// The same into `destination` ([R, data's shape…] elements of `data`'s type).
void allGatherToDestinationCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                        poplar::Tensor &destination,
                                        poplar::program::Sequence &prog,
                                        const poplar::DebugContext &debugContext = {},
                                        const poplar::OptionFlags &options = {});

} // namespace gcl
