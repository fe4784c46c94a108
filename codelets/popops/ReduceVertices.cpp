// popops::ReducePartials / popops::ReduceFinal: the two stages of popops::reduce.
//
// Both vertices reduce runs of `in` into output regions: region i (of width W = out[i].size())
// takes the next runsPerRegion[i] runs, each a whole number of W-wide rows; row element w goes
// to out[i][w]. W = 1 is an inner reduction (a run folds to one value), W > 1 an outer one.
// Runs and rows are folded strictly in the order given, so results never depend on threads.
//   ReducePartials<Op, In, Acc>: per-tile partials, out = reduce(in) in the accumulator type.
//   ReduceFinal<Op, Acc, Out, Update>: combines per-tile partials (given in tile order), then
//   applies the scale and the update: out = [out +] scale * r (LOG_ADD: out = [out (+)] r + scale
//   in log space).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"
#include "popops/ReduceKind.hpp"
#include "popops/kernels/ReduceKernels.hpp"

namespace tessera::codelets::popops {
namespace {

// Taken once, when the types register (never looked up per call).
RunReduceFloatFn gSumFloat = nullptr;
RunReduceFloatFn gSumSquaresFloat = nullptr;
RowsReduceFloatFn gAddRowsFloat = nullptr;
RowsReduceFloatFn gSquareAddRowsFloat = nullptr;
HalfToFloatFn gHalfToFloat = nullptr;

/// How one operator folds values of accumulator type A into a running state.
template <ReduceKind K, class A> struct Rule {
  // std::vector<bool> packs bits; logical states are kept as bytes instead.
  using State = std::conditional_t<std::is_same_v<A, bool>, unsigned char, A>;
  static State init() {
    if constexpr (K == ReduceKind::Add || K == ReduceKind::SquareAdd)
      return A(0);
    else if constexpr (K == ReduceKind::Mul)
      return A(1);
    else if constexpr (K == ReduceKind::Max)
      return std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                                  : std::numeric_limits<A>::lowest();
    else if constexpr (K == ReduceKind::Min)
      return std::numeric_limits<A>::has_infinity ? std::numeric_limits<A>::infinity()
                                                  : std::numeric_limits<A>::max();
    else if constexpr (K == ReduceKind::LogicalAnd)
      return true;
    else
      return false;
  }
  static void add(State &s, A x) {
    if constexpr (K == ReduceKind::Add)
      s += x;
    else if constexpr (K == ReduceKind::SquareAdd) {
      if constexpr (std::is_floating_point_v<A>)
        s = std::fma(x, x, s);
      else
        s += x * x;
    } else if constexpr (K == ReduceKind::Mul)
      s *= x;
    else if constexpr (K == ReduceKind::Max)
      s = x > s ? x : s;
    else if constexpr (K == ReduceKind::Min)
      s = x < s ? x : s;
    else if constexpr (K == ReduceKind::LogicalAnd)
      s = s && x;
    else
      s = s || x;
  }
  static A finish(State s) { return static_cast<A>(s); }
};

/// log(sum(exp(x))) folded online: the running maximum m and sum(exp(x - m)).
template <class A> struct Rule<ReduceKind::LogAdd, A> {
  struct State {
    float m, s;
  };
  static State init() { return {-std::numeric_limits<float>::infinity(), 0.0f}; }
  static void add(State &st, float x) {
    if (x == -std::numeric_limits<float>::infinity())
      return;
    if (x > st.m) {
      st.s = st.s * std::exp(st.m - x) + 1.0f;
      st.m = x;
    } else {
      st.s += std::exp(x - st.m);
    }
  }
  static float finish(State st) {
    return st.s == 0.0f ? -std::numeric_limits<float>::infinity() : st.m + std::log(st.s);
  }
};

template <class T> struct AccumulatorOf { using type = T; };
template <> struct AccumulatorOf<poplar::half> { using type = float; };

/// log(exp(a) + exp(b)), stable.
inline float logAdd(float a, float b) {
  const float m = std::max(a, b);
  if (m == -std::numeric_limits<float>::infinity())
    return m;
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}

/// acc[w] += the rows' column sums, summed as a cascade so long columns lose little precision:
/// blocks of kRowBlock rows are summed into a zeroed row, and level k collects kRowBlock
/// level-(k-1) sums before passing its total up. The order is fixed by `rows` alone.
inline void addRowsBlocked(RowsReduceFloatFn kernel, float *acc, const float *x, std::size_t width,
                           std::size_t rows) {
  constexpr std::size_t kRowBlock = 32;
  if (rows <= kRowBlock) {
    kernel(acc, x, width, rows);
    return;
  }
  thread_local std::vector<float> levels; // level k at [k * width, (k + 1) * width)
  thread_local std::vector<std::size_t> counts;
  levels.clear();
  counts.clear();
  thread_local std::vector<float> block;
  for (std::size_t r = 0; r < rows; r += kRowBlock) {
    block.assign(width, 0.0f);
    kernel(block.data(), x + r * width, width, std::min(kRowBlock, rows - r));
    // Carry the block up: a full level empties into the next one.
    for (std::size_t k = 0;; ++k) {
      if (k == counts.size()) {
        counts.push_back(0);
        levels.resize(levels.size() + width, 0.0f);
      }
      float *level = levels.data() + k * width;
      for (std::size_t w = 0; w < width; ++w)
        level[w] += block[w];
      if (++counts[k] < kRowBlock)
        break;
      std::copy(level, level + width, block.begin());
      std::fill(level, level + width, 0.0f);
      counts[k] = 0;
    }
  }
  for (std::size_t k = counts.size(); k-- > 0;)
    for (std::size_t w = 0; w < width; ++w)
      acc[w] += levels[k * width + w];
}

/// Folds every region of (in, runsPerRegion) into `results` (one value per output element,
/// regions concatenated). Shared by both stages.
template <ReduceKind K, class In, class A, class InList, class OutList>
void reduceRegions(const InList &in, const OutList &out, const poplar::Vector<unsigned> &runs,
                   std::vector<A> &results) {
  using R = Rule<K, A>;
  std::size_t total = 0;
  for (std::size_t i = 0; i < out.size(); ++i)
    total += out[i].size();
  results.resize(total);
  thread_local std::vector<typename R::State> state;
  std::size_t run = 0, base = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::size_t width = out[i].size();
    state.assign(width, R::init());
    for (unsigned j = 0; j < runs[i]; ++j, ++run) {
      const In *x = in[run].data();
      const std::size_t n = in[run].size(), rows = width ? n / width : 0;
      constexpr bool kSum = K == ReduceKind::Add || K == ReduceKind::SquareAdd;
      constexpr bool kFloatSum = kSum && std::is_same_v<In, float>;
      constexpr bool kHalfSum = kSum && std::is_same_v<In, poplar::half>;
      if constexpr (kFloatSum || kHalfSum) {
        const bool square = K == ReduceKind::SquareAdd;
        const float *xf;
        if constexpr (kHalfSum) { // widen to float once, then use the float kernels
          thread_local std::vector<float> widened;
          widened.resize(n);
          gHalfToFloat(reinterpret_cast<const std::uint16_t *>(x), widened.data(), n);
          xf = widened.data();
        } else {
          xf = x;
        }
        if (width == 1)
          state[0] += (square ? gSumSquaresFloat : gSumFloat)(xf, n);
        else
          addRowsBlocked(square ? gSquareAddRowsFloat : gAddRowsFloat, state.data(), xf, width,
                         rows);
      } else {
        for (std::size_t r = 0; r < rows; ++r)
          for (std::size_t w = 0; w < width; ++w)
            R::add(state[w], static_cast<A>(x[r * width + w]));
      }
    }
    for (std::size_t w = 0; w < width; ++w)
      results[base + w] = R::finish(state[w]);
    base += width;
  }
}

template <class VectorListT> std::uint64_t elementsOf(const VectorListT &list) {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < list.size(); ++i)
    n += list[i].size();
  return n;
}

