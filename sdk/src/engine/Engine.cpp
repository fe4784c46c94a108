// The Engine facade: builds or finds the compiled graph (executable cache), then hands loading
// to TileMemory, running to StepInterpreter and host transfers to HostIo.
#include <poplar/Engine.hpp>

#include <optional>

#include <poplar/exceptions.hpp>
#include <tessera/Distributed.hpp>

#include "compiler/Compiler.hpp"
#include "core/GraphData.hpp"
#include "engine/Collectives.hpp"
#include "engine/CrossInstance.hpp"
#include "engine/EngineOptions.hpp"
#include "engine/HostIo.hpp"
#include "engine/StepInterpreter.hpp"
#include "engine/ThreadPool.hpp"
#include "engine/TileFloatMode.hpp"
#include "engine/TileMemory.hpp"
#include "executable/CompileExecutable.hpp"
#include "executable/ExecutableCache.hpp"
#include "executable/GraphFingerprint.hpp"
#include "profile/ProfileSession.hpp"

namespace poplar {

struct Engine::Impl {
  /// The compiled graph, shared with the executable cache's writer while it encodes it.
  std::shared_ptr<const Executable::Impl> compiled;
  const compiler::CompiledGraph &plan() const { return compiled->plan; }
  tessera::profile::TargetInfo target; ///< What the plan was compiled for.
  bool fromCache = false;              ///< Found in the executable cache, not compiled.
  std::string cacheKey;                ///< Its key in the executable cache, when enabled.
  /// The cache entry this engine compiled, written when the engine is destroyed (so encoding
  /// it never competes with runs).
  std::shared_ptr<executable::PendingStore> pendingStore;
  engine::EngineOptions options;
  bool recordRuns = true; ///< enableExecutionProfiling / disableExecutionProfiling
  std::unique_ptr<engine::ThreadPool> pool;
  std::unique_ptr<profile::ProfileSession> profiler;
  /// One replica's state: its tile memory, stream bindings and step loop. They borrow `plan`,
  /// `pool` and each other.
  struct Replica {
    engine::TileMemory memory;
    engine::HostIo hostIo;
    engine::StepInterpreter interpreter;
    Replica(const compiler::CompiledGraph &plan, engine::ThreadPool &pool,
            const engine::EngineOptions &o)
        : memory(plan), hostIo(plan, memory, o.prefetch),
          interpreter(plan, memory, hostIo, pool, o.runtimeVerify) {}
  };
  // Built by start() once the plan is in place; declared after what they borrow, so they go
  // first.
  std::vector<std::unique_ptr<Replica>> replicas;
  engine::TileMemory &memory() const { return replicas.front()->memory; }
  /// Global index of replicas[0] and replicas in the whole run (other processes run the rest
  /// under tessera-run; `across` reaches them when the programs have collectives).
  unsigned replicaOffset = 0, totalReplicas = 1;
  engine::CrossInstance *across = nullptr;

  /// Replica `index`, or an index_error naming `what` and the replicas there are.
  Replica &replica(unsigned index, const std::string &what) const {
    if (index >= replicas.size())
      throw index_error(what + ": replica " + std::to_string(index) +
                        " does not exist; the graph has " + std::to_string(replicas.size()) +
                        " replica(s) (0 to " + std::to_string(replicas.size() - 1) + ")");
    return *replicas[index];
  }
  /// Runs program entry `start` on every replica; they meet at each CrossReplica step, where
  /// the collective combines them.
  void runReplicas(std::size_t start, profile::ExecutionRecorder *recorder);

  /// Takes over a compiled graph (fresh, cached or deserialized).
  void start(std::shared_ptr<const Executable::Impl> exe) {
    compiled = std::move(exe);
    const auto &plan = compiled->plan;
    target = compiled->description.target;
    profiler = std::make_unique<profile::ProfileSession>(executable::profileOptionsOf(options));
    profiler->compiled(compiled->description, plan);
    pool = std::make_unique<engine::ThreadPool>(options.hostThreads);
    replicas.clear();
    for (unsigned r = 0; r < std::max(1u, plan.replicationFactor); ++r)
      replicas.push_back(std::make_unique<Replica>(plan, *pool, options));
    joinInstances();
  }

