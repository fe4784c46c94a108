// Liveness: a walk of each program in the order its steps run.
//
// Every step (a compute set, a copy, a stream copy, a condition read) has a number, given at
// its first visit; a sub-program or function used in several places keeps its numbers at each
// use. Walking program P lists the numbers of its steps in run order (the "run"). A variable's
// value matters from the first step of P that touches it to the last one — widened to a whole
// loop when it is touched both inside and outside that loop, since the loop runs its steps
// again — and the span it records is [min, max] of the numbers in that part of the run. If two
// variables are ever needed at the same moment of some run, that step's number lies in both
// spans; so spans that never meet mean the variables are never needed together, however the
// numbering interleaves programs and shared parts.
//
// A read of an element that this run has not written yet (in the walk: not written before on
// every path — a write inside an If branch or a RepeatWhile body does not count after it) sees
// a value from before: the variable is persistent. So are variables with initial values or host
// handles, and variables no program touches.
#include "compiler/Liveness.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "core/ProgramNode.hpp"
#include "core/TensorData.hpp"

namespace poplar::compiler {

bool Lifetimes::meet(unsigned a, unsigned b) const {
  if (persistent[a] || persistent[b])
    return true;
  const auto &x = spans[a], &y = spans[b];
  std::size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    if (x[i].second < y[j].first)
      ++i;
    else if (y[j].second < x[i].first)
      ++j;
    else
      return true;
  }
  return false;
}

namespace {

using core::ProgramNode;
using Kind = ProgramNode::Kind;
using Interval = std::pair<std::size_t, std::size_t>; // [begin, end) elements

/// Longest run walked (all programs together) before giving up on sharing.
constexpr std::size_t kMaxRunSteps = 20'000'000;

struct Access {
  core::Region region;
  bool read;
  bool write;
};

struct RunTooLong {};

/// Min and max over a fixed array, for ranges [lo, hi].
class RangeMinMax {
public:
  explicit RangeMinMax(const std::vector<std::uint64_t> &v)
      : n_(v.size()), lo_(2 * n_), hi_(2 * n_) {
    for (std::size_t i = 0; i < n_; ++i)
      lo_[n_ + i] = hi_[n_ + i] = v[i];
    for (std::size_t i = n_; i-- > 1;) {
      lo_[i] = std::min(lo_[2 * i], lo_[2 * i + 1]);
      hi_[i] = std::max(hi_[2 * i], hi_[2 * i + 1]);
    }
  }
  StepSpan query(std::size_t l, std::size_t r) const {
    std::uint64_t mn = std::numeric_limits<std::uint64_t>::max(), mx = 0;
    for (l += n_, r += n_ + 1; l < r; l /= 2, r /= 2) {
      if (l & 1) {
        mn = std::min(mn, lo_[l]);
        mx = std::max(mx, hi_[l++]);
      }
      if (r & 1) {
        mn = std::min(mn, lo_[--r]);
        mx = std::max(mx, hi_[r]);
      }
    }
    return {mn, mx};
  }

private:
  std::size_t n_;
  std::vector<std::uint64_t> lo_, hi_;
};

void addRegions(std::vector<Access> &out, const Tensor &t, bool read, bool write) {
  if (!t.valid())
    return;
  // Definedness is tracked over contiguous element ranges: strided runs are expanded.
  core::forEachUnitRun(t.data().regions, [&](unsigned var, std::size_t b, std::size_t e) {
    out.push_back({core::Region::contiguous(var, b, e), read, write});
  });
}

class Walker {
public:
  explicit Walker(const core::GraphData &g)
      : g_(g), persistent_(g.variables.size(), false), spans_(g.variables.size()),
        use_(g.variables.size()), defined_(g.variables.size()) {}

  void walkProgram(const program::Program &p) {
    walk(*p.node());
    finishRun();
  }

  Lifetimes result() {
    Lifetimes out;
    out.persistent = std::move(persistent_);
    for (unsigned v = 0; v < g_.variables.size(); ++v) {
      auto &s = spans_[v];
      if (s.empty() || !g_.variables[v].initialValue.empty() || g_.variables[v].isConstant)
        out.persistent[v] = true;
      if (out.persistent[v]) {
        s.clear();
        continue;
      }
      std::sort(s.begin(), s.end());
      std::size_t w = 0;
      for (std::size_t i = 1; i < s.size(); ++i) {
        if (s[i].first <= s[w].second + 1)
          s[w].second = std::max(s[w].second, s[i].second);
        else
          s[++w] = s[i];
      }
      s.resize(w + 1);
    }
    out.spans = std::move(spans_);
    for (const auto *handles : {&g_.hostReads, &g_.hostWrites})
      for (const auto &[name, t] : *handles)
        for (const auto &r : t.data().regions)
          markPersistent(out, r.var);
    return out;
  }

private:
  static void markPersistent(Lifetimes &out, unsigned v) {
    out.persistent[v] = true;
    out.spans[v].clear();
  }

