// PopVision analysis (pva): read a profile an Engine wrote, from C++ (and from Python through
// the `pva` module, which wraps this library and has the same names as attributes).
//
//   pva::Report report = pva::openReport("reports/profile.pop");
//   report.compilation().target().numTiles();
//   for (const pva::ExecutionStep &s : report.execution().steps())
//     total += s.ipus()[0].cycles();
//
// The names follow Graphcore's libpva for the parts programs use; what a Tessera profile does
// not hold is left out rather than faked (see README.md, "Reading profiles (pva)"). The file is
// Tessera's profile.pop — Protocol Buffers (sdk/proto/profile.proto), not Poplar's format — written
// in `autoReport.directory` when `autoReport.all`, `autoReport.outputGraphProfile` or
// `autoReport.outputExecutionProfile` is set.
//
// Two clocks (docs/ARCHITECTURE.md, decision 8): every cycle figure here is an ESTIMATE of IPU
// cycles from Tessera's cost model, never a measurement; the only measured figures are host
// times, in nanoseconds, named `host…` (zero unless the engine ran with `debug.instrument`,
// which `autoReport.all` sets).
//
// Every object shares the report's data, so any of them stays valid after the Report it came
// from is gone. Objects are read-only and safe to read from several threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tessera/profile/Profile.hpp>

namespace pva {

namespace detail {
struct ReportData;
struct Access;
} // namespace detail

/// The SDK that wrote the profile, e.g. string() "Tessera 0.1.0 (3f2a…)", major() 0.
class Version {
public:
  const std::string &string() const { return text_; }
  unsigned major() const { return major_; }
  unsigned minor() const { return minor_; }
  unsigned point() const { return point_; }

private:
  friend struct detail::Access;
  std::string text_;
  unsigned major_ = 0, minor_ = 0, point_ = 0;
};

/// The device the graph was compiled for.
class Target {
public:
  /// As libpva's; Tessera's targets are always IPUModel (simulated IPUs, cost-modelled cycles).
  enum class Type { Unknown, CPU, IPU, IPUModel };
  Type type() const { return Type::IPUModel; }
  /// The IPU architecture simulated, e.g. "ipu2".
  const std::string &architecture() const { return info_.arch; }
  unsigned numIPUs() const { return info_.numIPUs; }
  unsigned tilesPerIpu() const { return info_.tilesPerIPU; }
  unsigned numTiles() const { return info_.numTiles; }
  std::uint64_t bytesPerTile() const { return info_.bytesPerTile; }
  std::uint64_t bytesPerIPU() const { return info_.bytesPerTile * info_.tilesPerIPU; }
  std::uint64_t totalMemory() const { return info_.bytesPerTile * info_.numTiles; }
  /// Tile clock in Hz: what turns estimated cycles into estimated seconds.
  double clockFrequency() const { return info_.clockHz; }

private:
  friend struct detail::Access;
  tessera::profile::TargetInfo info_;
};

/// Counts over the compiled graph.
class Graph {
public:
  /// Compute sets the compiled programs execute.
  std::uint64_t numComputeSets() const { return numComputeSets_; }
  /// Vertices of those compute sets.
  std::uint64_t numVertices() const { return numVertices_; }
  /// Variables added to the graph (constants included).
  std::uint64_t numVars() const { return numVars_; }

private:
  friend struct detail::Access;
  std::uint64_t numComputeSets_ = 0, numVertices_ = 0, numVars_ = 0;
};

/// A number of bytes with and without the alignment gaps between allocations.
class MemorySize {
public:
  std::uint64_t includingGaps() const { return including_; }
  std::uint64_t excludingGaps() const { return excluding_; }

private:
  friend struct detail::Access;
  std::uint64_t including_ = 0, excluding_ = 0;
};

/// Bytes one tile uses. total().includingGaps() is what the out-of-memory check compares with
/// Target::bytesPerTile(). The categories are Tessera's (libpva's are finer).
class TileMemory {
public:
  MemorySize total() const;
  std::uint64_t variables() const { return bytes_.variables; }
  std::uint64_t vertexState() const { return bytes_.vertexState; }
  /// Exchange buffers (data brought to the tile for a compute set, and sent from it).
  std::uint64_t exchange() const { return bytes_.exchange; }
  /// Alignment gaps.
  std::uint64_t gaps() const { return bytes_.padding; }

private:
  friend struct detail::Access;
  tessera::profile::TileMemory bytes_;
};

class Tile {
public:
  /// Global tile number, 0 … Target::numTiles() - 1.
  unsigned number() const { return number_; }
  const TileMemory &memory() const { return memory_; }

private:
  friend struct detail::Access;
  unsigned number_ = 0;
  TileMemory memory_;
};

class VertexType {
public:
  /// The registered type name, e.g. "popops::ScaledAdd<float>".
  const std::string &name() const { return name_; }

private:
  friend struct detail::Access;
  std::string name_;
};

/// The vertices of one type in a compute set: libpva lists a compute set's vertices this way,
/// one entry per type with its count.
class Vertex {
public:
  const VertexType &type() const { return type_; }
  std::uint64_t count() const { return count_; }

private:
  friend struct detail::Access;
  VertexType type_;
  std::uint64_t count_ = 0;
};

class ComputeSet {
public:
  const std::string &name() const { return name_; }
  /// One entry per vertex type, by type name.
  const std::vector<Vertex> &vertices() const { return vertices_; }
  /// All its vertices (the sum of the counts above).
  std::uint64_t numVertices() const { return numVertices_; }
  /// Tiles with at least one of its vertices.
  unsigned numTiles() const { return numTiles_; }

private:
  friend struct detail::Access;
  std::string name_;
  std::vector<Vertex> vertices_;
  std::uint64_t numVertices_ = 0;
  unsigned numTiles_ = 0;
};

class ProgramVisitor;

/// A program that does work on the device: one step of the compiled, flattened programs.
/// Tessera's profile keeps that step list, not the tree of Sequences, Repeats and Ifs the
/// programs were built from, so compilation().programs() lists these steps and children() is
/// always empty; control flow shows only as the order of execution steps.
class Program {
public:
  /// libpva's program types. Tessera produces OnTileExecute (Execute), DoExchange (Copy) and
  /// StreamCopyMid (a stream copy, one step where Poplar has Begin/Mid/End); the others are
  /// listed so code written for libpva compiles.
  enum class Type {
    Unknown,
    Empty,
    Sequence,
    Repeat,
    RepeatWhileTrue,
    RepeatWhileFalse,
    If,
    Switch,
    Call,
    Sync,
    OnTileExecute,
    DoExchange,
    GlobalExchange,
    StreamCopyBegin,
    StreamCopyMid,
    StreamCopyEnd,
  };

