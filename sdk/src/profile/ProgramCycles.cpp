// Walks the flat step list the way ProgramFlattener lays programs out:
//   Repeat:      LoopInit(count, target = after) body… LoopNext
//   RepeatWhile: condition… JumpIf(target = after) body… Jump(back to the condition)
//   If:          JumpIfZero(target = else) then… Jump(target = end) else…
//   Switch:      Switch case… Jump(end) case… Jump(end) default…
// so every construct is recognised at its first step and priced from its ranges.
#include "profile/ProgramCycles.hpp"

#include <algorithm>
#include <map>

namespace poplar::profile {
namespace {

using compiler::Step;
using compiler::StepKind;

class Walker {
public:
  Walker(const compiler::CompiledGraph &plan, const std::vector<std::uint64_t> &stepCycles)
      : steps_(plan.steps), switches_(plan.switches), cycles_(stepCycles) {}

  /// Cycles from step `from` up to (not including) `end`, or to the first Return or End.
  std::uint64_t range(std::size_t from, std::size_t end) {
    std::uint64_t total = 0;
    std::size_t i = from;
    while (i < end && i < steps_.size()) {
      const Step &s = steps_[i];
      switch (s.kind) {
      case StepKind::Execute:
      case StepKind::Copy:
      case StepKind::StreamIn:
      case StepKind::StreamOut:
      case StepKind::RemoteIn:
      case StepKind::RemoteOut:
      case StepKind::CrossReplica:
        total += i < cycles_.size() ? cycles_[i] : 0;
        ++i;
        break;
      case StepKind::LoopInit: // body is [i + 1, LoopNext)
        total += s.count * range(i + 1, s.target - 1);
        i = s.target;
        break;
      case StepKind::JumpIfZero:
      case StepKind::JumpIfNonZero: {
        const Step &last = steps_.at(s.target - 1);            // the Jump closing the first branch
        if (last.kind == StepKind::Jump && last.target <= i) { // RepeatWhile: one pass
          total += range(i + 1, s.target - 1);
          i = s.target;
        } else if (last.kind == StepKind::Jump) { // If: the dearer branch
          total += std::max(range(i + 1, s.target - 1), range(s.target, last.target));
          i = last.target;
        } else {
          ++i; // not a construct the flattener makes: count the fall-through path
        }
        break;
      }
      case StepKind::Switch: {
        const compiler::SwitchPlan &sw = switches_.at(s.index);
        std::vector<std::size_t> starts;
        for (const auto &[value, at] : sw.targets)
          starts.push_back(at);
        std::sort(starts.begin(), starts.end());
        starts.push_back(sw.defaultTarget);
        // Each case ends with a Jump to the end of the switch; the default runs up to it.
        // (With no cases the default runs to the end of the enclosing range.)
        const std::size_t after = starts.size() > 1 ? steps_.at(starts[1] - 1).target : end;
        std::uint64_t dearest = 0;
        for (std::size_t k = 0; k + 1 < starts.size(); ++k)
          dearest = std::max(dearest, range(starts[k], starts[k + 1] - 1));
        dearest = std::max(dearest, range(sw.defaultTarget, after));
        total += dearest;
        i = after;
        break;
      }
      case StepKind::Jump:
        i = s.target > i ? s.target : i + 1;
        break;
      case StepKind::Call:
        total += function(s.target);
        ++i;
        break;
      case StepKind::Return:
      case StepKind::End:
        return total;
      default: // LoopNext (reached only past a loop's body), Print, Abort, AbortIf
        ++i;
        break;
      }
    }
    return total;
  }

private:
  std::uint64_t function(std::size_t start) {
    if (auto it = functions_.find(start); it != functions_.end())
      return it->second;
    const std::uint64_t cycles = range(start, steps_.size());
    functions_.emplace(start, cycles);
    return cycles;
  }

  const std::vector<Step> &steps_;
  const std::vector<compiler::SwitchPlan> &switches_;
  const std::vector<std::uint64_t> &cycles_;
  std::map<std::size_t, std::uint64_t> functions_;
};

} // namespace

std::uint64_t staticProgramCycles(const compiler::CompiledGraph &plan,
                                  const std::vector<std::uint64_t> &stepCycles,
                                  std::size_t program) {
  Walker walker(plan, stepCycles);
  return walker.range(plan.programStart.at(program), plan.steps.size());
}

} // namespace poplar::profile
