// Compiler stage: programs → one flat step list with jumps (ARCHITECTURE.md decision 5).
#include <algorithm>
#include <set>

#include <poplar/exceptions.hpp>

#include "compiler/CopyListBuilder.hpp"
#include "compiler/ProgramFlattener.hpp"
#include "compiler/Validate.hpp"

namespace poplar::compiler {

namespace {

using core::ProgramNode;
using Kind = ProgramNode::Kind;

class Flattener {
public:
  Flattener(CompilerContext &ctx, const ProgramUse &use) : ctx_(ctx), out_(ctx.result), use_(use) {}

  void emitEntry(const program::Program &p) {
    out_.programStart.push_back(out_.steps.size());
    emit(*p.node());
    push({StepKind::End});
  }

  void emitFunctions(const std::vector<unsigned> &functions) {
    std::map<unsigned, std::size_t> start;
    for (unsigned f : functions) {
      start[f] = out_.steps.size();
      emit(*ctx_.graph.functions[f].node());
      push({StepKind::Return});
    }
    for (auto [step, f] : calls_)
      out_.steps[step].target = start.at(f);
  }

  /// Sub-programs used in several places are emitted once, as subroutines, so re-used
  /// Sequences cost their size once rather than once per use (which grows exponentially when
  /// they nest).
  void emitSharedBodies() {
    std::map<const ProgramNode *, std::size_t> start;
    while (!pendingShared_.empty()) {
      const ProgramNode *n = pendingShared_.back();
      pendingShared_.pop_back();
      start[n] = here();
      emitInline(*n);
      push({StepKind::Return});
    }
    for (auto [step, n] : sharedCalls_)
      out_.steps[step].target = start.at(n);
  }

private:
  std::size_t push(Step s) {
    out_.steps.push_back(s);
    return out_.steps.size() - 1;
  }
  std::size_t here() const { return out_.steps.size(); }

  unsigned scalar(const Tensor &t) {
    out_.scalars.push_back(ctx_.layout.image(t));
    return static_cast<unsigned>(out_.scalars.size() - 1);
  }

  unsigned stream(const ProgramNode &n, const Tensor &t, bool toDevice) {
    const auto &s = ctx_.graph.streams[n.stream.getId()];
    if (s.toDevice != toDevice)
      throw stream_connection_error(programName(n) + ": stream '" + s.handle + "' is a " +
                                    (s.toDevice ? "host-to-device" : "device-to-host") +
                                    " FIFO and cannot be copied " + (toDevice ? "from" : "to"));
    if (s.type != t.elementType())
      throw type_error(programName(n) + ": stream '" + s.handle + "' carries " + s.type.toString() +
                       " but " + core::describe(t) + " holds " + t.elementType().toString());
    if (s.numElements != t.numElements())
      throw shape_error(programName(n) + ": stream '" + s.handle + "' moves " +
                        std::to_string(s.numElements) + " elements per copy but " +
                        core::describe(t) + " has " + std::to_string(t.numElements()));
    out_.streamCopies.push_back({n.stream.getId(), ctx_.layout.image(t)});
    return static_cast<unsigned>(out_.streamCopies.size() - 1);
  }

  /// The 2 × UNSIGNED_INT tensor a cycleCount or cycleStamp writes (made by them).
  unsigned cycleTensor(const ProgramNode &n) {
    out_.cycleTensors.push_back(ctx_.layout.image(n.dst));
    return static_cast<unsigned>(out_.cycleTensors.size() - 1);
  }

  /// A tensor that holds a saved floating-point mode (its type is checked by the API).
  unsigned floatModeTensor(const Tensor &t) {
    out_.floatModeTensors.push_back(ctx_.layout.image(t));
    return static_cast<unsigned>(out_.floatModeTensors.size() - 1);
  }

  bool shared(const ProgramNode &n) const {
    switch (n.kind) {
    case Kind::Sequence:
      if (n.children.empty())
        return false;
      break;
    case Kind::Repeat:
    case Kind::RepeatWhile:
    case Kind::If:
    case Kind::Switch:
      break;
    default:
      return false; // single steps: inlining is as small as a call
    }
    auto it = use_.references.find(&n);
    return it != use_.references.end() && it->second > 1;
  }

  void emit(const ProgramNode &n) {
    if (!shared(n)) {
      emitInline(n);
      return;
    }
    if (!queuedShared_.count(&n)) {
      queuedShared_.insert(&n);
      pendingShared_.push_back(&n);
    }
    sharedCalls_.push_back({push({StepKind::Call}), &n});
  }

