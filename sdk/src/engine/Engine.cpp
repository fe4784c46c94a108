// The run-time side of the Engine: tile memory, vertex objects and the step interpreter.
#include <poplar/Engine.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <sstream>

#include <poplar/exceptions.hpp>

#include "compiler/Compiler.hpp"
#include "core/ElementConversion.hpp"
#include "core/Suggest.hpp"
#include "engine/EngineOptions.hpp"
#include "engine/TensorFormatter.hpp"
#include "engine/ThreadPool.hpp"
#include "engine/TileByTileRuns.hpp"
#include "engine/TileFloatMode.hpp"
#include "executable/CompileExecutable.hpp"
#include "executable/ExecutableCache.hpp"
#include "executable/GraphFingerprint.hpp"
#include "profile/ProfileSession.hpp"

namespace poplar::detail {
void setVertexContext(unsigned numWorkers, bool runtimeVerify);
}

namespace poplar {

using compiler::CompiledGraph;
using compiler::CopyList;
using compiler::StepKind;
using compiler::TensorImage;
using compiler::TileAddress;

namespace {

struct AlignedFree {
  void operator()(unsigned char *p) const { std::free(p); }
};

/// How the host side of one stream is connected.
struct StreamBinding {
  enum class Kind { None, Fixed, Ring, Callback } kind = Kind::None;
  unsigned char *begin = nullptr;
  std::uint64_t size = 0;
  std::uint64_t position = 0;
  std::function<void(void *)> callback;
};

/// A vertex call as `run()` sees it: the object and the function, nothing to look up.
struct RuntimeCall {
  void *object;
  bool (*compute)(void *, unsigned);
  unsigned workers;
  unsigned objectIndex;
};

struct RuntimeComputeSet {
  std::vector<RuntimeCall> calls;
  std::vector<std::size_t> tileBegin; ///< Per TileWork, into calls; plus calls.size().
};

} // namespace

struct Engine::Impl {
  CompiledGraph plan;
  tessera::profile::TargetInfo target; ///< What the plan was compiled for.
  bool fromCache = false;              ///< Found in the executable cache, not compiled.
  engine::EngineOptions options;
  std::unique_ptr<engine::ThreadPool> pool;
  std::unique_ptr<profile::ProfileSession> profiler;

  std::unique_ptr<unsigned char, AlignedFree> memory;
  std::vector<unsigned char *> tileBase;
  bool loaded = false;
  std::vector<RuntimeComputeSet> computeSets;
  engine::TileByTileRuns tileByTile;
  /// Per vertex object, its type's cycleEstimate() evaluated at load.
  std::vector<std::optional<std::uint64_t>> typeCycleEstimates;
  std::vector<StreamBinding> streams;
  std::vector<std::uint64_t> loopCounters;
  std::vector<std::size_t> callStack;
  std::vector<unsigned char> staging;

  unsigned char *address(const TileAddress &a) const { return tileBase[a.tile] + a.offset; }

  /// Takes over a compiled graph (fresh, cached or deserialized).
  void start(Executable::Impl &&exe) {
    plan = std::move(exe.plan);
    target = exe.description.target;
    profiler = std::make_unique<profile::ProfileSession>(executable::profileOptionsOf(options));
    profiler->compiled(std::move(exe.description), plan);
    pool = std::make_unique<engine::ThreadPool>(options.hostThreads);
    tileByTile = engine::buildTileByTileRuns(plan);
    streams.resize(plan.streams.size());
  }

  void destroyObjects() {
    if (!loaded)
      return;
    for (const auto &obj : plan.vertexObjects)
      obj.type->destroy(address(obj.at));
    loaded = false;
  }

  void requireLoaded(const char *what) const {
    if (!loaded)
      throw tensor_io_state_error(std::string(what) +
                                  " needs the engine to be loaded first (call Engine::load)");
  }

  void copy(const compiler::CopyOp &op) const {
    unsigned char *dst = address(op.dst);
    const unsigned char *src = address(op.src);
    if (op.repeat == 1) {
      std::memmove(dst, src, op.bytes);
      return;
    }
    // Rows in order, each as its own copy would have been.
    for (std::uint64_t r = 0; r < op.repeat; ++r, dst += op.dstStride, src += op.srcStride)
      std::memmove(dst, src, op.bytes);
  }