  struct Loop {
    std::size_t begin, end;
    int parent;
  };
  /// One variable's touches in the current run.
  struct Use {
    bool active = false;
    std::size_t first = 0, last = 0;
    std::vector<int> loops; ///< Innermost loops of its touches (consecutive duplicates dropped).
  };

  std::uint64_t numberOf(const ProgramNode &n) {
    auto [it, fresh] = numbers_.try_emplace(&n, nextNumber_);
    if (fresh)
      ++nextNumber_;
    return it->second;
  }

  const std::vector<Access> &computeSetAccesses(unsigned cs) {
    auto [it, fresh] = csAccesses_.try_emplace(cs);
    if (fresh) {
      for (unsigned vid : g_.computeSets[cs].vertices) {
        const auto &vertex = g_.vertices[vid];
        for (std::size_t f = 0; f < vertex.fields.size(); ++f) {
          const auto dir = vertex.type->fields[f].direction;
          if (dir == tessera::FieldDirection::None)
            continue;
          const bool read = dir != tessera::FieldDirection::Out;
          const bool write = dir != tessera::FieldDirection::In;
          for (const auto &t : vertex.fields[f].tensors)
            addRegions(it->second, t, read, write);
        }
      }
    }
    return it->second;
  }

  bool isDefined(const core::Region &r) const {
    const auto &d = defined_[r.var];
    auto it = std::upper_bound(d.begin(), d.end(),
                               Interval{r.begin, std::numeric_limits<std::size_t>::max()});
    if (it == d.begin())
      return false;
    --it;
    return it->first <= r.begin && r.next() <= it->second;
  }

  void define(const core::Region &r) {
    auto &d = defined_[r.var];
    if (scopes_ > 0)
      undo_.push_back({r.var, d});
    Interval x{r.begin, r.next()};
    auto it = std::lower_bound(d.begin(), d.end(), x);
    if (it != d.begin() && std::prev(it)->second >= x.first)
      --it;
    auto last = it;
    while (last != d.end() && last->first <= x.second) {
      x.first = std::min(x.first, last->first);
      x.second = std::max(x.second, last->second);
      ++last;
    }
    it = d.erase(it, last);
    d.insert(it, x);
  }

  std::size_t openScope() {
    ++scopes_;
    return undo_.size();
  }
  void closeScope(std::size_t mark) {
    while (undo_.size() > mark) {
      defined_[undo_.back().first] = std::move(undo_.back().second);
      undo_.pop_back();
    }
    --scopes_;
  }

  void step(const ProgramNode &n, const std::vector<Access> &accesses) {
    const std::size_t index = run_.size();
    if (totalSteps_++ >= kMaxRunSteps)
      throw RunTooLong{};
    run_.push_back(numberOf(n));
    // A step reads its operands before it writes its results.
    for (const auto &a : accesses) {
      const unsigned v = a.region.var;
      if (persistent_[v])
        continue;
      if (a.read && !isDefined(a.region)) {
        persistent_[v] = true;
        continue;
      }
      Use &u = use_[v];
      if (!u.active) {
        u.active = true;
        u.first = index;
        touched_.push_back(v);
      }
      u.last = index;
      if (loop_ >= 0 && (u.loops.empty() || u.loops.back() != loop_))
        u.loops.push_back(loop_);
    }
    for (const auto &a : accesses)
      if (a.write && !persistent_[a.region.var])
        define(a.region);
  }

  void stepReading(const ProgramNode &n, const Tensor &t, bool read, bool write) {
    std::vector<Access> accesses;
    addRegions(accesses, t, read, write);
    step(n, accesses);
  }

  void scoped(const program::Program &p) {
    const std::size_t mark = openScope();
    walk(*p.node());
    closeScope(mark);
  }

  int openLoop() {
    loops_.push_back({run_.size(), run_.size(), loop_});
    loop_ = static_cast<int>(loops_.size() - 1);
    return loop_;
  }
  void closeLoop(int id) {
    loops_[id].end = run_.size();
    loop_ = loops_[id].parent;
  }

