// The Engine: compiles a graph and its programs, then runs them on a (simulated) device.
#pragma once

// <cassert>, <functional>, <numeric> and <unordered_set> as Poplar's headers bring them in:
// programs written for Poplar use `assert`, std::function, std::accumulate and
// std::unordered_set after including only this header.
#include <cassert>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <numeric>
#if __cplusplus >= 201703L
#include <optional>
#endif
#include <string>
#include <unordered_set>
#include <vector>

#include <poplar/ArrayRef.hpp>
#include <poplar/Device.hpp>
#include <poplar/Executable.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Quarter.hpp>
#include <poplar/StreamCallback.hpp>
#include <poplar/StringRef.hpp>
#include <poplar/Version.hpp>
#include <tessera/profile/Profile.hpp>

namespace poplar {

#if __cplusplus >= 201703L
/// Tessera extension (for profiles): the cycle estimates of one vertex. Defined for C++17 and
/// later only (it holds std::optionals), as is Engine::getVertexCycleEstimates.
struct VertexCycleEstimate {
  unsigned vertexId = 0;  ///< The vertex's id in its graph (VertexRef::getId()).
  std::string vertexType; ///< Its registered type name.
  unsigned tile = 0;      ///< The tile it runs on.
  /// The vertex class's own `cycleEstimate() const`, called at `load` on the constructed
  /// object (fields filled in); empty when the class declares none.
  std::optional<std::uint64_t> fromVertexType;
  /// The estimate given with `Graph::setPerfEstimate`, which takes precedence; or empty.
  std::optional<std::uint64_t> fromGraph;
  /// The estimate the cost model uses: fromGraph, else fromVertexType, else 0.
  std::uint64_t effective() const { return fromGraph.value_or(fromVertexType.value_or(0)); }
};
#endif

/// Runs programs on the tile engine: BSP supersteps (exchange in → compute on every tile in
/// parallel → exchange out), with results that never depend on the number of host threads.
///
/// Construction compiles: it checks the graph (mappings, connections, memory per tile) and
/// plans every step, so `run()` only walks a precomputed list. Options (as Poplar names them):
///  - `target.hostThreads`: host threads that run tiles (default: all cores);
///  - `debug.allowOutOfMemory`: compile even when a tile overflows (its memory is still
///    allocated on the host; the overflow is reported by the profile);
///  - `autoReport.outputGraphProfile`, `autoReport.outputExecutionProfile`, `autoReport.all`
///    and `autoReport.directory`: profile files and an HTML report
///    (<tessera/profile/ProfileReader.hpp>); the graph profile is written at `load`, or at
///    construction when the graph does not fit in tile memory; the execution profile after
///    every `run`. `debug.instrument` (implied by autoReport.all) measures host time per step;
///  - `executableCache.enable` (default true), `executableCache.directory` (default
///    $TESSERA_EXECUTABLE_CACHE, else ~/.cache/tessera/executables) and
///    `executableCache.maxBytes` (default 2 GiB): a graph compiled once is stored, keyed by its
///    content, programs, target, compile options and the SDK build, and the next Engine for
///    the same graph (in any process) loads it instead of compiling;
///  - Poplar's other documented engine options are accepted and have no effect on CPU.
/// An unknown option throws `invalid_option`, suggesting the nearest valid name. Options in
/// the `POPLAR_ENGINE_OPTIONS` environment variable (a JSON object) override these.
class Engine {
public:
  Engine(const Graph &graph, const program::Program &program, const OptionFlags &options = {},
         ProgressFunc progress = {});
  Engine(const Graph &graph, ArrayRef<program::Program> programs, const OptionFlags &options = {},
         ProgressFunc progress = {});
  /// Runs an executable from `compileGraph` or `Executable::deserialize` (no compilation).
  /// `options` are read as by the other constructors; those that only affect compilation
  /// (debug.allowOutOfMemory) have no effect here.
  explicit Engine(Executable &&exe, const OptionFlags &options = {});
  Engine(Engine &&) noexcept;
  Engine &operator=(Engine &&) noexcept;
  ~Engine();

