#include "engine/StepInterpreter.hpp"

#include <tessera/QuarterCodec.hpp>

#include <algorithm>
#include <cfenv>
#include <cstring>
#include <iostream>
#include <mutex>
#include <utility>

#include <poplar/exceptions.hpp>

#include "codelet/VertexPrint.hpp"
#include "core/ElementConversion.hpp"
#include "core/FloatModeBits.hpp"
#include "engine/TensorFormatter.hpp"

namespace poplar::detail {
void setVertexContext(unsigned numWorkers, bool runtimeVerify);
}

namespace poplar::engine {

using compiler::StepKind;

StepInterpreter::StepInterpreter(const compiler::CompiledGraph &plan, TileMemory &memory,
                                 HostIo &hostIo, ThreadPool &pool, bool runtimeVerify)
    : plan_(plan), memory_(memory), hostIo_(hostIo), pool_(pool), runtimeVerify_(runtimeVerify),
      printStream_(&std::cout) {
  resetRegisters();
}

void StepInterpreter::resetRegisters() {
  clock_ = 0;
  countStart_.assign(plan_.cycleTensors.size(), 0);
  setFloatMode(0);
}

namespace {
/// The name of the first exception of `raised` (FE_* flags), as the message reports it.
std::string exceptionName(int raised) {
  if (raised & FE_INVALID)
    return "invalid operation (inv is on)";
  if (raised & FE_DIVBYZERO)
    return "division by zero (div0 is on)";
  return "overflow (oflo is on)";
}
} // namespace

void StepInterpreter::setFloatMode(std::uint32_t mode) {
  floatMode_ = mode & core::kFloatAll;
  trappedExceptions_ = ((floatMode_ & core::kFloatInv) ? FE_INVALID : 0) |
                       ((floatMode_ & core::kFloatDiv0) ? FE_DIVBYZERO : 0) |
                       ((floatMode_ & core::kFloatOflo) ? FE_OVERFLOW : 0);
}

void StepInterpreter::saveFloatMode(unsigned index) {
  const compiler::TensorImage &img = plan_.floatModeTensors[index];
  const std::vector<std::uint32_t> words(img.bytes / sizeof(std::uint32_t), floatMode_);
  memory_.scatter(img, reinterpret_cast<const unsigned char *>(words.data()));
}

void StepInterpreter::loadFloatMode(unsigned index) {
  const compiler::TensorImage &img = plan_.floatModeTensors[index];
  std::vector<std::uint32_t> words((img.bytes + 3) / sizeof(std::uint32_t));
  memory_.gather(img, reinterpret_cast<unsigned char *>(words.data()));
  setFloatMode(words.empty() ? 0 : words[0]);
}

void StepInterpreter::cycleCounter(const compiler::Step &s) {
  std::uint64_t value = clock_;
  switch (s.count) {
  case compiler::kStartCount:
    countStart_[s.index] = clock_;
    return;
  case compiler::kWriteCount:
    value = clock_ - countStart_[s.index];
    break;
  default:
    break;
  }
  const std::uint32_t words[2] = {static_cast<std::uint32_t>(value),
                                  static_cast<std::uint32_t>(value >> 32)};
  memory_.scatter(plan_.cycleTensors[s.index], reinterpret_cast<const unsigned char *>(words));
}

void StepInterpreter::runCopies(const compiler::CopyList &list) {
  if (list.empty())
    return;
  pool_.parallelFor(list.numGroups(), [&](std::size_t g) {
    for (std::size_t i = list.groupBegin[g]; i < list.groupBegin[g + 1]; ++i) {
      memory_.copy(list.ops[i]);
    }
  });
}

bool StepInterpreter::scalarNonZero(unsigned index) const {
  const compiler::TensorImage &img = plan_.scalars[index];
  unsigned char buf[8] = {};
  memory_.gather(img, buf);
  return core::elementAsDouble(img.type, buf, 0) != 0.0;
}

/// Tile `t` of compute set `index` (its position in the set's tile list): its own exchange-in
/// when the set does that tile by tile, then its vertices. Returns "" or what failed.
std::string StepInterpreter::runTile(unsigned index, std::size_t t) const {
  const auto &cs = plan_.computeSets[index];
  const auto &rt = memory_.computeSets()[index];
  if (cs.exchangeInPerTile) {
    if (const std::size_t g = cs.tileExchangeInGroup[t]; g != cs.kNoGroup) {
      for (std::size_t i = cs.exchangeIn.groupBegin[g]; i < cs.exchangeIn.groupBegin[g + 1]; ++i)
        if (cs.hostCopies(i))
          memory_.copy(cs.exchangeIn.ops[i]);
      if (const auto &partial = cs.hostPartialCopies; !partial.empty())
        for (std::size_t i = partial.groupBegin[g]; i < partial.groupBegin[g + 1]; ++i)
          memory_.copy(partial.ops[i]);
    }
  }
  const RuntimeCall *end = rt.calls.data() + rt.tileBegin[t + 1];
  const int traps = trappedExceptions_;
  for (const RuntimeCall *call = rt.calls.data() + rt.tileBegin[t]; call != end; ++call) {
    unsigned worker = 0;
    bool ok = true;
    std::string problem;
    if (traps) // flags are per thread: whatever is raised from here on is this vertex's
      std::feclearexcept(FE_ALL_EXCEPT);
    try {
      for (; worker < call->workers; ++worker)
        if (!call->compute(call->object, worker)) {
          ok = false;
          problem = "returned false";
          if (const auto *type = &plan_.typeOf(plan_.vertexObjects[call->objectIndex]);
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
    if (ok && traps)
      if (const int raised = std::fetestexcept(traps)) {
        ok = false;
        worker = call->workers; // all of them ran: not one worker's failure
        problem = "raised a floating-point exception: " + exceptionName(raised) +
                  " (setFloatingPointBehaviour)";
      }
    if (ok)
      continue;
    // Cold path.
    if (call->workers > 1 && worker < call->workers)
      problem = "worker " + std::to_string(worker) + " " + problem;
    const auto &obj = plan_.vertexObjects[call->objectIndex];
    return "vertex " + std::to_string(obj.vertexId) + " '" + plan_.typeOf(obj).name +
           "' in compute set '" + plan_.computeSets[obj.computeSetPlan].name + "' on tile " +
           std::to_string(cs.tiles[t].tile) + " " + problem;
  }
  return {};
}

void StepInterpreter::executeComputeSet(unsigned index) {
  const auto &cs = plan_.computeSets[index];
  if (!cs.exchangeInPerTile) // else each tile makes its own (runTile)
    runCopies(cs.exchangeIn);
  // The first failure on the lowest-numbered tile is reported, whatever the thread count.
  std::mutex failMutex;
  std::size_t failTile = ~std::size_t(0);
  std::string failMessage;
  const unsigned workers = plan_.numWorkerContexts;
  const bool verify = runtimeVerify_;
  if (printBuffers_.size() < cs.tiles.size())
    printBuffers_.resize(cs.tiles.size());
  pool_.parallelFor(cs.tiles.size(), [&](std::size_t t) {
    detail::setVertexContext(workers, verify);
    std::string problem;
    {
      codelet::ScopedVertexPrintBuffer prints(printBuffers_[t]);
      problem = runTile(index, t);
    }
    if (problem.empty())
      return;
    std::lock_guard lock(failMutex);
    if (t < failTile) {
      failTile = t;
      failMessage = std::move(problem);
    }
  });
  // What the vertices printed, by tile, before any failure is reported (as a device would have
  // printed it before stopping).
  flushVertexPrints(cs.tiles.size());
  if (!failMessage.empty())
    throw application_runtime_error(failMessage);
  runCopies(cs.exchangeOut);
}

/// Steps pc … pc + count - 1 (Execute steps the compiler found may run tile by tile): each
/// tile does its part of every one of them in turn, so its data stays in one core's cache. The
/// compiler only joins compute sets with the same tile list (planTileByTileRuns), so a tile's
/// work has the same index in each of them.
void StepInterpreter::executeTileByTile(std::size_t pc, std::size_t count) {
  const auto &tiles = plan_.computeSets[plan_.steps[pc].index].tiles;
  // Reported: the failure in the earliest compute set of the run, then the lowest tile.
  std::mutex failMutex;
  std::pair<std::size_t, unsigned> failAt{~std::size_t(0), ~0u};
  std::string failMessage;
  const unsigned workers = plan_.numWorkerContexts;
  const bool verify = runtimeVerify_;
  // Print buffers by compute set, then tile: flushed in that order, the output is the same as
  // running the compute sets one after another.
  if (printBuffers_.size() < count * tiles.size())
    printBuffers_.resize(count * tiles.size());
  pool_.parallelFor(tiles.size(), [&](std::size_t u) {
    detail::setVertexContext(workers, verify);
    for (std::size_t p = 0; p < count; ++p) {
      std::string problem;
      {
        codelet::ScopedVertexPrintBuffer prints(printBuffers_[p * tiles.size() + u]);
        problem = runTile(plan_.steps[pc + p].index, u);
      }
      if (problem.empty())
        continue;
      std::lock_guard lock(failMutex);
      const std::pair<std::size_t, unsigned> at{p, tiles[u].tile};
      if (at < failAt) {
        failAt = at;
        failMessage = std::move(problem);
      }
      return;
    }
  });
  flushVertexPrints(count * tiles.size());
  if (!failMessage.empty())
    throw application_runtime_error(failMessage);
}

void StepInterpreter::flushVertexPrints(std::size_t count) {
  bool wrote = false;
  for (std::size_t i = 0; i < count; ++i) {
    std::string &text = printBuffers_[i];
    if (text.empty())
      continue;
    printStream_->write(text.data(), static_cast<std::streamsize>(text.size()));
    text.clear();
    wrote = true;
  }
  if (wrote)
    printStream_->flush();
}

void StepInterpreter::runTensorCopy(unsigned index) {
  const auto &c = plan_.copies[index];
  if (!c.staged) {
    runCopies(c.copies);
    return;
  }
  // Source and destination overlap: read everything first, then write.
  staging_.resize(c.copies.totalBytes);
  for (const auto &p : c.stagedSrc)
    std::memcpy(staging_.data() + p.hostOffset, memory_.address(p.at), p.bytes);
  for (const auto &p : c.stagedDst)
    std::memcpy(memory_.address(p.at), staging_.data() + p.hostOffset, p.bytes);
}

std::size_t StepInterpreter::switchTarget(unsigned index) const {
  const auto &s = plan_.switches[index];
  unsigned char buf[8] = {};
  memory_.gather(s.control, buf);
  const auto value = static_cast<std::int64_t>(core::elementAsDouble(s.control.type, buf, 0));
  auto it =
      std::lower_bound(s.targets.begin(), s.targets.end(), std::make_pair(value, std::size_t(0)));
  return it != s.targets.end() && it->first == value ? it->second : s.defaultTarget;
}

void StepInterpreter::print(unsigned index) const {
  const auto &p = plan_.prints[index];
  std::vector<unsigned char> host(p.tensor.bytes);
  memory_.gather(p.tensor, host.data());
  if (p.tensor.type.requiresMetadata() && !host.empty()) {
    // The flattener put the metadata byte first (PrintTensor): print the values as floats.
    std::vector<float> values(host.size() - 1);
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = tessera::quarter::decode(host[i + 1], host[0]);
    *printStream_ << formatTensor(p.title, FLOAT, p.tensor.shape,
                                  reinterpret_cast<const unsigned char *>(values.data()))
                  << std::endl;
    return;
  }
  *printStream_ << formatTensor(p.title, p.tensor.type, p.tensor.shape, host.data()) << std::endl;
}

std::optional<std::size_t> StepInterpreter::run(std::size_t pc,
                                                profile::ExecutionRecorder *recorder) {
  loopCounters_.assign(plan_.numLoopSlots, 0);
  callStack_.clear();
  return resume(pc, recorder);
}

std::optional<std::size_t> StepInterpreter::resume(std::size_t pc,
                                                   profile::ExecutionRecorder *recorder) {
  const auto stoppedAt = [&]() -> std::optional<std::size_t> {
    if (plan_.steps[pc].kind == StepKind::CrossReplica)
      return pc;
    return std::nullopt;
  };
  if (!recorder) {
    while (step(pc, true)) {
    }
    return stoppedAt();
  }
  // Profiling: every step is counted; host time is measured only when instrumenting. The
  // caller has told the recorder which program this run is (beginRun).
  const bool timed = recorder->measuresHostTime();
  for (;;) {
    const std::size_t at = pc;
    const auto kind = plan_.steps[at].kind;
    const auto begin = timed ? profile::ExecutionRecorder::Clock::now()
                             : profile::ExecutionRecorder::Clock::time_point{};
    const bool more = step(pc, false);
    if (kind == StepKind::Execute || kind == StepKind::Copy || kind == StepKind::StreamIn ||
        kind == StepKind::StreamOut || kind == StepKind::RemoteIn || kind == StepKind::RemoteOut)
      recorder->record(at, begin, timed ? profile::ExecutionRecorder::Clock::now() : begin);
    if (!more)
      return stoppedAt();
  }
}

/// Executes the step at `pc` and moves `pc` on; false once the program has ended. With
/// `joinRuns`, a run of Execute steps marked by the compiler runs as one (profiling runs
/// step by step, so every compute set keeps its own record).
bool StepInterpreter::step(std::size_t &pc, bool joinRuns) {
  const auto &s = plan_.steps[pc];
  if (!stepCycles_.empty())
    clock_ += stepCycles_[pc];
  switch (s.kind) {
  case StepKind::Execute:
    if (joinRuns && s.count > 1) {
      for (std::size_t p = 1; p < s.count && !stepCycles_.empty(); ++p)
        clock_ += stepCycles_[pc + p];
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
    hostIo_.streamIn(s.index);
    ++pc;
    break;
  case StepKind::StreamOut:
    hostIo_.streamOut(s.index);
    ++pc;
    break;
  case StepKind::RemoteIn:
    hostIo_.remoteIn(s.index);
    ++pc;
    break;
  case StepKind::RemoteOut:
    hostIo_.remoteOut(s.index);
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
      loopCounters_[s.index] = s.count;
      ++pc;
    }
    break;
  case StepKind::LoopNext:
    pc = --loopCounters_[s.index] > 0 ? s.target : pc + 1;
    break;
  case StepKind::Switch:
    pc = switchTarget(s.index);
    break;
  case StepKind::Call:
    callStack_.push_back(pc + 1);
    pc = s.target;
    break;
  case StepKind::Return:
    pc = callStack_.back();
    callStack_.pop_back();
    break;
  case StepKind::Print:
    print(s.index);
    ++pc;
    break;
  case StepKind::Abort:
    throw application_runtime_error(plan_.messages[s.index]);
  case StepKind::AbortIf:
    if (scalarNonZero(s.index))
      throw application_runtime_error(plan_.messages[s.count]);
    ++pc;
    break;
  case StepKind::CycleCounter:
    cycleCounter(s);
    ++pc;
    break;
  case StepKind::SetFloatMode:
    setFloatMode((floatMode_ & ~std::uint32_t(s.count & 0xff)) | std::uint32_t(s.count >> 8));
    ++pc;
    break;
  case StepKind::SaveFloatMode:
    saveFloatMode(s.index);
    ++pc;
    break;
  case StepKind::LoadFloatMode:
    loadFloatMode(s.index);
    ++pc;
    break;
  case StepKind::CrossReplica:
  case StepKind::End:
    return false;
  }
  return true;
}

} // namespace poplar::engine