  void walk(const ProgramNode &n) {
    switch (n.kind) {
    case Kind::Sequence:
      for (const auto &c : n.children)
        walk(*c.node());
      return;
    case Kind::Execute:
      step(n, computeSetAccesses(n.computeSet.getId()));
      return;
    case Kind::Copy:
    case Kind::CrossReplica: {
      std::vector<Access> accesses;
      addRegions(accesses, n.src, true, false);
      addRegions(accesses, n.dst, false, true);
      step(n, accesses);
      return;
    }
    case Kind::StreamToDevice:
      stepReading(n, n.dst, false, true);
      return;
    case Kind::StreamFromDevice:
    case Kind::Print:
    case Kind::AbortOnCondition:
      stepReading(n, n.src, true, false);
      return;
    case Kind::WriteUndef: // the contents become undefined: as good as written
      stepReading(n, n.src, false, true);
      return;
    case Kind::Repeat: {
      if (n.count == 0)
        return;
      const int id = openLoop();
      walk(*n.children[0].node());
      closeLoop(id);
      return;
    }
    case Kind::RepeatWhile: {
      const int id = openLoop();
      walk(*n.children[0].node());
      stepReading(n, n.src, true, false);
      scoped(n.children[1]);
      closeLoop(id);
      return;
    }
    case Kind::If:
    case Kind::Switch:
      stepReading(n, n.src, true, false);
      for (const auto &c : n.children)
        scoped(c);
      return;
    case Kind::Call:
      walk(*g_.functions[n.function.getId()].node());
      return;
    case Kind::CycleCount:
      walk(*n.children[0].node());
      stepReading(n, n.dst, false, true);
      return;
    case Kind::CycleStamp:
      stepReading(n, n.dst, false, true);
      return;
    case Kind::FloatMode: {
      std::vector<Access> accesses;
      if (n.src.valid())
        addRegions(accesses, n.src, true, false);
      if (n.dst.valid())
        addRegions(accesses, n.dst, false, true);
      step(n, accesses);
      return;
    }
    case Kind::RemoteToDevice:
    case Kind::RemoteFromDevice: { // the offset is read first, then the rows move
      std::vector<Access> accesses;
      if (n.offset.valid())
        addRegions(accesses, n.offset, true, false);
      if (n.src.valid())
        addRegions(accesses, n.src, true, false);
      if (n.dst.valid())
        addRegions(accesses, n.dst, false, true);
      step(n, accesses);
      return;
    }
    case Kind::Abort:
    case Kind::Sync:
      return;
    }
  }

  /// Turns the run's touches into spans, then forgets the run.
  void finishRun() {
    if (!run_.empty()) {
      const RangeMinMax numbers(run_);
      for (unsigned v : touched_) {
        Use &u = use_[v];
        if (!persistent_[v]) {
          std::size_t first = u.first, last = u.last;
          for (int l : u.loops)
            for (; l >= 0; l = loops_[l].parent) {
              const Loop &loop = loops_[l];
              if (first < loop.begin || last >= loop.end) {
                first = std::min(first, loop.begin);
                last = std::max(last, loop.end - 1);
              }
            }
          spans_[v].push_back(numbers.query(first, last));
        }
        u = Use{};
        defined_[v].clear();
      }
    }
    touched_.clear();
    run_.clear();
    loops_.clear();
    loop_ = -1;
  }

  const core::GraphData &g_;
  std::vector<bool> persistent_;
  std::vector<std::vector<StepSpan>> spans_;
  std::vector<Use> use_;
  std::vector<std::vector<Interval>> defined_;
  std::vector<std::pair<unsigned, std::vector<Interval>>> undo_;
  int scopes_ = 0;
  std::vector<unsigned> touched_;
  std::vector<std::uint64_t> run_;
  std::vector<Loop> loops_;
  int loop_ = -1;
  std::map<const ProgramNode *, std::uint64_t> numbers_;
  std::uint64_t nextNumber_ = 0;
  std::size_t totalSteps_ = 0;
  std::map<unsigned, std::vector<Access>> csAccesses_;
};

} // namespace

Lifetimes analyseLifetimes(const core::GraphData &graph,
                           const std::vector<program::Program> &programs) {
  Walker walker(graph);
  try {
    for (const auto &p : programs)
      walker.walkProgram(p);
  } catch (const RunTooLong &) {
    Lifetimes all;
    all.persistent.assign(graph.variables.size(), true);
    all.spans.resize(graph.variables.size());
    return all;
  }
  return walker.result();
}

} // namespace poplar::compiler
