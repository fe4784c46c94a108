// Views of views (transposes, reversals, sub-samples, broadcasts and slices of each other) checked
// element by element against a host reference that applies the same operations to an explicit
// list of (variable, element) pairs. Also covers the view representation's edges: views with
// few and with many runs (the region index is built on the stack below a threshold and cached
// above it), concurrent readers of one view, and shapes shared between graphs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>

#include "ViewReference.hpp"

using namespace poplar;
using namespace viewref;

namespace {

/// A view as the host sees it: a shape and, in row-major order, the element each position reads.
struct RefView {
  Shape shape;
  std::vector<Element> elements;

  /// Position of multi-index `idx` (row-major).
  const Element &at(const Shape &idx) const { return elements[flatOf(shape, idx)]; }

  /// Builds a view of `out` whose element at every index is at(srcOf(index)).
  template <class F> RefView mapped(const Shape &out, F srcOf) const {
    RefView r{out, {}};
    forEachIndex(out, [&](const Shape &o) { r.elements.push_back(at(srcOf(o))); });
    return r;
  }

  RefView slice(std::size_t b, std::size_t e, unsigned dim) const {
    Shape out = shape;
    out[dim] = e - b;
    return mapped(out, [&](Shape o) {
      o[dim] += b;
      return o;
    });
  }
  RefView dimShuffle(const std::vector<unsigned> &perm) const {
    Shape out(shape.size());
    for (std::size_t i = 0; i < perm.size(); ++i)
      out[i] = shape[perm[i]];
    return mapped(out, [&](const Shape &o) {
      Shape src(shape.size());
      for (std::size_t i = 0; i < perm.size(); ++i)
        src[perm[i]] = o[i];
      return src;
    });
  }
  RefView reverse(unsigned dim) const {
    return mapped(shape, [&](Shape o) {
      o[dim] = shape[dim] - 1 - o[dim];
      return o;
    });
  }
  RefView subSample(unsigned stride, unsigned dim) const {
    Shape out = shape;
    out[dim] = (shape[dim] + stride - 1) / stride;
    return mapped(out, [&](Shape o) {
      o[dim] *= stride;
      return o;
    });
  }
  RefView broadcast(unsigned n, unsigned dim) const {
    Shape out = shape;
    out[dim] *= n;
    return mapped(out, [&](Shape o) {
      o[dim] %= shape[dim];
      return o;
    });
  }
  RefView upsample(unsigned scale, unsigned dim) const {
    Shape out = shape;
    out[dim] *= scale;
    return mapped(out, [&](Shape o) {
      o[dim] /= scale;
      return o;
    });
  }
  RefView reshape(const Shape &s) const { return {s, elements}; }
};

RefView refOf(const Tensor &base) { return {base.shape(), elementsOf(base)}; }

/// Number of maximal runs of consecutive elements of one variable: what getVarRegions() returns.
std::size_t runCount(const std::vector<Element> &e) {
  std::size_t runs = 0;
  for (std::size_t i = 0; i < e.size(); ++i)
    runs += i == 0 || e[i].first != e[i - 1].first || e[i].second != e[i - 1].second + 1;
  return runs;
}

/// The view against its reference: elements, runs, contiguity, and shape.
void expectSame(const Tensor &t, const RefView &ref) {
  expectView(t, ref.shape, ref.elements);
  EXPECT_EQ(t.getVarRegions().size(), runCount(ref.elements));
  EXPECT_EQ(t.isContiguous(), runCount(ref.elements) <= 1);
  const std::set<Element> distinct(ref.elements.begin(), ref.elements.end());
  EXPECT_EQ(t.containsAliases(), distinct.size() != ref.elements.size());
}

class ComposedView : public ::testing::Test {
protected:
  ComposedView() : device(smallDevice(4)), graph(device.getTarget()) {}
  Device device;
  Graph graph;
};

} // namespace

TEST_F(ComposedView, TransposeOfATransposeIsTheOriginal) {
  Tensor t = graph.addVariable(FLOAT, {5, 7}, "t");
  Tensor tt = t.transpose();
  expectSame(tt, refOf(t).dimShuffle({1, 0}));
  EXPECT_EQ(tt.getVarRegions().size(), 35u);
  EXPECT_EQ(tt.transpose(), t);
  EXPECT_TRUE(tt.transpose().isContiguous());
}

TEST_F(ComposedView, SliceOfATransposeMatchesTheReference) {
  Tensor t = graph.addVariable(FLOAT, {6, 9}, "t");
  const RefView ref = refOf(t).dimShuffle({1, 0});
  expectSame(t.transpose().slice(2, 7, 0), ref.slice(2, 7, 0));
  expectSame(t.transpose().slice(1, 5, 1), ref.slice(1, 5, 1));
  expectSame(t.transpose().slice({3, 2}, {8, 6}), ref.slice(3, 8, 0).slice(2, 6, 1));
  expectSame(t.transpose()[4], ref.slice(4, 5, 0).reshape({6}));
}