  virtual ~Program() = default;
  Type type() const { return type_; }
  /// The compute set, copy or stream name.
  const std::string &name() const { return name_; }
  /// Identifies the program within its report (its index in the flattened step list).
  std::size_t id() const { return id_; }
  /// Always empty (see the class comment).
  std::vector<std::shared_ptr<Program>> children() const { return {}; }
  /// Estimated cycles of one execution (the cost model's; Tessera extension).
  std::uint64_t estimatedCycles() const { return cycles_; }
  /// Bytes one execution moves between tiles or to and from the host (Tessera extension).
  std::uint64_t exchangeBytes() const { return exchangeBytes_; }
  /// Calls the visitor's function for this program's type.
  virtual void accept(ProgramVisitor &visitor) const = 0;

protected:
  Program() = default;

private:
  friend struct detail::Access;
  Type type_ = Type::Unknown;
  std::string name_;
  std::size_t id_ = 0;
  std::uint64_t cycles_ = 0;
  std::uint64_t exchangeBytes_ = 0;
};

/// Runs a compute set: every tile runs its vertices.
class OnTileExecuteProgram final : public Program {
public:
  const ComputeSet &computeset() const { return computeSet_; }
  void accept(ProgramVisitor &visitor) const override;

private:
  friend struct detail::Access;
  ComputeSet computeSet_;
};

/// Copies data between tiles (a Copy program).
class DoExchangeProgram final : public Program {
public:
  void accept(ProgramVisitor &visitor) const override;
};

/// Copies a stream to or from the host; name() is the stream's handle.
class StreamCopyMidProgram final : public Program {
public:
  /// True for host → device (a HostToDevice stream), false for device → host.
  bool fromHost() const { return fromHost_; }
  void accept(ProgramVisitor &visitor) const override;

private:
  friend struct detail::Access;
  bool fromHost_ = false;
};

/// Override the functions for the program types of interest; the others do nothing.
class ProgramVisitor {
public:
  virtual ~ProgramVisitor() = default;
  virtual void visitOnTileExecute(const OnTileExecuteProgram &) {}
  virtual void visitDoExchange(const DoExchangeProgram &) {}
  virtual void visitStreamCopyMid(const StreamCopyMidProgram &) {}
};

/// Everything known when the graph was compiled.
class Compilation {
public:
  const Target &target() const;
  const Graph &graph() const;
  /// One per tile, by tile number.
  const std::vector<Tile> &tiles() const;
  /// Every program that does work, in step order (see Program).
  const std::vector<std::shared_ptr<Program>> &programs() const;

private:
  friend struct detail::Access;
  friend class Report;
  /// Only openReport makes these (one without a report would have nothing to read).
  Compilation() = default;
  std::shared_ptr<const detail::ReportData> data_;
};

/// Estimated cycles of a step across the IPUs it ran on. The cost model prices a step by its
/// slowest tile and every IPU synchronises at the step's end, so all IPUs get the same figures
/// and min() == max() == mean().
class Cycles {
public:
  std::uint64_t min() const { return value_; }
  std::uint64_t max() const { return value_; }
  double mean() const { return static_cast<double>(value_); }

private:
  friend struct detail::Access;
  std::uint64_t value_ = 0;
};

/// One step on one IPU. Every IPU of the target takes part in every step (BSP), with the
/// step's whole estimate: cycles() is not split between IPUs.
class IpuStep {
public:
  unsigned ipu() const { return ipu_; }
  /// Estimated cycles.
  std::uint64_t cycles() const { return cyclesTo_ - cyclesFrom_; }
  std::uint64_t cyclesFrom() const { return cyclesFrom_; }
  std::uint64_t cyclesTo() const { return cyclesTo_; }

private:
  friend struct detail::Access;
  unsigned ipu_ = 0;
  std::uint64_t cyclesFrom_ = 0, cyclesTo_ = 0;
};

/// One execution of a program, placed on the estimated-cycle clock (which starts at 0 with the
/// first run and runs on across runs) and, when instrumented, on the host clock.
class ExecutionStep {
public:
  const std::shared_ptr<Program> &program() const;
  Cycles cyclesFrom() const;
  Cycles cyclesTo() const;
  /// Estimated cycles (cyclesTo - cyclesFrom; Tessera extension).
  std::uint64_t cycles() const;
  /// One entry per IPU of the target.
  std::vector<IpuStep> ipus() const;
  /// Measured host nanoseconds from the first run's start to this step's start, and the step's
  /// own (both 0 unless instrumented; Tessera extension).
  std::uint64_t hostStartNanoseconds() const;
  std::uint64_t hostNanoseconds() const;

private:
  friend struct detail::Access;
  ExecutionStep() = default;
  std::shared_ptr<const detail::ReportData> data_;
  std::size_t event_ = 0;
};

/// One Engine::run call.
class Run {
public:
  /// Index of the Engine program it ran (Engine::run's argument).
  unsigned program() const;
  /// The steps it executed (fewer once the timeline was truncated; see Execution).
  std::vector<ExecutionStep> steps() const;
  std::uint64_t cyclesFrom() const;
  std::uint64_t cyclesTo() const;
  /// Estimated cycles of all its steps.
  std::uint64_t cycles() const;

private:
  friend struct detail::Access;
  Run() = default;
  std::shared_ptr<const detail::ReportData> data_;
  std::size_t run_ = 0;
};

/// What the engine ran. Empty when the profile was written before the first run or without
/// an execution profile.
class Execution {
public:
  /// Every step executed, in order. The engine keeps the first 100,000 (stepsTruncated());
  /// totals below cover every step.
  std::vector<ExecutionStep> steps() const;
  /// Every Engine::run, in order (the first 100,000; runsTruncated()).
  std::vector<Run> runs() const;
  /// Engine::run calls, all of them.
  std::uint64_t numRuns() const;
  /// Estimated cycles of every step of every run.
  std::uint64_t totalCycles() const;
  /// Measured host nanoseconds spent in steps (0 unless instrumented()).
  std::uint64_t totalHostNanoseconds() const;
  /// Host times were measured (`debug.instrument`).
  bool instrumented() const;
  bool stepsTruncated() const;
  bool runsTruncated() const;

private:
  friend struct detail::Access;
  friend class Report;
  /// Only openReport makes these (one without a report would have nothing to read).
  Execution() = default;
  std::shared_ptr<const detail::ReportData> data_;
};

/// An opened profile.
class Report {
public:
  const Version &poplarVersion() const;
  const Compilation &compilation() const { return compilation_; }
  const Execution &execution() const { return execution_; }

private:
  friend struct detail::Access;
  Report() = default;
  std::shared_ptr<const detail::ReportData> data_;
  Compilation compilation_;
  Execution execution_;
};

/// Opens a profile: `profilePath` is a profile.pop file or a directory holding one. Throws
/// poplar::parse_error naming the file when it is missing, corrupt, truncated or not a Tessera
/// profile (poplar/exceptions.hpp; it derives from poplar::poplar_error and std::runtime_error).
Report openReport(const std::string &profilePath);

} // namespace pva