  /// Under tessera-run, a replicated graph's replicas are this instance's share of the run's.
  void joinInstances() {
    const unsigned local = static_cast<unsigned>(replicas.size());
    replicaOffset = 0;
    totalReplicas = local;
    across = nullptr;
    if (!tessera::distributed::isDistributed() || (local == 1 && plan().collectives.empty()))
      return;
    if (local != tessera::distributed::numLocalReplicas())
      throw runtime_error(
          "Engine: this graph has replication factor " + std::to_string(local) +
          " but tessera-run gives each instance " +
          std::to_string(tessera::distributed::numLocalReplicas()) + " of the run's " +
          std::to_string(tessera::distributed::numTotalReplicas()) +
          " replicas; build it with replication_factor(tessera::distributed::numLocalReplicas())");
    replicaOffset = tessera::distributed::replicaIndexOffset();
    totalReplicas = tessera::distributed::numTotalReplicas();
    if (!plan().collectives.empty())
      across = &engine::crossInstance();
  }
};

void Engine::Impl::runReplicas(std::size_t start, profile::ExecutionRecorder *recorder) {
  // Replicas take turns from one meeting point to the next (the profile follows replica 0).
  // Each one's compute sets use every host thread, so the turns cost no parallelism.
  const std::size_t R = replicas.size();
  std::vector<std::optional<std::size_t>> at(R);
  for (std::size_t r = 0; r < R; ++r)
    at[r] = replicas[r]->interpreter.run(start, r == 0 ? recorder : nullptr);
  engine::ReplicaGroup group;
  for (const auto &rep : replicas)
    group.local.push_back(&rep->memory);
  group.offset = replicaOffset;
  group.total = totalReplicas;
  group.across = across;
  while (at[0]) {
    for (std::size_t r = 1; r < R; ++r)
      if (at[r] != at[0]) {
        const auto where = [&](const std::optional<std::size_t> &pc) {
          return pc ? "collective '" + plan().collectives[plan().steps[*pc].index].name + "'"
                    : std::string("the end of the program");
        };
        throw runtime_error("Engine::run: replicas took different paths: replica 0 reached " +
                            where(at[0]) + " while replica " + std::to_string(r) + " reached " +
                            where(at[r]) +
                            " (control flow that depends on per-replica data must not skip a "
                            "collective)");
      }
    if (across)
      engine::agreeAcrossInstances(*across, plan(), at[0]);
    engine::runCollective(plan().collectives[plan().steps[*at[0]].index], group);
    for (std::size_t r = 0; r < R; ++r)
      at[r] = replicas[r]->interpreter.resume(*at[r] + 1, r == 0 ? recorder : nullptr);
  }
  for (std::size_t r = 1; r < R; ++r)
    if (at[r])
      throw runtime_error("Engine::run: replicas took different paths: replica 0 reached the end "
                          "of the program while replica " +
                          std::to_string(r) + " reached collective '" +
                          plan().collectives[plan().steps[*at[r]].index].name + "'");
  if (across) // the others must not wait at a collective this instance will never reach
    engine::agreeAcrossInstances(*across, plan(), std::nullopt);
}

Engine::Engine(const Graph &graph, const program::Program &program, const OptionFlags &options,
               ProgressFunc progress)
    : Engine(graph, ArrayRef<program::Program>(&program, 1), options, std::move(progress)) {}

Engine::Engine(const Graph &graph, ArrayRef<program::Program> programs, const OptionFlags &options,
               ProgressFunc progress)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = engine::parseEngineOptions(options);
  executable::requireTopLevelGraph(graph);
  const auto &o = impl_->options;
  const std::vector<program::Program> list = programs.vec();
  if (!o.executableCache) {
    impl_->start(executable::compile(graph, list, o, std::move(progress)));
    return;
  }
  const executable::CacheSettings cache{true, o.executableCacheDirectory,
                                        o.executableCacheMaxBytes};
  // Everything that changes the plan is in the key; options that only change how it runs or
  // what it reports are not (they are read again from `options` below).
  const std::string key = executable::graphFingerprint(
      graph.data(), list, o.allowOutOfMemory ? "allowOutOfMemory" : "");
  impl_->cacheKey = key;
  if (auto cached = executable::lookUp(cache, key)) {
    impl_->fromCache = true;
    if (progress)
      progress(1, 1);
    impl_->start(std::move(cached));
    return;
  }
  std::shared_ptr<const Executable::Impl> exe =
      executable::compile(graph, list, o, std::move(progress));
  impl_->pendingStore = executable::store(cache, key, exe);
  impl_->start(std::move(exe));
}

