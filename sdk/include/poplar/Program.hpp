// Control programs: what an Engine runs. Programs are cheap handles to immutable trees.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include <poplar/ArrayRef.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/GraphElements.hpp>
#include <poplar/SyncType.hpp>
#include <poplar/Tensor.hpp>

namespace poplar {
namespace core {
struct ProgramNode;
}

namespace program {

/// Base of every program. Copying a Program copies the handle, not the tree.
class Program {
public:
  Program();
  bool isEmpty() const;
  // Tessera internals.
  explicit Program(std::shared_ptr<core::ProgramNode> node) : node_(std::move(node)) {}
  const std::shared_ptr<core::ProgramNode> &node() const { return node_; }

protected:
  std::shared_ptr<core::ProgramNode> node_;
};

/// Runs its programs one after another.
class Sequence : public Program {
public:
  Sequence(const DebugContext &debugContext = {});
  Sequence(std::initializer_list<Program> programs, const DebugContext &debugContext = {});
  /// `Sequence s = Repeat(…)` and `Sequence s(a, b, c)`: a Sequence of the given programs.
  template <class... P>
  Sequence(const Program &first, const P &...rest) : Sequence({first, rest...}) {}
  /// Appends `p`; later changes to this Sequence are seen by programs that already hold it.
  void add(const Program &p);
};

/// Runs one compute set: exchange in, compute on every tile, exchange out.
class Execute : public Program {
public:
  explicit Execute(ComputeSet cs, const DebugContext &debugContext = {});
};

/// Copies between tensors, or between a tensor and a data stream.
class Copy : public Program {
public:
  Copy(const Tensor &src, const Tensor &dst, bool dontOutline = false,
       const DebugContext &debugContext = {});
  Copy(const DataStream &stream, const Tensor &dst, bool optimiseMemory = false,
       const DebugContext &debugContext = {});
  Copy(const Tensor &src, const DataStream &stream, bool optimiseMemory = false,
       const DebugContext &debugContext = {});
  /// Remote buffers (<poplar/GraphElements.hpp>). Without an offset the tensor holds the whole
  /// buffer, rows in order (numElements × repeats elements). With one, `offset` is an
  /// UNSIGNED_INT scalar or 1-D tensor of n row indices read when the copy runs, and the tensor
  /// holds n rows (n × numElements elements; row i ↔ buffer row offset[i]; rows written twice
  /// keep the later one). An index ≥ repeats stops the run with application_runtime_error naming
  /// the buffer. Element types must match (type_error) and counts agree (shape_error).
  Copy(const RemoteBuffer &buffer, const Tensor &dst, const DebugContext &debugContext = {});
  Copy(const RemoteBuffer &buffer, const Tensor &dst, const Tensor &offset,
       const DebugContext &debugContext = {});
  Copy(const Tensor &src, const RemoteBuffer &buffer, const DebugContext &debugContext = {});
  Copy(const Tensor &src, const RemoteBuffer &buffer, const Tensor &offset,
       const DebugContext &debugContext = {});
};

/// Runs `body` `count` times.
class Repeat : public Program {
public:
  Repeat(unsigned count, const Program &body, const DebugContext &debugContext = {});
};

/// Runs `condition`, then `body` while the scalar `predicate` is non-zero.
class RepeatWhileTrue : public Program {
public:
  RepeatWhileTrue(const Program &condition, const Tensor &predicate, const Program &body,
                  const DebugContext &debugContext = {});
};

/// Runs `condition`, then `body` while the scalar `predicate` is zero.
class RepeatWhileFalse : public Program {
public:
  RepeatWhileFalse(const Program &condition, const Tensor &predicate, const Program &body,
                   const DebugContext &debugContext = {});
};

/// Runs `trueBody` if the scalar `predicate` is non-zero, else `falseBody`.
class If : public Program {
public:
  If(const Tensor &predicate, const Program &trueBody, const Program &falseBody,
     const DebugContext &debugContext = {});
  If(const Tensor &predicate, const Program &trueBody, const DebugContext &debugContext = {});
};

/// Runs the body whose value equals the scalar integer `control`, else the default body.
class Switch : public Program {
public:
  using CaseBody = std::pair<std::int32_t, Program>;
  Switch(const Tensor &control, const DebugContext &debugContext = {});
  Switch(const Tensor &control, const Program &defaultBody, const DebugContext &debugContext = {});
  Switch(const Tensor &control, const std::vector<CaseBody> &cases,
         const DebugContext &debugContext = {});
  Switch(const Tensor &control, const std::vector<CaseBody> &cases, const Program &defaultBody,
         const DebugContext &debugContext = {});
  /// Adds a case; a value already present throws `control_program_error`.
  Switch &add(std::int32_t value, const Program &body);
};

/// Runs a Function made by `Graph::addFunction`; its body is compiled once however often called.
class Call : public Program {
public:
  explicit Call(Function f, const DebugContext &debugContext = {});
};

/// Prints `title` and the values of `t` to standard output when run.
class PrintTensor : public Program {
public:
  PrintTensor(const Tensor &t, const DebugContext &debugContext = {});
  PrintTensor(StringRef title, const Tensor &t, const DebugContext &debugContext = {});
};

/// Declares that `t`'s contents are no longer needed (lets the compiler reuse its memory).
class WriteUndef : public Program {
public:
  explicit WriteUndef(const Tensor &t, const DebugContext &debugContext = {});
};

/// Poplar declares SyncType in namespace poplar (<poplar/SyncType.hpp>); also reachable here.
using poplar::SyncType;

/// A BSP synchronisation. Every step of Tessera's engine already ends in one, so it only
/// costs cycles in the cost model.
class Sync : public Program {
public:
  explicit Sync(SyncType type, const DebugContext &debugContext = {});
};

/// Stops the program with `application_runtime_error` carrying `message`.
class Abort : public Program {
public:
  explicit Abort(StringRef message = "", const DebugContext &debugContext = {});
};

/// Aborts if the scalar `predicate` is non-zero.
class AbortOnCondition : public Program {
public:
  AbortOnCondition(const Tensor &predicate, StringRef message = "",
                   const DebugContext &debugContext = {});
};

} // namespace program
} // namespace poplar
