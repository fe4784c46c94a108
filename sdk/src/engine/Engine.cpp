// The Engine facade: builds or finds the compiled graph (executable cache), then hands loading
// to TileMemory, running to StepInterpreter and host transfers to HostIo.
#include <poplar/Engine.hpp>

#include <optional>

#include <poplar/exceptions.hpp>

#include "compiler/Compiler.hpp"
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
  std::unique_ptr<engine::ThreadPool> pool;
  std::unique_ptr<profile::ProfileSession> profiler;
  // Built by start() once the plan is in place; they borrow `plan`, `pool` and each other, and
  // are declared after them so they go first.
  std::optional<engine::TileMemory> memory;
  std::optional<engine::HostIo> hostIo;
  std::optional<engine::StepInterpreter> interpreter;

  /// Takes over a compiled graph (fresh, cached or deserialized).
  void start(std::shared_ptr<const Executable::Impl> exe) {
    compiled = std::move(exe);
    const auto &plan = compiled->plan;
    target = compiled->description.target;
    profiler = std::make_unique<profile::ProfileSession>(executable::profileOptionsOf(options));
    profiler->compiled(compiled->description, plan);
    pool = std::make_unique<engine::ThreadPool>(options.hostThreads);
    memory.emplace(plan);
    hostIo.emplace(plan, *memory, options.prefetch);
    interpreter.emplace(plan, *memory, *hostIo, *pool, options.runtimeVerify);
  }
};

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
  if (t.getNumTiles() != plan.numTiles || t.getNumWorkerContexts() != plan.numWorkerContexts ||
      t.getBytesPerTile() != plan.bytesPerTile)
    throw runtime_error("Engine::load: the graph was compiled for target " +
                        executable::describeTarget(im.target) + " but the device is " +
                        executable::describeTarget(
                            {t.getTargetArchString(), t.getNumIPUs(), t.getTilesPerIPU(),
                             t.getNumTiles(), t.getNumWorkerContexts(), t.getBytesPerTile()}));
  im.memory->load();
  im.profiler->loaded(plan, im.memory->typeCycleEstimates());
}

void Engine::run(unsigned prog, const std::string &) {
  auto &im = *impl_;
  if (!im.memory->loaded())
    throw runtime_error("Engine::run: the engine is not loaded (call Engine::load(device))");
  if (prog >= im.plan().programStart.size())
    throw index_error("Engine::run: program " + std::to_string(prog) +
                      " does not exist; the engine was built with " +
                      std::to_string(im.plan().programStart.size()) + " program(s)");
  const engine::ScopedTileFloatMode tileMode; // this thread runs tiles too
  auto *recorder = im.profiler->recorder();
  if (recorder)
    recorder->beginRun(prog);
  im.interpreter->run(im.plan().programStart[prog], recorder);
  im.profiler->runFinished();
}

void Engine::writeTensor(StringRef handle, const void *buf, const void *bufEnd) {
  impl_->hostIo->writeTensor(handle, buf, bufEnd);
}

void Engine::readTensor(StringRef handle, void *buf, void *bufEnd) {
  impl_->hostIo->readTensor(handle, buf, bufEnd);
}

void Engine::setPrintTensorStream(std::ostream &stream) {
  impl_->interpreter->setPrintStream(stream);
}

void Engine::setPrintStream(std::ostream &stream) { setPrintTensorStream(stream); }

void Engine::connectStream(StringRef handle, void *p) { impl_->hostIo->connectFixed(handle, p); }

void Engine::connectStream(StringRef handle, void *begin, void *end) {
  impl_->hostIo->connectRing(handle, begin, end);
}

void Engine::connectStreamToCallback(StringRef handle, std::function<void(void *)> callback) {
  impl_->hostIo->connectCallback(handle, std::move(callback));
}

void Engine::connectStreamToCallback(StringRef handle, std::unique_ptr<StreamCallback> callback) {
  impl_->hostIo->connectCallback(handle, std::move(callback));
}

void Engine::connectStreamToCallback(StringRef handle, unsigned replicaId,
                                     std::unique_ptr<StreamCallback> callback) {
  if (replicaId != 0)
    throw index_error("connectStreamToCallback '" + handle.str() + "': replica " +
                      std::to_string(replicaId) +
                      " does not exist; the graph has 1 replica (replica 0)");
  impl_->hostIo->connectCallback(handle, std::move(callback));
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
  im.memory->requireLoaded("getVertexCycleEstimates");
  std::vector<VertexCycleEstimate> out;
  for (std::size_t i = 0; i < im.plan().vertexObjects.size(); ++i) {
    const auto &obj = im.plan().vertexObjects[i];
    out.push_back({obj.vertexId, obj.type->name, obj.at.tile, im.memory->typeCycleEstimates()[i],
                   obj.perfEstimate});
  }
  return out;
}

} // namespace poplar
