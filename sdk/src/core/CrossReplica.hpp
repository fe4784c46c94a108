// What a cross-replica program node (ProgramNode::Kind::CrossReplica) does, shared by gcl (which
// makes the nodes), the compiler (which plans them) and the engine (which runs them).
#pragma once

#include <cstddef>
#include <cstdint>

namespace poplar::core {

enum class CrossReplicaKind : std::uint8_t {
  AllReduce,     ///< dst (src's shape) = the reduction over the group's replicas of src
  ReduceScatter, ///< dst [ceil(n/G)] = the replica's slice of the reduction of src (zero padded)
  AllGather,     ///< dst [G][src's shape] = every group member's src, in replica order
  AllToAll,      ///< src [G][…]: dst block j = member j's src block (this replica's rank)
};

/// gcl::CollectiveOperator's values, in its order.
enum class CrossReplicaOperator : std::uint8_t {
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

/// The groups a collective combines, resolved from gcl::CommGroup against the run's replica
/// count when the node is made: groups of `size` replicas whose members are `stride` apart,
/// tiling the replicas in blocks of size × stride. CONSECUTIVE k is {k, 1}; ORTHOGONAL k is
/// {k, R / k}. size 0 means every replica of the run, one group.
struct ReplicaGroups {
  std::uint16_t size = 0;
  std::uint16_t stride = 1;
};
/// The largest size or stride a node can hold (12 bits each in `count`).
inline constexpr unsigned kMaxGroupField = 4095;

/// The groups laid over `total` replicas (size 0 made concrete).
struct GroupLayout {
  std::size_t size, stride;
  GroupLayout(ReplicaGroups g, std::size_t total)
      : size(g.size ? g.size : total), stride(g.size ? (g.stride ? g.stride : 1) : 1) {}
  /// Replica r's position in its group (0 … size-1).
  std::size_t rank(std::size_t r) const { return (r % (size * stride)) / stride; }
  /// The j-th member (ascending) of replica r's group.
  std::size_t member(std::size_t r, std::size_t j) const {
    return r - rank(r) * stride + j * stride;
  }
};

struct CrossReplicaOp {
  CrossReplicaKind kind = CrossReplicaKind::AllReduce;
  CrossReplicaOperator op = CrossReplicaOperator::ADD;
  ReplicaGroups groups;
};

/// The node's `count` field (so the executable-cache key, which hashes it, covers the operation
/// and its groups): operator in bits 0-3, kind 4-7, group size 8-19, stride 20-31.
inline unsigned encode(CrossReplicaOp o) {
  return static_cast<unsigned>(o.op) | static_cast<unsigned>(o.kind) << 4 |
         unsigned(o.groups.size & kMaxGroupField) << 8 |
         unsigned(o.groups.stride & kMaxGroupField) << 20;
}
inline CrossReplicaOp decodeCrossReplicaOp(std::uint64_t v) {
  return {static_cast<CrossReplicaKind>((v >> 4) & 15),
          static_cast<CrossReplicaOperator>(v & 15),
          {static_cast<std::uint16_t>((v >> 8) & kMaxGroupField),
           static_cast<std::uint16_t>((v >> 20) & kMaxGroupField)}};
}

} // namespace poplar::core
