// Collectives across the replicas of a replicated graph (Graph(target, replication_factor(R))),
// with the names of Graphcore's GCL. Each function appends one cross-replica step to `prog`:
// when the engine reaches it, every replica has run up to the same point, and the step combines
// the replicas' `data` into each replica's result.
//
// Every function has a form taking a gcl::CommGroup after `prog`: the replicas then combine only
// within their group (below); without one, all replicas of the run form one group. Reductions
// are element-wise over the group's replicas in ascending replica order, in the element type
// (HALF accumulates in float and rounds once), so results are bit-identical however the replicas
// are spread over host threads and processes. MEAN divides the sum by the group's size;
// SQUARE_ADD sums squares; LOGICAL_AND / LOGICAL_OR treat non-zero as true; LOCAL leaves each
// replica its own data (no reduction).
//
// Options (poplar::OptionFlags): GCL's `method` ("auto", "clockwise_ring",
// "anticlockwise_ring", "bidirectional_ring_pair", "meet_in_middle_ring",
// "quad_directional_ring"), `useSynclessCollectives` and `syncful.allToAll` are accepted and do
// not change the result. Errors: poputil::poplibs_error naming the function and the culprit (a
// graph that is not replicated, a destination of the wrong shape or type, a group that does not
// tile the replicas); poplar::invalid_option for an unknown option, suggesting the nearest.
#pragma once

#include <iosfwd>

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

/// Writes the operator's name ("ADD", "MEAN", …).
std::ostream &operator<<(std::ostream &os, const CollectiveOperator &op);
/// Reads a name written by operator<< into `op`; an unknown name throws poputil::poplibs_error
/// listing the valid ones.
std::istream &operator>>(std::istream &is, CollectiveOperator &op);

/// How the replicas of the run (R of them, every instance's under tessera-run) split into the
/// groups a collective combines.
enum class CommGroupType {
  /// One group of every replica; the group size is ignored.
  ALL,
  /// Groups of k neighbours: {0 … k-1}, {k … 2k-1}, …. With a replica stride s > 1, groups of
  /// k replicas s apart, tiling blocks of k·s: {0, s, …}, {1, s+1, …}, …, {k·s, k·s+s, …}, ….
  CONSECUTIVE,
  /// Groups of k replicas R/k apart: {0, R/k, 2R/k, …}, {1, R/k+1, …}, …, {R/k-1, …, R-1}.
  ORTHOGONAL,
};

/// A sub-group specification: the type and the number of replicas in each group (0: the default
/// for the type, every replica). The groups must tile the replicas: k (times the stride) must
/// divide R.
struct CommGroup {
  CommGroup() = default;
  CommGroup(const CommGroupType groupType, unsigned groupSize, unsigned replicaStride = 1)
      : mReplicaGroupType(groupType), mReplicaGroupSize(groupSize),
        mReplicaGroupStride(replicaStride) {}

  /// E.g. "CommGroup(type=CONSECUTIVE, size=2, stride=1)".
  friend std::ostream &operator<<(std::ostream &os, const CommGroup &group);

protected:
  CommGroupType mReplicaGroupType = CommGroupType::ALL;
  unsigned mReplicaGroupSize = 0;   ///< 0: the default size for the type.
  unsigned mReplicaGroupStride = 1; ///< 0: the default stride (1).

  friend struct CommGroupAccess; // the library reads the fields
};

// Each collective comes twice: with a CommGroup after `prog` (the replicas combine within their
// group; G below is the group's size) and without (one group of all R replicas, G = R).

/// A new tensor mapped like `data`, holding the reduction of the group's `data`.
poplar::Tensor allReduceCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                     CollectiveOperator op, poplar::program::Sequence &prog,
                                     const CommGroup &group,
                                     const poplar::DebugContext &debugContext = {},
                                     const poplar::OptionFlags &options = {});
poplar::Tensor allReduceCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                     CollectiveOperator op, poplar::program::Sequence &prog,
                                     const poplar::DebugContext &debugContext = {},
                                     const poplar::OptionFlags &options = {});