  void runCopies(const CopyList &list) {
    if (list.empty())
      return;
    pool->parallelFor(list.numGroups(), [&](std::size_t g) {
      for (std::size_t i = list.groupBegin[g]; i < list.groupBegin[g + 1]; ++i) {
        copy(list.ops[i]);
      }
    });
  }

  void gather(const TensorImage &img, unsigned char *host) const {
    for (const auto &p : img.pieces)
      std::memcpy(host + p.hostOffset, address(p.at), p.bytes);
  }
  void scatter(const TensorImage &img, const unsigned char *host) const {
    for (const auto &p : img.pieces)
      std::memcpy(address(p.at), host + p.hostOffset, p.bytes);
  }

  bool scalarNonZero(unsigned index) {
    const TensorImage &img = plan.scalars[index];
    unsigned char buf[8] = {};
    gather(img, buf);
    return core::elementAsDouble(img.type, buf, 0) != 0.0;
  }

  /// Tile `t` of compute set `index` (its position in the set's tile list): its own exchange-in
  /// when the set does that tile by tile, then its vertices. Returns "" or what failed.
  std::string runTile(unsigned index, std::size_t t) const {
    const auto &cs = plan.computeSets[index];
    const auto &rt = computeSets[index];
    if (cs.exchangeInPerTile) {
      if (const std::size_t g = cs.tileExchangeInGroup[t]; g != cs.kNoGroup)
        for (std::size_t i = cs.hostExchangeIn.groupBegin[g];
             i < cs.hostExchangeIn.groupBegin[g + 1]; ++i)
          copy(cs.hostExchangeIn.ops[i]);
    }
    const RuntimeCall *end = rt.calls.data() + rt.tileBegin[t + 1];
    for (const RuntimeCall *call = rt.calls.data() + rt.tileBegin[t]; call != end; ++call) {
      unsigned worker = 0;
      bool ok = true;
      std::string problem;
      try {
        for (; worker < call->workers; ++worker)
          if (!call->compute(call->object, worker)) {
            ok = false;
            problem = "returned false";
            if (const auto *type = plan.vertexObjects[call->objectIndex].type.get();
                type->failureReason)
              problem += std::string(": ") + type->failureReason(call->object);
            break;
          }
      } catch (const std::exception &e) {
        ok = false;
        problem = std::string("threw: ") + e.what();
      } catch (...) {
        ok = false;
        problem = "threw a non-standard exception";
      }
      if (ok)
        continue;
      // Cold path.
      if (call->workers > 1)
        problem = "worker " + std::to_string(worker) + " " + problem;
      const auto &obj = plan.vertexObjects[call->objectIndex];
      return "vertex " + std::to_string(obj.vertexId) + " '" + obj.type->name +
             "' in compute set '" + plan.computeSets[obj.computeSetPlan].name + "' on tile " +
             std::to_string(cs.tiles[t].tile) + " " + problem;
    }
    return {};
  }

  void executeComputeSet(unsigned index) {
    const auto &cs = plan.computeSets[index];
    if (!cs.exchangeInPerTile)
      runCopies(cs.hostExchangeIn);
    // The first failure on the lowest-numbered tile is reported, whatever the thread count.
    std::mutex failMutex;
    std::size_t failTile = ~std::size_t(0);
    std::string failMessage;
    const unsigned workers = plan.numWorkerContexts;
    const bool verify = options.runtimeVerify;
    pool->parallelFor(cs.tiles.size(), [&](std::size_t t) {
      detail::setVertexContext(workers, verify);
      std::string problem = runTile(index, t);
      if (problem.empty())
        return;
      std::lock_guard lock(failMutex);
      if (t < failTile) {
        failTile = t;
        failMessage = std::move(problem);
      }
    });
    if (!failMessage.empty())
      throw application_runtime_error(failMessage);
    runCopies(cs.exchangeOut);
  }