TEST_F(ComposedView, ReverseOfATransposeAndTransposeOfAReverseMatch) {
  Tensor t = graph.addVariable(FLOAT, {4, 6}, "t");
  const RefView ref = refOf(t);
  expectSame(t.transpose().reverse(0), ref.dimShuffle({1, 0}).reverse(0));
  expectSame(t.transpose().reverse(1), ref.dimShuffle({1, 0}).reverse(1));
  expectSame(t.reverse(1).transpose(), ref.reverse(1).dimShuffle({1, 0}));
  // Reversing both dimensions twice in either order comes back to the same runs.
  EXPECT_EQ(t.reverse(0).reverse(1).reverse(0).reverse(1), t);
  EXPECT_EQ(t.reverse(0).reverse(1), t.reverse(1).reverse(0));
}

TEST_F(ComposedView, SubSampleOfReversedAndTransposedViewsMatch) {
  Tensor t = graph.addVariable(FLOAT, {7, 10}, "t");
  const RefView ref = refOf(t);
  expectSame(t.reverse(1).subSample(3, 1), ref.reverse(1).subSample(3, 1));
  expectSame(t.transpose().subSample(2, 1), ref.dimShuffle({1, 0}).subSample(2, 1));
  expectSame(t.subSample(2, 0).subSample(4, 1).transpose(),
             ref.subSample(2, 0).subSample(4, 1).dimShuffle({1, 0}));
  // Sub-sampling a sub-sample multiplies the strides.
  EXPECT_EQ(t.subSample(2, 1).subSample(2, 1), t.subSample(4, 1));
}

TEST_F(ComposedView, BroadcastOfATransposeRepeatsTheTransposedRows) {
  Tensor t = graph.addVariable(FLOAT, {3, 4}, "t");
  const RefView ref = refOf(t).dimShuffle({1, 0});
  expectSame(t.transpose().broadcast(3, 0), ref.broadcast(3, 0));
  expectSame(t.transpose().broadcast(2, 1), ref.broadcast(2, 1));
  Tensor column = t.slice(1, 2, 1); // [3][1]
  expectSame(column.broadcast(5, 1).transpose(),
             refOf(t).slice(1, 2, 1).broadcast(5, 1).dimShuffle({1, 0}));
}

TEST_F(ComposedView, UpsampleOfAReversedViewMatches) {
  Tensor t = graph.addVariable(FLOAT, {3, 5}, "t");
  const RefView ref = refOf(t);
  expectSame(t.reverse(1).upsample(2, 1, UpsampleMethod::REPEAT),
             ref.reverse(1).upsample(2, 1));
  expectSame(t.transpose().upsample(3, 0, UpsampleMethod::REPEAT),
             ref.dimShuffle({1, 0}).upsample(3, 0));
}

TEST_F(ComposedView, RandomChainsOfViewOperationsMatchTheReference) {
  // Fixed-seed chains over two variables joined by concat: every prefix is checked, so a
  // failure names the first operation that diverged.
  Tensor a = graph.addVariable(FLOAT, {4, 6, 5}, "a");
  Tensor b = graph.addVariable(FLOAT, {4, 6, 5}, "b");
  std::mt19937 rng(1234);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  for (int chain = 0; chain < 40; ++chain) {
    const unsigned joined = static_cast<unsigned>(pick(3));
    Tensor t = concat(a, b, joined);
    // The concat's reference, built straight from the two variables' elements.
    const RefView ra = refOf(a), rb = refOf(b);
    RefView ref{t.shape(), {}};
    forEachIndex(t.shape(), [&](const Shape &o) {
      Shape src = o;
      const bool second = src[joined] >= a.dim(joined);
      if (second)
        src[joined] -= a.dim(joined);
      ref.elements.push_back(second ? rb.at(src) : ra.at(src));
    });
    std::ostringstream trace;
    trace << "concat(" << joined << ")";
    for (int step = 0; step < 6 && t.numElements() > 0; ++step) {
      const unsigned dim = static_cast<unsigned>(pick(t.rank()));
      const std::size_t n = t.dim(dim);
      switch (pick(6)) {
      case 0: {
        const std::size_t lo = pick(n), hi = lo + 1 + pick(n - lo);
        t = t.slice(lo, hi, dim);
        ref = ref.slice(lo, hi, dim);
        trace << " slice(" << lo << "," << hi << "," << dim << ")";
        break;
      }
      case 1: {
        std::vector<unsigned> perm(t.rank());
        for (unsigned i = 0; i < perm.size(); ++i)
          perm[i] = i;
        std::shuffle(perm.begin(), perm.end(), rng);
        t = t.dimShuffle(perm);
        ref = ref.dimShuffle(perm);
        trace << " dimShuffle";
        break;
      }
      case 2:
        t = t.reverse(dim);
        ref = ref.reverse(dim);
        trace << " reverse(" << dim << ")";
        break;
      case 3: {
        const unsigned stride = 1 + static_cast<unsigned>(pick(3));
        t = t.subSample(stride, dim);
        ref = ref.subSample(stride, dim);
        trace << " subSample(" << stride << "," << dim << ")";
        break;
      }
      case 4:
        if (t.numElements() < 200) {
          t = t.broadcast(2, dim);
          ref = ref.broadcast(2, dim);
          trace << " broadcast(2," << dim << ")";
        }
        break;
      case 5: {
        t = t.flatten();
        ref = ref.reshape({ref.elements.size()});
        trace << " flatten";
        if (ref.elements.size() % 2 == 0) {
          t = t.reshape({2, ref.elements.size() / 2});
          ref = ref.reshape({2, ref.elements.size() / 2});
          trace << " reshape";
        }
        break;
      }
      }
      SCOPED_TRACE(trace.str());
      expectSame(t, ref);
      if (::testing::Test::HasFailure())
        return;
    }
  }
}

