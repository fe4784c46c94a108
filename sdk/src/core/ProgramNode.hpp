// The tree behind poplar::program::Program handles.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <poplar/Program.hpp>

namespace poplar::core {

struct ProgramNode {
  enum class Kind {
    Sequence,
    Execute,
    Copy,
    StreamToDevice,
    StreamFromDevice,
    Repeat,
    RepeatWhile,
    If,
    Switch,
    Call,
    Print,
    WriteUndef,
    Sync,
    Abort,
    AbortOnCondition,
    /// A collective across replicas (gcl): src on every replica → dst on every replica;
    /// `count` holds the CrossReplicaOp (core/CrossReplica.hpp).
    CrossReplica,
    /// cycleCount: runs children[0] and then writes the cost model's cycles it took to `dst`
    /// (2 × UNSIGNED_INT, low word first).
    CycleCount,
    /// cycleStamp: writes the cycles run since `load` to `dst` (2 × UNSIGNED_INT).
    CycleStamp,
    /// CSRFunctions.hpp: changes the floating-point mode. `dst` valid: first write the mode to
    /// every element of it. `src` valid: the mode becomes its first element. Otherwise
    /// mode = (mode & ~(count & 0xff)) | (count >> 8) (core/FloatModeBits.hpp).
    FloatMode,
    /// Copy from a remote buffer (`remoteBuffer`) to `dst`; rows chosen by `offset` when valid.
    RemoteToDevice,
    /// Copy from `src` to a remote buffer; rows chosen by `offset` when valid.
    RemoteFromDevice,
  };

  Kind kind = Kind::Sequence;
  std::string name;
  /// Sequence: its programs. Repeat: {body}. RepeatWhile: {condition, body}. If: {then, else}.
  /// Switch: the case bodies, then the default body.
  std::vector<program::Program> children;
  std::vector<std::int32_t> caseValues; ///< Switch: one per case body.
  Tensor src;                           ///< Copy source / predicate / control / printed tensor.
  Tensor dst;                           ///< Copy destination.
  ComputeSet computeSet;
  DataStream stream;
  RemoteBuffer remoteBuffer;
  Tensor offset; ///< Remote buffer copies: the row indices (UNSIGNED_INT), or invalid.
  Function function;
  unsigned count = 0;    ///< Repeat count.
  bool whileTrue = true; ///< RepeatWhile: loop while the predicate is non-zero.
  std::string message;   ///< Abort message / PrintTensor title.
};

} // namespace poplar::core
