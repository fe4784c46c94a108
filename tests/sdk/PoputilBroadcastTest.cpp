// poputil/Broadcast.hpp: the views broadcastToMatch makes, checked element by element against
// NumPy's rules written out as naive index arithmetic, over every pair of small shapes.
#include <gtest/gtest.h>

#include <optional>

#include <poplar/Graph.hpp>
#include <poputil/Broadcast.hpp>
#include <poputil/exceptions.hpp>

#include "ErrorMatchers.hpp"
#include "ViewReference.hpp"

using namespace poplar;
using poputil::poplibs_error;
using viewref::Shape;

namespace {

/// NumPy's broadcast of two shapes, written out: right-align, missing dimensions are 1, and
/// each pair must be equal or contain a 1.
std::optional<Shape> numpyShape(const Shape &a, const Shape &b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out;
  for (std::size_t i = 0; i < rank; ++i) {
    const std::size_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    const std::size_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    out.push_back(std::max(da, db) == 1 ? 1 : (da == 1 ? db : da));
  }
  return out;
}

/// The elements a broadcast view of `base` (shape `from`) must hold at shape `to`: the
/// index with broadcast dimensions read at 0 and leading dimensions dropped.
std::vector<viewref::Element> broadcastElements(const Tensor &base, const Shape &from,
                                                const Shape &to) {
  return viewref::onVar(base, viewref::naiveMap(to, [&](const Shape &idx) {
                          Shape src(from.size());
                          for (std::size_t i = 0; i < from.size(); ++i)
                            src[i] = from[i] == 1 ? 0 : idx[idx.size() - from.size() + i];
                          return viewref::flatOf(from, src);
                        }));
}

std::vector<Shape> smallShapes() {
  std::vector<Shape> shapes{{}};
  for (std::size_t a : {1, 2, 3}) {
    shapes.push_back({a});
    for (std::size_t b : {1, 3}) {
      shapes.push_back({a, b});
      shapes.push_back({b, 1, a});
    }
  }
  return shapes;
}

} // namespace

TEST(PoputilBroadcast, TwoTensorsBroadcastLikeNumPyOrThrow) {
  Graph graph(viewref::smallDevice(2).getTarget());
  for (const auto &sa : smallShapes())
    for (const auto &sb : smallShapes()) {
      SCOPED_TRACE(::testing::Message() << "a " << ::testing::PrintToString(sa) << " b "
                                        << ::testing::PrintToString(sb));
      Tensor baseA = graph.addVariable(FLOAT, sa), baseB = graph.addVariable(FLOAT, sb);
      Tensor a = baseA, b = baseB;
      const auto want = numpyShape(sa, sb);
      EXPECT_EQ(poputil::canBroadcastToMatch(a, b), want.has_value());
      if (!want) {
        EXPECT_THROW_MSG(poplibs_error, poputil::broadcastToMatch(a, b),
                         {"poputil::broadcastToMatch", "do not broadcast"});
        continue;
      }
      poputil::broadcastToMatch(a, b);
      viewref::expectView(a, *want, broadcastElements(baseA, sa, *want));
      viewref::expectView(b, *want, broadcastElements(baseB, sb, *want));
    }
}

TEST(PoputilBroadcast, ThreeTensorsMeetInTheirCommonShape) {
  Graph graph(viewref::smallDevice(2).getTarget());
  Tensor a0 = graph.addVariable(FLOAT, {3, 1}), b0 = graph.addVariable(FLOAT, {4}),
         c0 = graph.addVariable(FLOAT, {2, 1, 1});
  Tensor a = a0, b = b0, c = c0;
  poputil::broadcastToMatch(a, b, c);
  const Shape want{2, 3, 4};
  viewref::expectView(a, want, broadcastElements(a0, {3, 1}, want));
  viewref::expectView(b, want, broadcastElements(b0, {4}, want));
  viewref::expectView(c, want, broadcastElements(c0, {2, 1, 1}, want));

  Tensor x = graph.addVariable(FLOAT, {3}), y = graph.addVariable(FLOAT, {1}),
         z = graph.addVariable(FLOAT, {2, 4});
  EXPECT_THROW_MSG(poplibs_error, poputil::broadcastToMatch(x, y, z),
                   {"poputil::broadcastToMatch", "[3], [1] and [2,4]"});
}

TEST(PoputilBroadcast, ToAShapeExpandsThenBroadcasts) {
  Graph graph(viewref::smallDevice(2).getTarget());
  for (const auto &from : smallShapes())
    for (const Shape &to : {Shape{3}, Shape{2, 3}, Shape{3, 1, 3}, Shape{2, 3, 3}}) {
      SCOPED_TRACE(::testing::Message()
                   << ::testing::PrintToString(from) << " to " << ::testing::PrintToString(to));
      Tensor base = graph.addVariable(FLOAT, from), a = base;
      const auto common = numpyShape(from, to);
      if (common && *common == to) {
        poputil::broadcastToMatch(a, to);
        viewref::expectView(a, to, broadcastElements(base, from, to));
      } else {
        EXPECT_THROW_MSG(poplibs_error, poputil::broadcastToMatch(a, to),
                         {"poputil::broadcastToMatch", "cannot be broadcast to shape"});
      }
    }
  Tensor t = graph.addVariable(FLOAT, {2, 3});
  EXPECT_THROW_MSG(poplibs_error, poputil::broadcastToMatch(t, Shape{3}),
                   {"poputil::broadcastToMatch", "shape [2,3]", "to shape [3]"});
}

TEST(PoputilBroadcast, ExpandToMatchRanksAddsOuterDimensionsOnly) {
  Graph graph(viewref::smallDevice(2).getTarget());
  Tensor a0 = graph.addVariable(FLOAT, {2, 3}), b0 = graph.addVariable(FLOAT, {4, 5, 6, 7});
  Tensor a = a0, b = b0;
  poputil::expandToMatchRanks(a, b);
  EXPECT_EQ(a.shape(), (Shape{1, 1, 2, 3}));
  EXPECT_EQ(b.shape(), (Shape{4, 5, 6, 7}));
  EXPECT_EQ(viewref::elementsOf(a), viewref::elementsOf(a0));
  poputil::expandToMatchRanks(b, a); // sizes are not compared
  EXPECT_EQ(a.shape(), (Shape{1, 1, 2, 3}));
}