Engine::Engine(Executable &&exe, const OptionFlags &options) : impl_(std::make_unique<Impl>()) {
  impl_->options = engine::parseEngineOptions(options);
  impl_->start(exe.release());
}

Engine::Engine(Engine &&) noexcept = default;
// Destroying the Impl destroys the vertex objects (TileMemory's destructor).
Engine &Engine::operator=(Engine &&) noexcept = default;
Engine::~Engine() {
  if (impl_ && impl_->pendingStore)
    impl_->pendingStore->write();
}

void Engine::load(const Device &device) {
  auto &im = *impl_;
  const auto &plan = im.plan();
  const Target &t = device.getTarget();
  const unsigned replicas = static_cast<unsigned>(im.replicas.size());
  if (t.getNumTiles() != plan.numTiles * replicas ||
      t.getNumWorkerContexts() != plan.numWorkerContexts ||
      t.getBytesPerTile() != plan.bytesPerTile)
    throw runtime_error("Engine::load: the graph was compiled for target " +
                        executable::describeTarget(im.target) + " but the device is " +
                        executable::describeTarget(
                            {t.getTargetArchString(), t.getNumIPUs(), t.getTilesPerIPU(),
                             t.getNumTiles(), t.getNumWorkerContexts(), t.getBytesPerTile()}));
  for (unsigned r = 0; r < replicas; ++r) {
    auto &memory = im.replicas[r]->memory;
    memory.load();
    im.replicas[r]->hostIo.resetRemoteBuffers();
    for (const auto &index : plan.replicationIndex) {
      const std::uint32_t value = im.replicaOffset + r;
      memory.scatter(index, reinterpret_cast<const unsigned char *>(&value));
    }
  }
  im.profiler->loaded(plan, im.memory().typeCycleEstimates());
  // The cycle clock is only kept for graphs that read it (pricing every step has a cost).
  const std::vector<std::uint64_t> cycles =
      plan.cycleTensors.empty() ? std::vector<std::uint64_t>{} : im.profiler->stepCycles();
  for (auto &r : im.replicas) {
    r->interpreter.resetRegisters();
    r->interpreter.setStepCycles(cycles);
  }
}

void Engine::loadAndRun(const Device &device, unsigned prog, const std::string &debugName) {
  load(device);
  run(prog, debugName);
}

void Engine::run(unsigned prog, const std::string &) {
  auto &im = *impl_;
  if (!im.memory().loaded())
    throw runtime_error("Engine::run: the engine is not loaded (call Engine::load(device))");
  if (prog >= im.plan().programStart.size())
    throw index_error("Engine::run: program " + std::to_string(prog) +
                      " does not exist; the engine was built with " +
                      std::to_string(im.plan().programStart.size()) + " program(s)");
  const engine::ScopedTileFloatMode tileMode; // this thread runs tiles too
  auto *recorder = im.recordRuns ? im.profiler->recorder() : nullptr;
  if (recorder)
    recorder->beginRun(prog);
  im.runReplicas(im.plan().programStart[prog], recorder);
  if (recorder)
    im.profiler->runFinished();
}

void Engine::enableExecutionProfiling() { impl_->recordRuns = true; }

void Engine::disableExecutionProfiling() { impl_->recordRuns = false; }

void Engine::resetExecutionProfile() { impl_->profiler->resetExecution(); }

namespace {
/// Bytes of the tensor registered as `handle` in `list` (host reads or writes), or 0 when there
/// is none (HostIo then reports the unknown handle).
std::uint64_t
hostTensorBytes(const std::vector<std::pair<std::string, compiler::TensorImage>> &list,
                StringRef handle) {
  for (const auto &[name, image] : list)
    if (name == handle.str())
      return image.bytes;
  return 0;
}
/// The end of a buffer that holds `bytes` (null for a null buffer, which HostIo refuses).
const unsigned char *endOf(const void *buf, std::uint64_t bytes) {
  return buf ? static_cast<const unsigned char *>(buf) + bytes : nullptr;
}
unsigned char *endOf(void *buf, std::uint64_t bytes) {
  return buf ? static_cast<unsigned char *>(buf) + bytes : nullptr;
}
} // namespace