  /// Steps pc … pc + count - 1 (Execute steps the compiler found may run tile by tile): each
  /// tile does its part of every one of them in turn, so its data stays in one core's cache.
  void executeTileByTile(std::size_t pc, std::size_t count) {
    const auto [runIndex, offset] = tileByTile.stepRun[pc];
    const engine::TileByTileRun &run = tileByTile.runs[runIndex];
    // Reported: the failure in the earliest compute set of the run, then the lowest tile.
    std::mutex failMutex;
    std::pair<std::size_t, unsigned> failAt{~std::size_t(0), ~0u};
    std::string failMessage;
    const unsigned workers = plan.numWorkerContexts;
    const bool verify = options.runtimeVerify;
    pool->parallelFor(run.tiles.size(), [&](std::size_t u) {
      detail::setVertexContext(workers, verify);
      for (std::size_t e = run.entryBegin[u]; e < run.entryBegin[u + 1]; ++e) {
        const auto &entry = run.entries[e];
        if (entry.position < offset || entry.position >= offset + count)
          continue;
        std::string problem = runTile(plan.steps[pc - offset + entry.position].index, entry.work);
        if (problem.empty())
          continue;
        std::lock_guard lock(failMutex);
        const std::pair<std::size_t, unsigned> at{entry.position, run.tiles[u]};
        if (at < failAt) {
          failAt = at;
          failMessage = std::move(problem);
        }
        return;
      }
    });
    if (!failMessage.empty())
      throw application_runtime_error(failMessage);
  }

  void runTensorCopy(unsigned index) {
    const auto &c = plan.copies[index];
    if (!c.staged) {
      runCopies(c.copies);
      return;
    }
    // Source and destination overlap: read everything first, then write.
    staging.resize(c.copies.totalBytes);
    for (const auto &p : c.stagedSrc)
      std::memcpy(staging.data() + p.hostOffset, address(p.at), p.bytes);
    for (const auto &p : c.stagedDst)
      std::memcpy(address(p.at), staging.data() + p.hostOffset, p.bytes);
  }

  StreamBinding &binding(unsigned stream) {
    StreamBinding &b = streams[stream];
    if (b.kind == StreamBinding::Kind::None)
      throw stream_connection_error("stream '" + plan.streams[stream].handle +
                                    "' is used by the program but not connected; call "
                                    "Engine::connectStream or connectStreamToCallback first");
    return b;
  }

  /// Where the next transfer of a fixed or circular buffer lives.
  unsigned char *nextTransfer(StreamBinding &b, std::uint64_t bytes) {
    if (b.kind == StreamBinding::Kind::Fixed)
      return b.begin;
    unsigned char *p = b.begin + b.position;
    b.position = b.size ? (b.position + bytes) % b.size : 0;
    return p;
  }

  void streamIn(unsigned index) {
    const auto &sc = plan.streamCopies[index];
    StreamBinding &b = binding(sc.stream);
    if (b.kind == StreamBinding::Kind::Callback) {
      staging.resize(sc.tensor.bytes);
      b.callback(staging.data());
      scatter(sc.tensor, staging.data());
    } else {
      scatter(sc.tensor, nextTransfer(b, sc.tensor.bytes));
    }
  }

  void streamOut(unsigned index) {
    const auto &sc = plan.streamCopies[index];
    StreamBinding &b = binding(sc.stream);
    if (b.kind == StreamBinding::Kind::Callback) {
      staging.resize(sc.tensor.bytes);
      gather(sc.tensor, staging.data());
      b.callback(staging.data());
    } else {
      gather(sc.tensor, nextTransfer(b, sc.tensor.bytes));
    }
  }

  std::size_t switchTarget(unsigned index) {
    const auto &s = plan.switches[index];
    unsigned char buf[8] = {};
    gather(s.control, buf);
    const auto value = static_cast<std::int64_t>(core::elementAsDouble(s.control.type, buf, 0));
    auto it =
        std::lower_bound(s.targets.begin(), s.targets.end(), std::make_pair(value, std::size_t(0)));
    return it != s.targets.end() && it->first == value ? it->second : s.defaultTarget;
  }

  void print(unsigned index) {
    const auto &p = plan.prints[index];
    std::vector<unsigned char> host(p.tensor.bytes);
    gather(p.tensor, host.data());
    std::cout << engine::formatTensor(p.title, p.tensor.type, p.tensor.shape, host.data())
              << std::endl;
  }

  void run(std::size_t pc) {
    loopCounters.assign(plan.numLoopSlots, 0);
    callStack.clear();
    profile::ExecutionRecorder *recorder = profiler->recorder();
    if (!recorder) {
      while (step(pc, true)) {
      }
      return;
    }
    // Profiling: every step is counted; host time is measured only when instrumenting.
    recorder->beginRun();
    const bool timed = recorder->measuresHostTime();
    for (;;) {
      const std::size_t at = pc;
      const auto kind = plan.steps[at].kind;
      const auto begin = timed ? profile::ExecutionRecorder::Clock::now()
                               : profile::ExecutionRecorder::Clock::time_point{};
      const bool more = step(pc, false);
      if (kind == StepKind::Execute || kind == StepKind::Copy || kind == StepKind::StreamIn ||
          kind == StepKind::StreamOut)
        recorder->record(at, begin, timed ? profile::ExecutionRecorder::Clock::now() : begin);
      if (!more)
        return;
    }
  }