  void emitInline(const ProgramNode &n) {
    switch (n.kind) {
    case Kind::Sequence:
      for (const auto &c : n.children)
        emit(*c.node());
      return;
    case Kind::Execute:
      push({StepKind::Execute, ctx_.computeSetPlan.at(n.computeSet.getId())});
      return;
    case Kind::Copy: {
      TensorCopyPlan plan;
      plan.name = n.name;
      TensorImage src = ctx_.layout.image(n.src), dst = ctx_.layout.image(n.dst);
      plan.staged = n.src.intersectsWith(n.dst);
      CopyListBuilder b;
      b.addTensorCopy(src, dst);
      plan.copies = b.build();
      if (plan.staged) {
        plan.stagedSrc = std::move(src.pieces);
        plan.stagedDst = std::move(dst.pieces);
      }
      out_.copies.push_back(std::move(plan));
      push({StepKind::Copy, static_cast<unsigned>(out_.copies.size() - 1)});
      return;
    }
    case Kind::CrossReplica:
      out_.collectives.push_back({n.name, core::decodeCrossReplicaOp(n.count),
                                  ctx_.layout.image(n.src), ctx_.layout.image(n.dst)});
      push({StepKind::CrossReplica, static_cast<unsigned>(out_.collectives.size() - 1)});
      return;
    case Kind::StreamToDevice:
      push({StepKind::StreamIn, stream(n, n.dst, true)});
      return;
    case Kind::StreamFromDevice:
      push({StepKind::StreamOut, stream(n, n.src, false)});
      return;
    case Kind::RemoteToDevice:
    case Kind::RemoteFromDevice: {
      // Program::Copy checked the types and sizes against the buffer.
      const bool in = n.kind == Kind::RemoteToDevice;
      RemoteCopyPlan plan;
      plan.name = n.name;
      plan.buffer = n.remoteBuffer.getId();
      plan.tensor = ctx_.layout.image(in ? n.dst : n.src);
      plan.hasOffset = n.offset.valid();
      if (plan.hasOffset)
        plan.offset = ctx_.layout.image(n.offset);
      out_.remoteCopies.push_back(std::move(plan));
      push({in ? StepKind::RemoteIn : StepKind::RemoteOut,
            static_cast<unsigned>(out_.remoteCopies.size() - 1)});
      return;
    }
    case Kind::Repeat: {
      const unsigned slot = out_.numLoopSlots++;
      const std::size_t init = push({StepKind::LoopInit, slot, 0, n.count});
      const std::size_t body = here();
      emit(*n.children[0].node());
      push({StepKind::LoopNext, slot, body});
      out_.steps[init].target = here();
      return;
    }
    case Kind::RepeatWhile: {
      const std::size_t top = here();
      emit(*n.children[0].node());
      const std::size_t exit =
          push({n.whileTrue ? StepKind::JumpIfZero : StepKind::JumpIfNonZero, scalar(n.src)});
      emit(*n.children[1].node());
      push({StepKind::Jump, 0, top});
      out_.steps[exit].target = here();
      return;
    }
    case Kind::If: {
      const std::size_t toElse = push({StepKind::JumpIfZero, scalar(n.src)});
      emit(*n.children[0].node());
      const std::size_t toEnd = push({StepKind::Jump});
      out_.steps[toElse].target = here();
      emit(*n.children[1].node());
      out_.steps[toEnd].target = here();
      return;
    }
    case Kind::Switch: {
      SwitchPlan plan;
      plan.control = ctx_.layout.image(n.src);
      const unsigned index = static_cast<unsigned>(out_.switches.size());
      out_.switches.push_back(plan);
      push({StepKind::Switch, index});
      std::vector<std::size_t> toEnd;
      std::vector<std::pair<std::int64_t, std::size_t>> targets;
      for (std::size_t i = 0; i < n.caseValues.size(); ++i) {
        targets.push_back({n.caseValues[i], here()});
        emit(*n.children[i].node());
        toEnd.push_back(push({StepKind::Jump}));
      }
      out_.switches[index].defaultTarget = here();
      emit(*n.children.back().node());
      for (auto j : toEnd)
        out_.steps[j].target = here();
      std::sort(targets.begin(), targets.end());
      out_.switches[index].targets = std::move(targets);
      return;
    }
    case Kind::Call:
      calls_.push_back({push({StepKind::Call}), n.function.getId()});
      return;
    case Kind::Print:
      out_.prints.push_back({n.message, ctx_.layout.image(n.src)});
      if (n.dst.valid()) // a QUARTER tensor: its metadata byte, then its elements
        out_.prints.back().tensor.shape = n.dst.shape();
      push({StepKind::Print, static_cast<unsigned>(out_.prints.size() - 1)});
      return;
    case Kind::WriteUndef:
    case Kind::Sync:
      return;
    case Kind::CycleCount: {
      const unsigned index = cycleTensor(n);
      push({StepKind::CycleCounter, index, 0, kStartCount});
      emit(*n.children[0].node());
      push({StepKind::CycleCounter, index, 0, kWriteCount});
      return;
    }
    case Kind::CycleStamp:
      push({StepKind::CycleCounter, cycleTensor(n), 0, kWriteClock});
      return;
    case Kind::FloatMode:
      if (n.dst.valid())
        push({StepKind::SaveFloatMode, floatModeTensor(n.dst)});
      if (n.src.valid())
        push({StepKind::LoadFloatMode, floatModeTensor(n.src)});
      else
        push({StepKind::SetFloatMode, 0, 0, n.count});
      return;
    case Kind::Abort:
      out_.messages.push_back(n.message.empty() ? "Abort program executed" : n.message);
      push({StepKind::Abort, static_cast<unsigned>(out_.messages.size() - 1)});
      return;
    case Kind::AbortOnCondition:
      out_.messages.push_back(n.message.empty() ? "AbortOnCondition: the condition " +
                                                      core::describe(n.src) + " was true"
                                                : n.message);
      push({StepKind::AbortIf, scalar(n.src), 0, out_.messages.size() - 1});
      return;
    }
  }

  CompilerContext &ctx_;
  CompiledGraph &out_;
  const ProgramUse &use_;
  std::vector<std::pair<std::size_t, unsigned>> calls_;
  std::vector<const ProgramNode *> pendingShared_;
  std::set<const ProgramNode *> queuedShared_;
  std::vector<std::pair<std::size_t, const ProgramNode *>> sharedCalls_;
};

} // namespace

void flattenPrograms(CompilerContext &ctx, const std::vector<program::Program> &programs,
                     const ProgramUse &use) {
  Flattener f(ctx, use);
  for (const auto &p : programs)
    f.emitEntry(p);
  f.emitFunctions(use.functions);
  f.emitSharedBodies();
}

} // namespace poplar::compiler
