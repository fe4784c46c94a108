// Runs a compiled graph's steps: BSP supersteps (exchange in, compute on every tile in
// parallel, exchange out), tensor copies, stream copies, control flow, prints and aborts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/CompiledGraph.hpp"
#include "engine/HostIo.hpp"
#include "engine/ThreadPool.hpp"
#include "engine/TileMemory.hpp"
#include "profile/ExecutionRecorder.hpp"

namespace poplar::engine {

/// The step loop of one compiled graph. A vertex that returns false or throws, Abort and AbortIf
/// throw application_runtime_error; an unconnected stream throws from HostIo. Everything it uses
/// is borrowed and must outlive it; `memory` must be loaded before `run`.
class StepInterpreter {
public:
  StepInterpreter(const compiler::CompiledGraph &plan, TileMemory &memory, HostIo &hostIo,
                  ThreadPool &pool, bool runtimeVerify);

  /// Runs from step `pc` to the next End, or to a CrossReplica step, whose index it then returns
  /// (the engine combines the replicas there and calls `resume` with the step after it). With a
  /// recorder, every Execute, Copy and stream step is counted (and timed when it measures host
  /// time), and compute sets run one by one; the caller has started the run on the recorder
  /// (beginRun), since only it knows the program.
  std::optional<std::size_t> run(std::size_t pc, profile::ExecutionRecorder *recorder);
  /// Goes on from `pc` within the same run (loop counters and calls as they were).
  std::optional<std::size_t> resume(std::size_t pc, profile::ExecutionRecorder *recorder);
  /// Where PrintTensor steps and printf from vertices (<print.h>) write (std::cout until set);
  /// borrowed.
  void setPrintStream(std::ostream &out) { printStream_ = &out; }
  /// Back to the state of a freshly loaded replica: cycle clock 0, floating-point mode all off.
  void resetRegisters();
  /// The cost model's cycles of each step (one per plan step), which the cycle clock adds up
  /// as steps run; empty (the default) keeps no clock — only graphs with cycleCount or
  /// cycleStamp need one.
  void setStepCycles(std::vector<std::uint64_t> cycles) { stepCycles_ = std::move(cycles); }

private:
  /// Executes one step; false at End and at CrossReplica (pc left on it).
  bool step(std::size_t &pc, bool joinRuns);
  std::string runTile(unsigned index, std::size_t t) const;
  void executeComputeSet(unsigned index);
  void executeTileByTile(std::size_t pc, std::size_t count);
  void runCopies(const compiler::CopyList &list);
  void runTensorCopy(unsigned index);
  bool scalarNonZero(unsigned index) const;
  std::size_t switchTarget(unsigned index) const;
  void print(unsigned index) const;
  void cycleCounter(const compiler::Step &s);
  void setFloatMode(std::uint32_t mode);
  void saveFloatMode(unsigned index);
  void loadFloatMode(unsigned index);
  /// Writes what vertices printed into the first `count` print buffers, in order, and empties
  /// them.
  void flushVertexPrints(std::size_t count);

  const compiler::CompiledGraph &plan_;
  TileMemory &memory_;
  HostIo &hostIo_;
  ThreadPool &pool_;
  const bool runtimeVerify_;
  std::vector<std::uint64_t> loopCounters_;
  std::vector<std::size_t> callStack_;
  std::vector<unsigned char> staging_;
  std::ostream *printStream_;
  std::vector<std::uint64_t> stepCycles_;
  std::uint64_t clock_ = 0;               ///< Cycles run since load (with stepCycles_).
  std::vector<std::uint64_t> countStart_; ///< Per cycleTensors entry: where its count began.
  std::uint32_t floatMode_ = 0;           ///< core/FloatModeBits.hpp
  int trappedExceptions_ = 0;             ///< <cfenv> flags that stop a vertex (from floatMode_)
  /// printf output of the running compute set(s): one buffer per tile (per compute set and tile
  /// for tile-by-tile runs), written in that order when they end.
  std::vector<std::string> printBuffers_;
};

} // namespace poplar::engine