template <ReduceKind K, class In, class Acc> class ReducePartials : public poplar::Vertex {
public:
  poplar::Input<poplar::VectorList<In>> in;
  poplar::Output<poplar::VectorList<Acc>> out;
  poplar::Vector<unsigned> runsPerRegion;

  bool compute() {
    thread_local std::vector<Acc> results;
    reduceRegions<K, In, Acc>(in, out, runsPerRegion, results);
    std::size_t k = 0;
    for (std::size_t i = 0; i < out.size(); ++i)
      for (std::size_t w = 0; w < out[i].size(); ++w)
        out[i][w] = results[k++];
    return true;
  }
  std::uint64_t cycleEstimate() const { return 30 + 4 * out.size() + elementsOf(in) / 2; }
};

template <ReduceKind K, class Acc, class Out, bool Update>
class ReduceFinal : public poplar::Vertex {
public:
  poplar::Input<poplar::VectorList<Acc>> in;
  std::conditional_t<Update, poplar::InOut<poplar::VectorList<Out>>,
                     poplar::Output<poplar::VectorList<Out>>>
      out;
  poplar::Vector<unsigned> runsPerRegion;
  poplar::Input<float> scale;

  bool compute() {
    thread_local std::vector<Acc> results;
    reduceRegions<K, Acc, Acc>(in, out, runsPerRegion, results);
    const float k = *scale;
    std::size_t e = 0;
    for (std::size_t i = 0; i < out.size(); ++i)
      for (std::size_t w = 0; w < out[i].size(); ++w) {
        Acc r = results[e++];
        if constexpr (K == ReduceKind::Add) {
          if (k != 1.0f) // keeps INT sums exact when there is no scale
            r = static_cast<Acc>(r * k);
          if constexpr (Update)
            r = static_cast<Acc>(static_cast<Acc>(out[i][w]) + r);
        } else if constexpr (K == ReduceKind::LogAdd) {
          r = r + k;
          if constexpr (Update)
            r = logAdd(static_cast<float>(out[i][w]), r);
        }
        out[i][w] = static_cast<Out>(r);
      }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 40 + 4 * out.size() + elementsOf(in); }
};