  /// Allocates tile memory on the host and writes constants and initial values. The device's
  /// target must have the graph's tile count (times its replication factor).
  void load(const Device &device);
  /// Runs program `prog` (its index in the list given at construction) to completion.
  void run(unsigned prog = 0, const std::string &debugName = "");
  /// `load(device)` then `run(prog, debugName)`.
  void loadAndRun(const Device &device, unsigned prog = 0, const std::string &debugName = "");

  // Replicated graphs (Graph(target, replication_factor(R))): the forms without a replica index
  // write and connect every replica and read replica 0; those with one act on that replica only
  // and throw index_error for a replica that does not exist.

  /// Copies a host buffer into the tensor registered with `Graph::createHostWrite(handle, …)`.
  /// The buffer [buf, bufEnd) must hold at least the tensor's bytes.
  void writeTensor(StringRef handle, const void *buf, const void *bufEnd);
  void writeTensor(StringRef handle, unsigned replicaIndex, const void *buf, const void *bufEnd);
  /// Copies the tensor registered with `Graph::createHostRead(handle, …)` to [buf, bufEnd).
  void readTensor(StringRef handle, void *buf, void *bufEnd);
  void readTensor(StringRef handle, unsigned replicaIndex, void *buf, void *bufEnd);
  /// The forms without an end: `buf` must hold the tensor's bytes (not checked — prefer the
  /// forms with `bufEnd`).
  void writeTensor(StringRef handle, const void *buf);
  void writeTensor(StringRef handle, unsigned replicaIndex, const void *buf);
  void readTensor(StringRef handle, void *buf);
  void readTensor(StringRef handle, unsigned replicaIndex, void *buf);
  /// For a QUARTER tensor: also writes `metadata` to its metadata tensor (every replica), so
  /// the bytes in [buf, bufEnd) are read under it; type_error when the tensor has no metadata.
  void writeTensor(StringRef handle, const QuarterMetadata &metadata, const void *buf,
                   const void *bufEnd);
  /// For a QUARTER tensor: also reads its metadata (replica 0) into `metadata`.
  void readTensor(StringRef handle, QuarterMetadata &metadata, void *buf, void *bufEnd);

  /// Every Copy on stream `handle` reads (or writes) exactly one transfer at `p`.
  void connectStream(StringRef handle, void *p);
  /// A circular host buffer: successive Copies use successive transfers, wrapping at `end`.
  /// Its size must be a whole number of transfers. (Every replica goes round it on its own.)
  void connectStream(StringRef handle, void *begin, void *end);
  /// The same for replica `replicaIndex` only: each replica its own slice of the data.
  void connectStream(StringRef handle, unsigned replicaIndex, void *begin, void *end);
  /// Every Copy on stream `handle` calls `callback` with a buffer of one transfer to fill
  /// (host-to-device) or to read (device-to-host).
  void connectStreamToCallback(StringRef handle, std::function<void(void *)> callback);
  /// Every transfer on stream `handle` goes through `callback` (see <poplar/StreamCallback.hpp>
  /// for when prefetch, fetch, complete and invalidatePrefetched are called).
  void connectStreamToCallback(StringRef handle, std::unique_ptr<StreamCallback> callback);
  /// The same for replica `replicaId` only (without it, one callback serves every replica, which
  /// call it in replica order).
  void connectStreamToCallback(StringRef handle, unsigned replicaId,
                               std::unique_ptr<StreamCallback> callback);
  void connectStreamToCallback(StringRef handle, unsigned replicaId,
                               std::function<void(void *)> callback);
  /// Replicas this engine runs (the graph's replication factor).
  unsigned getNumReplicas() const;