TEST_F(ComposedView, ViewsEitherSideOfTheCachedIndexThresholdSliceAlike) {
  // Transposes of [k, 3] have 3k runs: a few (indexed on the stack) up to many (indexed once
  // and cached). Every slice of each must match the reference.
  for (std::size_t k : {1u, 2u, 5u, 6u, 7u, 40u}) {
    Tensor t = graph.addVariable(FLOAT, {k, 3}, numbered("t", k));
    Tensor v = t.transpose().flatten();
    const RefView ref = refOf(t).dimShuffle({1, 0}).reshape({3 * k});
    for (std::size_t lo = 0; lo < 3 * k; lo += 1 + k / 3)
      for (std::size_t hi = lo; hi <= 3 * k; hi += 1 + k / 2) {
        SCOPED_TRACE(::testing::Message() << "k " << k << " [" << lo << ", " << hi << ")");
        expectSame(v.slice(lo, hi), ref.slice(lo, hi, 0));
      }
  }
}

TEST_F(ComposedView, ConcurrentReadersOfOneManyRunViewAgree) {
  // The first slice of a view with many runs builds its index; readers racing to do so must
  // all see a complete one.
  Tensor t = graph.addVariable(FLOAT, {64, 48}, "t");
  const RefView ref = refOf(t).dimShuffle({1, 0}).reshape({64 * 48});
  for (int round = 0; round < 4; ++round) {
    Tensor v = t.transpose().flatten(); // a fresh view each round: its index is not built yet
    std::vector<std::vector<Element>> seen(4);
    std::vector<std::thread> threads;
    for (std::size_t k = 0; k < seen.size(); ++k)
      threads.emplace_back([&, k] {
        for (std::size_t lo = k; lo + 100 <= v.numElements(); lo += 397) {
          auto e = elementsOf(v.slice(lo, lo + 100));
          seen[k].insert(seen[k].end(), e.begin(), e.end());
        }
      });
    for (auto &th : threads)
      th.join();
    for (std::size_t k = 0; k < seen.size(); ++k) {
      std::vector<Element> expected;
      for (std::size_t lo = k; lo + 100 <= v.numElements(); lo += 397)
        expected.insert(expected.end(), ref.elements.begin() + lo, ref.elements.begin() + lo + 100);
      EXPECT_EQ(seen[k], expected) << "reader " << k << " in round " << round;
    }
  }
}

TEST_F(ComposedView, EqualShapesInDifferentGraphsStayDifferentTensors) {
  Graph other(device.getTarget());
  Tensor a = graph.addVariable(FLOAT, {3, 4}, "a");
  Tensor b = other.addVariable(FLOAT, {3, 4}, "b");
  EXPECT_EQ(a.shape(), b.shape());
  EXPECT_FALSE(a == b);
  EXPECT_EQ(a.reshape({4, 3}).shape(), (Shape{4, 3}));
  EXPECT_EQ(a.reshape({12}).reshape({3, 4}), a);
  EXPECT_FALSE(a.reshape({4, 3}) == a);
  EXPECT_EQ(a.shape().data(), a.slice(0, 3, 0).shape().data()) << "one stored copy per shape";
}

TEST_F(ComposedView, ViewsReadBackThroughTheEngineAsTheReferenceSays) {
  Tensor t = graph.addVariable(FLOAT, {6, 8}, "t");
  poputil::mapTensorLinearly(graph, t);
  const std::vector<Tensor> views{t.transpose().reverse(0).subSample(2, 1),
                                  t.reverse(1).transpose().slice(2, 6, 0),
                                  t.transpose().broadcast(2, 1)};
  const RefView ref = refOf(t);
  const std::vector<RefView> refs{ref.dimShuffle({1, 0}).reverse(0).subSample(2, 1),
                                  ref.reverse(1).dimShuffle({1, 0}).slice(2, 6, 0),
                                  ref.dimShuffle({1, 0}).broadcast(2, 1)};
  auto got = readViews(graph, device, {t}, views);
  for (std::size_t k = 0; k < views.size(); ++k) {
    std::vector<std::size_t> flat;
    for (const auto &e : refs[k].elements)
      flat.push_back(e.second);
    EXPECT_EQ(got[k], expectedValues(flat)) << "view " << k;
  }
}