  /// Executes the step at `pc` and moves `pc` on; false once the program has ended. With
  /// `joinRuns`, a run of Execute steps marked by the compiler runs as one (profiling runs
  /// step by step, so every compute set keeps its own record).
  bool step(std::size_t &pc, bool joinRuns) {
    {
      const auto &s = plan.steps[pc];
      switch (s.kind) {
      case StepKind::Execute:
        if (joinRuns && s.count > 1) {
          executeTileByTile(pc, s.count);
          pc += s.count;
        } else {
          executeComputeSet(s.index);
          ++pc;
        }
        break;
      case StepKind::Copy:
        runTensorCopy(s.index);
        ++pc;
        break;
      case StepKind::StreamIn:
        streamIn(s.index);
        ++pc;
        break;
      case StepKind::StreamOut:
        streamOut(s.index);
        ++pc;
        break;
      case StepKind::Jump:
        pc = s.target;
        break;
      case StepKind::JumpIfZero:
        pc = scalarNonZero(s.index) ? pc + 1 : s.target;
        break;
      case StepKind::JumpIfNonZero:
        pc = scalarNonZero(s.index) ? s.target : pc + 1;
        break;
      case StepKind::LoopInit:
        if (s.count == 0) {
          pc = s.target;
        } else {
          loopCounters[s.index] = s.count;
          ++pc;
        }
        break;
      case StepKind::LoopNext:
        pc = --loopCounters[s.index] > 0 ? s.target : pc + 1;
        break;
      case StepKind::Switch:
        pc = switchTarget(s.index);
        break;
      case StepKind::Call:
        callStack.push_back(pc + 1);
        pc = s.target;
        break;
      case StepKind::Return:
        pc = callStack.back();
        callStack.pop_back();
        break;
      case StepKind::Print:
        print(s.index);
        ++pc;
        break;
      case StepKind::Abort:
        throw application_runtime_error(plan.messages[s.index]);
      case StepKind::AbortIf:
        if (scalarNonZero(s.index))
          throw application_runtime_error(plan.messages[s.count]);
        ++pc;
        break;
      case StepKind::End:
        return false;
      }
    }
    return true;
  }

  unsigned streamIndex(StringRef handle) const {
    for (unsigned i = 0; i < plan.streams.size(); ++i)
      if (plan.streams[i].handle == handle.view())
        return i;
    std::vector<std::string> names;
    for (const auto &s : plan.streams)
      names.push_back(s.handle);
    throw stream_connection_error("no data stream with handle '" + handle.str() + "'" +
                                  core::didYouMean(handle.str(), names));
  }

