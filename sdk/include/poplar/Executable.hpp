// A compiled graph as data: what `compileGraph` produces and an Engine runs.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>

#include <poplar/ArrayRef.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>

namespace poplar {

class Graph;

/// Called with (stepsDone, totalSteps) while a graph compiles.
using ProgressFunc = std::function<void(int, int)>;

/// A graph and its programs, compiled: tile memory layout, vertex state, exchange and the step
/// list, with no reference to the Graph it came from. Move-only. `serialize` writes it (Protocol
/// Buffers) so that another process of the same SDK build can `deserialize` it and run it with
/// `Engine(std::move(executable))` without compiling again.
///
/// An executable records the SDK build and the target it was compiled for; deserializing one
/// from another build, a truncated or corrupt stream, or a stream that is not an executable
/// throws `poplar_error` saying which. Codelets loaded from files (`Graph::addCodelets`) travel
/// inside the executable; Tessera's own codelets (popops, poplin, popnn, poprand) are found in
/// the installed SDK.
class Executable {
public:
  Executable(Executable &&) noexcept;
  Executable &operator=(Executable &&) noexcept;
  ~Executable();

  /// Writes the executable to `out` (binary).
  void serialize(std::ostream &out) const;
  /// Reads an executable written by `serialize`.
  static Executable deserialize(std::istream &in);

  struct Impl;
  /// For the SDK's own use.
  explicit Executable(std::unique_ptr<Impl> impl);
  /// Throws runtime_error when the executable was moved from.
  Impl &impl();
  const Impl &impl() const;
  /// Takes the contents out (this executable is then moved from); throws like impl().
  std::unique_ptr<Impl> release();

private:
  std::unique_ptr<Impl> impl_;
};

/// Compiles `graph` and `programs` into an Executable. `options` are the engine options
/// (`Engine`'s list; those that only matter when running are kept for the Engine to read
/// again). `progress` is called with (stage, stages) as compilation goes through its stages.
/// Throws `graph_memory_allocation_error` when a tile overflows (naming the tile and its
/// largest users) unless `debug.allowOutOfMemory` is set.
Executable compileGraph(const Graph &graph, ArrayRef<program::Program> programs,
                        const OptionFlags &options = {}, ProgressFunc progress = {},
                        const DebugContext &debugContext = {});

} // namespace poplar