  /// Writes row `repeatIndex` of remote buffer `handle` (Graph::addRemoteBuffer) of replica
  /// `replicationIndex` from `src`, which must hold numElements elements of its type. Needs
  /// `load`. Throws index_error for a row or replica that does not exist, and
  /// stream_connection_error for an unknown handle.
  void copyToRemoteBuffer(const void *src, StringRef handle, std::uint64_t repeatIndex,
                          unsigned replicationIndex = 0);
  /// Reads that row into `dst`.
  void copyFromRemoteBuffer(StringRef handle, void *dst, std::uint64_t repeatIndex,
                            unsigned replicationIndex = 0);

  /// Where PrintTensor programs write (std::cout until set). The stream must outlive the runs
  /// that print to it.
  void setPrintTensorStream(std::ostream &stream);
  /// Where every program that prints writes; in Tessera that is PrintTensor only, so this is
  /// the same as setPrintTensorStream.
  void setPrintStream(std::ostream &stream);

  /// Tessera extension: true when construction found this graph in the executable cache and did
  /// not compile it.
  bool loadedFromExecutableCache() const;
  /// Tessera extension: the key this engine's compiled graph has in the executable cache
  /// (whether it was compiled or loaded), for `tessera::ExecutableCache::load` in a later run
  /// that skips building the graph (<tessera/ExecutableCache.hpp>). Empty when the cache is off
  /// or the engine was constructed from an Executable.
  const std::string &executableCacheKey() const;

  /// Host threads running tiles.
  unsigned getNumHostThreads() const;
  /// Bytes of tile memory the compiled graph uses on `tile` (variables, vertex state, exchange).
  std::uint64_t getTileMemoryUsed(unsigned tile) const;
  /// Tessera extension: the cycle estimates of every vertex the programs execute, in vertex
  /// object order (by compute set, then tile). Needs `load` (the vertex types' estimates are
  /// computed from the constructed objects); throws `tensor_io_state_error` before it.
#if __cplusplus >= 201703L
  std::vector<VertexCycleEstimate> getVertexCycleEstimates() const;
#endif

  /// Prints the profile summary: target, memory totals and per-tile max/min/mean (variables,
  /// vertex state, exchange buffers), largest variables, compute sets with estimated cycles
  /// (and, when profiling runs, executions and measured host time), total exchange bytes.
  /// Options: {"showExecutionSteps", "true"} also lists every step. An unknown option throws
  /// `invalid_option` naming the nearest valid one.
  void printProfileSummary(std::ostream &out, const OptionFlags &opts = {}) const;
  /// Tessera extension: the IPU cost model's cycles for one run of program `programIndex`,
  /// estimated from the compiled steps without running anything: Repeat counts its iterations,
  /// If and Switch their most expensive branch, RepeatWhile one pass (its trip count depends on
  /// data). Priced with the vertex classes' own estimates once loaded (before `load`, with
  /// setPerfEstimate or the cost model's default). For one execution of a program without
  /// data-dependent control flow this equals what an execution profile records for it.
  /// Throws `index_error` for a program that does not exist.
  std::uint64_t estimateProgramCycles(unsigned programIndex = 0) const;
  /// Runs from now on are (enable) or are not (disable) recorded in the execution profile;
  /// enabled from construction. No effect on an engine built without an execution profile or
  /// instrumentation (autoReport.outputExecutionProfile, autoReport.all, debug.instrument).
  void enableExecutionProfiling();
  void disableExecutionProfiling();
  /// Forgets every run the execution profile has recorded so far.
  void resetExecutionProfile();
  /// Tessera extension: the graph profile (priced with vertex classes' own estimates once
  /// loaded; before `load` with setPerfEstimate or the cost model's default).
  tessera::profile::GraphProfile getGraphProfile() const;
#if __cplusplus >= 201703L
  /// Tessera extension: the execution profile so far; empty unless
  /// autoReport.outputExecutionProfile, autoReport.all or debug.instrument is set. Declared for
  /// C++17 and later only (it returns a std::optional).
  std::optional<tessera::profile::ExecutionProfile> getExecutionProfile() const;
#endif

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace poplar