  const TensorImage &hostTensor(bool write, StringRef handle) const {
    const auto &list = write ? plan.hostWrites : plan.hostReads;
    const auto &other = write ? plan.hostReads : plan.hostWrites;
    const char *what = write ? "writeTensor" : "readTensor";
    for (const auto &[h, img] : list)
      if (h == handle.view())
        return img;
    for (const auto &[h, img] : other)
      if (h == handle.view())
        throw stream_connection_error(
            std::string(what) + ": '" + handle.str() + "' was registered with " +
            (write ? "createHostRead" : "createHostWrite") + " only; register it with " +
            (write ? "createHostWrite" : "createHostRead") + " too to " +
            (write ? "write" : "read") + " it");
    std::vector<std::string> names;
    for (const auto &[h, img] : list)
      names.push_back(h);
    throw stream_connection_error(std::string(what) + ": no tensor has handle '" + handle.str() +
                                  "'" + core::didYouMean(handle.str(), names) +
                                  " (register it with " +
                                  (write ? "createHostWrite" : "createHostRead") + ")");
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
    impl_->start(std::move(*executable::compile(graph, list, o, std::move(progress))));
    return;
  }
  const executable::CacheSettings cache{true, o.executableCacheDirectory,
                                        o.executableCacheMaxBytes};
  // Everything that changes the plan is in the key; options that only change how it runs or
  // what it reports are not (they are read again from `options` below).
  const std::string key = executable::graphFingerprint(
      graph.data(), list, o.allowOutOfMemory ? "allowOutOfMemory" : "");
  if (auto cached = executable::lookUp(cache, key)) {
    impl_->fromCache = true;
    if (progress)
      progress(1, 1);
    impl_->start(std::move(*cached));
    return;
  }
  auto exe = executable::compile(graph, list, o, std::move(progress));
  executable::store(cache, key, *exe);
  impl_->start(std::move(*exe));
}

Engine::Engine(Executable &&exe, const OptionFlags &options) : impl_(std::make_unique<Impl>()) {
  impl_->options = engine::parseEngineOptions(options);
  impl_->start(std::move(exe.impl()));
}

Engine::Engine(Engine &&) noexcept = default;
Engine &Engine::operator=(Engine &&o) noexcept {
  if (this != &o) {
    if (impl_)
      impl_->destroyObjects();
    impl_ = std::move(o.impl_);
  }
  return *this;
}
Engine::~Engine() {
  if (impl_)
    impl_->destroyObjects();
}

void Engine::load(const Device &device) {
  auto &im = *impl_;
  const auto &plan = im.plan;
  const Target &t = device.getTarget();
  if (t.getNumTiles() != plan.numTiles || t.getNumWorkerContexts() != plan.numWorkerContexts ||
      t.getBytesPerTile() != plan.bytesPerTile)
    throw runtime_error("Engine::load: the graph was compiled for target " +
                        executable::describeTarget(im.target) + " but the device is " +
                        executable::describeTarget(
                            {t.getTargetArchString(), t.getNumIPUs(), t.getTilesPerIPU(),
                             t.getNumTiles(), t.getNumWorkerContexts(), t.getBytesPerTile()}));
  im.destroyObjects();
  std::uint64_t total = 0;
  for (auto b : plan.tileBytes)
    total += b;
  im.memory.reset(
      static_cast<unsigned char *>(std::aligned_alloc(64, std::max<std::uint64_t>(total, 64))));
  if (!im.memory)
    throw runtime_error("Engine::load: cannot allocate " + std::to_string(total) +
                        " bytes of tile memory on the host");
  std::memset(im.memory.get(), 0, total);
  im.tileBase.resize(plan.numTiles);
  std::uint64_t at = 0;
  for (unsigned t = 0; t < plan.numTiles; ++t) {
    im.tileBase[t] = im.memory.get() + at;
    at += plan.tileBytes[t];
  }
  for (const auto &d : plan.initialData)
    std::memcpy(im.address(d.at), d.bytes.data(), d.bytes.size());
  for (const auto &obj : plan.vertexObjects) {
    unsigned char *base = im.address(obj.at);
    obj.type->construct(base);
    for (const auto &v : obj.values)
      std::memcpy(base + v.offset, v.bytes.data(), v.bytes.size());
    for (const auto &p : obj.pointers) {
      void *target = p.null ? nullptr : im.address(p.target);
      unsigned char *slot = im.address(p.slot);
      std::memcpy(slot, &target, sizeof(void *));
      if (p.hasSize) {
        const std::size_t n = p.size;
        std::memcpy(slot + sizeof(void *), &n, sizeof(n));
      }
    }
  }
  im.typeCycleEstimates.clear();
  for (const auto &obj : plan.vertexObjects)
    im.typeCycleEstimates.push_back(obj.type->cycleEstimate
                                        ? std::optional(obj.type->cycleEstimate(im.address(obj.at)))
                                        : std::nullopt);
  im.profiler->loaded(plan, im.typeCycleEstimates);
  im.computeSets.clear();
  for (const auto &cs : plan.computeSets) {
    RuntimeComputeSet rt;
    for (const auto &tile : cs.tiles) {
      rt.tileBegin.push_back(rt.calls.size());
      for (const auto &c : tile.calls) {
        const auto &obj = plan.vertexObjects[c.objectIndex];
        rt.calls.push_back({im.address(obj.at), obj.type->compute, c.workers, c.objectIndex});
      }
    }
    rt.tileBegin.push_back(rt.calls.size());
    im.computeSets.push_back(std::move(rt));
  }
  im.loaded = true;
}

void Engine::run(unsigned prog, const std::string &) {
  auto &im = *impl_;
  if (!im.loaded)
    throw runtime_error("Engine::run: the engine is not loaded (call Engine::load(device))");
  if (prog >= im.plan.programStart.size())
    throw index_error("Engine::run: program " + std::to_string(prog) +
                      " does not exist; the engine was built with " +
                      std::to_string(im.plan.programStart.size()) + " program(s)");
  const engine::ScopedTileFloatMode tileMode; // this thread runs tiles too
  im.run(im.plan.programStart[prog]);
  im.profiler->runFinished();
}

void Engine::writeTensor(StringRef handle, const void *buf, const void *bufEnd) {
  auto &im = *impl_;
  const auto &img = im.hostTensor(true, handle);
  im.requireLoaded("writeTensor");
  const auto have =
      static_cast<const unsigned char *>(bufEnd) - static_cast<const unsigned char *>(buf);
  if ((!buf && img.bytes) || have < 0 || static_cast<std::uint64_t>(have) < img.bytes)
    throw stream_connection_error("writeTensor '" + handle.str() + "': the host buffer holds " +
                                  std::to_string(std::max<std::ptrdiff_t>(have, 0)) +
                                  " bytes but the tensor needs " + std::to_string(img.bytes));
  im.scatter(img, static_cast<const unsigned char *>(buf));
}

void Engine::readTensor(StringRef handle, void *buf, void *bufEnd) {
  auto &im = *impl_;
  const auto &img = im.hostTensor(false, handle);
  im.requireLoaded("readTensor");
  const auto have = static_cast<unsigned char *>(bufEnd) - static_cast<unsigned char *>(buf);
  if ((!buf && img.bytes) || have < 0 || static_cast<std::uint64_t>(have) < img.bytes)
    throw stream_connection_error("readTensor '" + handle.str() + "': the host buffer holds " +
                                  std::to_string(std::max<std::ptrdiff_t>(have, 0)) +
                                  " bytes but the tensor needs " + std::to_string(img.bytes));
  im.gather(img, static_cast<unsigned char *>(buf));
}

void Engine::connectStream(StringRef handle, void *p) {
  auto &im = *impl_;
  const unsigned i = im.streamIndex(handle);
  if (!p && im.plan.streams[i].bytesPerTransfer)
    throw stream_connection_error("connectStream '" + handle.str() + "': null host buffer");
  im.streams[i] = {StreamBinding::Kind::Fixed, static_cast<unsigned char *>(p), 0, 0, {}};
}

void Engine::connectStream(StringRef handle, void *begin, void *end) {
  auto &im = *impl_;
  const unsigned i = im.streamIndex(handle);
  const std::uint64_t transfer = im.plan.streams[i].bytesPerTransfer;
  const auto size = static_cast<unsigned char *>(end) - static_cast<unsigned char *>(begin);
  if (!begin || size < 0 || (transfer && (size == 0 || size % transfer != 0)) ||
      (!transfer && size != 0))
    throw stream_connection_error("connectStream '" + handle.str() + "': the buffer holds " +
                                  std::to_string(std::max<std::ptrdiff_t>(size, 0)) +
                                  " bytes, which is not a whole number of " +
                                  std::to_string(transfer) + "-byte transfers");
  im.streams[i] = {StreamBinding::Kind::Ring,
                   static_cast<unsigned char *>(begin),
                   static_cast<std::uint64_t>(size),
                   0,
                   {}};
}

void Engine::connectStreamToCallback(StringRef handle, std::function<void(void *)> callback) {
  auto &im = *impl_;
  const unsigned i = im.streamIndex(handle);
  if (!callback)
    throw stream_connection_error("connectStreamToCallback '" + handle.str() + "': empty callback");
  im.streams[i] = {StreamBinding::Kind::Callback, nullptr, 0, 0, std::move(callback)};
}

bool Engine::loadedFromExecutableCache() const { return impl_->fromCache; }

unsigned Engine::getNumHostThreads() const { return impl_->pool->numThreads(); }

std::uint64_t Engine::getTileMemoryUsed(unsigned tile) const {
  if (tile >= impl_->plan.numTiles)
    throw index_error("getTileMemoryUsed: tile " + std::to_string(tile) + " is out of range (" +
                      std::to_string(impl_->plan.numTiles) + " tiles)");
  return impl_->plan.memory[tile].total();
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
  im.requireLoaded("getVertexCycleEstimates");
  std::vector<VertexCycleEstimate> out;
  for (std::size_t i = 0; i < im.plan.vertexObjects.size(); ++i) {
    const auto &obj = im.plan.vertexObjects[i];
    out.push_back(
        {obj.vertexId, obj.type->name, obj.at.tile, im.typeCycleEstimates[i], obj.perfEstimate});
  }
  return out;
}

} // namespace poplar