void Engine::writeTensor(StringRef handle, const void *buf) {
  const auto bytes = hostTensorBytes(impl_->plan().hostWrites, handle);
  writeTensor(handle, buf, endOf(buf, bytes));
}

void Engine::writeTensor(StringRef handle, unsigned replicaIndex, const void *buf) {
  const auto bytes = hostTensorBytes(impl_->plan().hostWrites, handle);
  writeTensor(handle, replicaIndex, buf, endOf(buf, bytes));
}

void Engine::readTensor(StringRef handle, void *buf) {
  const auto bytes = hostTensorBytes(impl_->plan().hostReads, handle);
  readTensor(handle, buf, endOf(buf, bytes));
}

void Engine::readTensor(StringRef handle, unsigned replicaIndex, void *buf) {
  const auto bytes = hostTensorBytes(impl_->plan().hostReads, handle);
  readTensor(handle, replicaIndex, buf, endOf(buf, bytes));
}

void Engine::writeTensor(StringRef handle, const void *buf, const void *bufEnd) {
  for (auto &r : impl_->replicas)
    r->hostIo.writeTensor(handle, buf, bufEnd);
}

void Engine::writeTensor(StringRef handle, unsigned replicaIndex, const void *buf,
                         const void *bufEnd) {
  impl_->replica(replicaIndex, "writeTensor '" + handle.str() + "'")
      .hostIo.writeTensor(handle, buf, bufEnd);
}

void Engine::readTensor(StringRef handle, void *buf, void *bufEnd) {
  impl_->replicas.front()->hostIo.readTensor(handle, buf, bufEnd);
}

void Engine::readTensor(StringRef handle, unsigned replicaIndex, void *buf, void *bufEnd) {
  impl_->replica(replicaIndex, "readTensor '" + handle.str() + "'")
      .hostIo.readTensor(handle, buf, bufEnd);
}

namespace {
/// Runs `io` on the hidden handle of `handle`'s metadata; a tensor without one is a type error.
template <class F> void withMetadataHandle(const char *what, StringRef handle, F &&io) {
  const std::string hidden = core::metadataHandle(handle.str());
  try {
    io(StringRef(hidden));
  } catch (const stream_connection_error &) {
    throw type_error(std::string(what) + " '" + handle.str() +
                     "' with a QuarterMetadata: the tensor has no metadata (only QUARTER "
                     "tensors do)");
  }
}
} // namespace

void Engine::writeTensor(StringRef handle, const QuarterMetadata &metadata, const void *buf,
                         const void *bufEnd) {
  writeTensor(handle, buf, bufEnd);
  const unsigned char byte = metadata.getBinary();
  withMetadataHandle("writeTensor", handle, [&](StringRef h) {
    for (auto &r : impl_->replicas)
      r->hostIo.writeTensor(h, &byte, &byte + 1);
  });
}

void Engine::readTensor(StringRef handle, QuarterMetadata &metadata, void *buf, void *bufEnd) {
  readTensor(handle, buf, bufEnd);
  unsigned char byte = 0;
  withMetadataHandle("readTensor", handle, [&](StringRef h) {
    impl_->replicas.front()->hostIo.readTensor(h, &byte, &byte + 1);
  });
  metadata = QuarterMetadata(byte);
}

void Engine::setPrintTensorStream(std::ostream &stream) {
  for (auto &r : impl_->replicas)
    r->interpreter.setPrintStream(stream);
}

void Engine::setPrintStream(std::ostream &stream) { setPrintTensorStream(stream); }

void Engine::connectStream(StringRef handle, void *p) {
  for (auto &r : impl_->replicas)
    r->hostIo.connectFixed(handle, p);
}

void Engine::connectStream(StringRef handle, void *begin, void *end) {
  for (auto &r : impl_->replicas)
    r->hostIo.connectRing(handle, begin, end);
}

void Engine::connectStream(StringRef handle, unsigned replicaIndex, void *begin, void *end) {
  impl_->replica(replicaIndex, "connectStream '" + handle.str() + "'")
      .hostIo.connectRing(handle, begin, end);
}

void Engine::connectStreamToCallback(StringRef handle, std::function<void(void *)> callback) {
  for (auto &r : impl_->replicas)
    r->hostIo.connectCallback(handle, callback);
}