std::string vertexName(const char *family, ReduceKind k, const char *a, const char *b) {
  return std::string("popops::") + family + "<" + reduceKindName(k) + "," + a + "," + b + ">";
}

template <ReduceKind K, class In> void registerPartials(const char *inName) {
  using Acc = typename AccumulatorOf<In>::type;
  using V = ReducePartials<K, In, Acc>;
  const char *accName = std::is_same_v<Acc, float> ? "float" : inName;
  tessera::VertexTypeBuilder<V>(vertexName("ReducePartials", K, inName, accName))
      .field("in", &V::in)
      .field("out", &V::out)
      .field("runsPerRegion", &V::runsPerRegion)
      .add();
}

template <ReduceKind K, class Acc, class Out, bool Update>
void registerFinal(const char *accName, const char *outName) {
  using V = ReduceFinal<K, Acc, Out, Update>;
  std::string name = vertexName("ReduceFinal", K, accName, outName);
  name.insert(name.size() - 1, Update ? ",true" : ",false");
  tessera::VertexTypeBuilder<V>(name)
      .field("in", &V::in)
      .field("out", &V::out)
      .field("runsPerRegion", &V::runsPerRegion)
      .field("scale", &V::scale)
      .add();
}

template <ReduceKind K, class Acc, class Out> void registerFinalBoth(const char *a, const char *o) {
  registerFinal<K, Acc, Out, false>(a, o);
  registerFinal<K, Acc, Out, true>(a, o);
}

/// Arithmetic operators: FLOAT, HALF and INT inputs. Stage 2 combines with `Combine`.
template <ReduceKind K, ReduceKind Combine> void registerArithmetic() {
  registerPartials<K, float>("float");
  registerPartials<K, poplar::half>("half");
  registerPartials<K, int>("int");
  registerFinalBoth<Combine, float, float>("float", "float");
  registerFinalBoth<Combine, float, poplar::half>("float", "half");
  registerFinalBoth<Combine, int, int>("int", "int");
}

} // namespace

void registerReduceVertices() {
  gSumFloat = sumFloatKernel();
  gSumSquaresFloat = sumSquaresFloatKernel();
  gAddRowsFloat = addRowsFloatKernel();
  gSquareAddRowsFloat = squareAddRowsFloatKernel();
  gHalfToFloat = halfToFloatKernel();
  registerArithmetic<ReduceKind::Add, ReduceKind::Add>();
  registerArithmetic<ReduceKind::SquareAdd, ReduceKind::Add>();
  registerArithmetic<ReduceKind::Mul, ReduceKind::Mul>();
  registerArithmetic<ReduceKind::Max, ReduceKind::Max>();
  registerArithmetic<ReduceKind::Min, ReduceKind::Min>();
  registerPartials<ReduceKind::LogAdd, float>("float");
  registerPartials<ReduceKind::LogAdd, poplar::half>("half");
  registerFinalBoth<ReduceKind::LogAdd, float, float>("float", "float");
  registerFinalBoth<ReduceKind::LogAdd, float, poplar::half>("float", "half");
  registerPartials<ReduceKind::LogicalAnd, bool>("bool");
  registerPartials<ReduceKind::LogicalOr, bool>("bool");
  registerFinalBoth<ReduceKind::LogicalAnd, bool, bool>("bool", "bool");
  registerFinalBoth<ReduceKind::LogicalOr, bool, bool>("bool", "bool");
}

} // namespace tessera::codelets::popops
