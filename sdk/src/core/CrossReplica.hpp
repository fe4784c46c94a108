// What a cross-replica program node (ProgramNode::Kind::CrossReplica) does, shared by gcl (which
// makes the nodes), the compiler (which plans them) and the engine (which runs them).
#pragma once

#include <cstdint>

namespace poplar::core {

enum class CrossReplicaKind : std::uint8_t {
  AllReduce,     ///< dst (src's shape) = the reduction over replicas of src
  ReduceScatter, ///< dst [ceil(n/R)] = replica r's slice of the reduction of src (zero padded)
  AllGather,     ///< dst [R][src's shape] = every replica's src, in replica order
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

struct CrossReplicaOp {
  CrossReplicaKind kind = CrossReplicaKind::AllReduce;
  CrossReplicaOperator op = CrossReplicaOperator::ADD;
};

/// The node's `count` field (so the executable-cache key, which hashes it, covers the operation).
inline unsigned encode(CrossReplicaOp o) {
  return static_cast<unsigned>(o.kind) * 16 + static_cast<unsigned>(o.op);
}
inline CrossReplicaOp decodeCrossReplicaOp(std::uint64_t v) {
  return {static_cast<CrossReplicaKind>(v / 16), static_cast<CrossReplicaOperator>(v % 16)};
}

} // namespace poplar::core