/// The reduction written back into `data`.
void allReduceInPlaceCrossReplica(poplar::Graph &graph, poplar::Tensor &data, CollectiveOperator op,
                                  poplar::program::Sequence &prog, const CommGroup &group,
                                  const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});
void allReduceInPlaceCrossReplica(poplar::Graph &graph, poplar::Tensor &data, CollectiveOperator op,
                                  poplar::program::Sequence &prog,
                                  const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});
/// The reduction written into `destination` (same shape and type as `data`).
void allReduceToDestinationCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                        poplar::Tensor &destination, CollectiveOperator op,
                                        poplar::program::Sequence &prog, const CommGroup &group,
                                        const poplar::DebugContext &debugContext = {},
                                        const poplar::OptionFlags &options = {});
void allReduceToDestinationCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                        poplar::Tensor &destination, CollectiveOperator op,
                                        poplar::program::Sequence &prog,
                                        const poplar::DebugContext &debugContext = {},
                                        const poplar::OptionFlags &options = {});

/// The reduction over the group of the flattened `data` (n elements), split into G slices of
/// ceil(n / G): the replica at position i of its group gets slice i, as a 1-D tensor (zero past
/// the end of the data).
poplar::Tensor reduceScatterCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                         CollectiveOperator op, poplar::program::Sequence &prog,
                                         const CommGroup &group,
                                         const poplar::DebugContext &debugContext = {},
                                         const poplar::OptionFlags &options = {});
poplar::Tensor reduceScatterCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                         CollectiveOperator op, poplar::program::Sequence &prog,
                                         const poplar::DebugContext &debugContext = {},
                                         const poplar::OptionFlags &options = {});
/// The same into `destination`, which must have ceil(n / G) elements of `data`'s type.
void reduceScatterToDestinationCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                            poplar::Tensor &destination, CollectiveOperator op,
                                            poplar::program::Sequence &prog, const CommGroup &group,
                                            const poplar::DebugContext &debugContext = {},
                                            const poplar::OptionFlags &options = {});
void reduceScatterToDestinationCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                            poplar::Tensor &destination, CollectiveOperator op,
                                            poplar::program::Sequence &prog,
                                            const poplar::DebugContext &debugContext = {},
                                            const poplar::OptionFlags &options = {});

/// The group's `data`, stacked in replica order: shape [G, data's shape…], each part mapped like
/// `data`.
poplar::Tensor allGatherCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                     poplar::program::Sequence &prog, const CommGroup &group,
                                     const poplar::DebugContext &debugContext = {},
                                     const poplar::OptionFlags &options = {});
poplar::Tensor allGatherCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                     poplar::program::Sequence &prog,
                                     const poplar::DebugContext &debugContext = {},
                                     const poplar::OptionFlags &options = {});
/// The same into `destination` ([G, data's shape…] elements of `data`'s type).
void allGatherToDestinationCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                        poplar::Tensor &destination,
                                        poplar::program::Sequence &prog, const CommGroup &group,
                                        const poplar::DebugContext &debugContext = {},
                                        const poplar::OptionFlags &options = {});
void allGatherToDestinationCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                        poplar::Tensor &destination,
                                        poplar::program::Sequence &prog,
                                        const poplar::DebugContext &debugContext = {},
                                        const poplar::OptionFlags &options = {});

/// An exchange of blocks: `data`'s first dimension must be G, and its slice j is sent to the
/// group's j-th replica (ascending), which stores it at the sender's position. So on the replica
/// at position i, result[j] = the j-th replica's data[i] (result[i] is its own data[i]). The
/// result has `data`'s shape and mapping.
poplar::Tensor allToAllCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                    poplar::program::Sequence &prog, const CommGroup &group,
                                    const poplar::DebugContext &debugContext = {},
                                    const poplar::OptionFlags &options = {});
poplar::Tensor allToAllCrossReplica(poplar::Graph &graph, const poplar::Tensor &data,
                                    poplar::program::Sequence &prog,
                                    const poplar::DebugContext &debugContext = {},
                                    const poplar::OptionFlags &options = {});

} // namespace gcl