namespace {
/// One StreamCallback shared by every replica's binding (they call it in replica order).
class SharedCallback : public StreamCallback {
public:
  explicit SharedCallback(std::shared_ptr<StreamCallback> c) : c_(std::move(c)) {}
  Result prefetch(void *dst) override { return c_->prefetch(dst); }
  void fetch(void *dst) override { c_->fetch(dst); }
  void complete() override { c_->complete(); }
  void invalidatePrefetched() override { c_->invalidatePrefetched(); }

private:
  std::shared_ptr<StreamCallback> c_;
};
} // namespace

void Engine::connectStreamToCallback(StringRef handle, std::unique_ptr<StreamCallback> callback) {
  if (impl_->replicas.size() == 1) {
    impl_->replicas.front()->hostIo.connectCallback(handle, std::move(callback));
    return;
  }
  std::shared_ptr<StreamCallback> shared(std::move(callback));
  for (auto &r : impl_->replicas)
    r->hostIo.connectCallback(handle, std::make_unique<SharedCallback>(shared));
}

void Engine::connectStreamToCallback(StringRef handle, unsigned replicaId,
                                     std::unique_ptr<StreamCallback> callback) {
  impl_->replica(replicaId, "connectStreamToCallback '" + handle.str() + "'")
      .hostIo.connectCallback(handle, std::move(callback));
}

void Engine::connectStreamToCallback(StringRef handle, unsigned replicaId,
                                     std::function<void(void *)> callback) {
  impl_->replica(replicaId, "connectStreamToCallback '" + handle.str() + "'")
      .hostIo.connectCallback(handle, std::move(callback));
}

unsigned Engine::getNumReplicas() const { return static_cast<unsigned>(impl_->replicas.size()); }

void Engine::copyToRemoteBuffer(const void *src, StringRef handle, std::uint64_t repeatIndex,
                                unsigned replicationIndex) {
  impl_->replica(replicationIndex, "copyToRemoteBuffer '" + handle.str() + "'")
      .hostIo.writeRemoteRow(handle, repeatIndex, src);
}

void Engine::copyFromRemoteBuffer(StringRef handle, void *dst, std::uint64_t repeatIndex,
                                  unsigned replicationIndex) {
  impl_->replica(replicationIndex, "copyFromRemoteBuffer '" + handle.str() + "'")
      .hostIo.readRemoteRow(handle, repeatIndex, dst);
}

std::uint64_t Engine::estimateProgramCycles(unsigned prog) const {
  const auto &im = *impl_;
  if (prog >= im.plan().programStart.size())
    throw index_error("Engine::estimateProgramCycles: program " + std::to_string(prog) +
                      " does not exist; the engine was built with " +
                      std::to_string(im.plan().programStart.size()) + " program(s)");
  return im.profiler->programCycles(prog);
}

bool Engine::loadedFromExecutableCache() const { return impl_->fromCache; }

const std::string &Engine::executableCacheKey() const { return impl_->cacheKey; }

unsigned Engine::getNumHostThreads() const { return impl_->pool->numThreads(); }

std::uint64_t Engine::getTileMemoryUsed(unsigned tile) const {
  if (tile >= impl_->plan().numTiles)
    throw index_error("getTileMemoryUsed: tile " + std::to_string(tile) + " is out of range (" +
                      std::to_string(impl_->plan().numTiles) + " tiles)");
  return impl_->plan().memory[tile].total();
}

void Engine::printProfileSummary(std::ostream &out, const OptionFlags &opts) const {
  impl_->profiler->printSummary(out, opts);
}

tessera::profile::GraphProfile Engine::getGraphProfile() const { return impl_->profiler->graph(); }

std::optional<tessera::profile::ExecutionProfile> Engine::getExecutionProfile() const {
  return impl_->profiler->execution();
}

std::vector<VertexCycleEstimate> Engine::getVertexCycleEstimates() const {
  const auto &im = *impl_;
  im.memory().requireLoaded("getVertexCycleEstimates");
  std::vector<VertexCycleEstimate> out;
  for (std::size_t i = 0; i < im.plan().vertexObjects.size(); ++i) {
    const auto &obj = im.plan().vertexObjects[i];
    out.push_back({obj.vertexId, im.plan().typeOf(obj).name, obj.tile,
                   im.memory().typeCycleEstimates()[i],
                   im.plan().perfEstimate(static_cast<std::uint32_t>(i))});
  }
  return out;
}

} // namespace poplar
