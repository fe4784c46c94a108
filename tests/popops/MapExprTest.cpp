// popops::map over whole expressions: fused into one compute set, results against a host
// loop, types (casts, constants taking their operand's type, HALF rounded once).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include <popops/ElementWise.hpp>

#include "ElementWiseTestSupport.hpp"

using namespace poplar;
using namespace poplar::program;
namespace pe = popops::expr;
using ewtest::Fixture;

namespace {

/// max(|(a + b) * a - b * 0.5|, 0.25): six operation nodes.
const pe::Max sixNodes() {
  using namespace pe;
  return Max(Abs((_1 + _2) * _1 - _2 * 0.5f), Const(0.25f));
}
float sixNodesRef(float a, float b) { return std::max(std::fabs((a + b) * a - b * 0.5f), 0.25f); }

/// Bytes the compute sets whose names contain `name` exchange.
std::uint64_t exchangeBytesOf(Engine &engine, const std::string &name) {
  std::uint64_t bytes = 0;
  for (const auto &cs : engine.getGraphProfile().computeSets)
    if (cs.name.find(name) != std::string::npos)
      bytes += cs.exchangeBytes;
  return bytes;
}

} // namespace

TEST(MapExpr, SixNodeExpressionIsOneComputeSetWithOneVertexPerTile) {
  Fixture f(16);
  Tensor a = f.var(FLOAT, {37, 29}, "a");
  Tensor b = f.var(FLOAT, {37, 29}, "b");
  // Compute set ids count up, so two probes bracket exactly what map added.
  const unsigned before = f.graph.addComputeSet("probe-before").getId();
  Tensor out = popops::map(f.graph, sixNodes(), {a, b}, f.prog, "fused");
  const unsigned after = f.graph.addComputeSet("probe-after").getId();
  EXPECT_EQ(after - before - 1, 1u) << "map added more than one compute set";
  f.read("out", out);

  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto estimates = engine.getVertexCycleEstimates();
  ASSERT_EQ(estimates.size(), 16u); // one vertex per tile: each tile holds one run
  std::vector<unsigned> tiles;
  for (const auto &e : estimates) {
    EXPECT_EQ(e.vertexType, "popops::MapExpr<float>");
    tiles.push_back(e.tile);
  }
  std::sort(tiles.begin(), tiles.end());
  EXPECT_EQ(std::unique(tiles.begin(), tiles.end()) - tiles.begin(), 16);

  const auto av = ewtest::randomFloats(a.numElements(), -3, 3, 1);
  const auto bv = ewtest::randomFloats(b.numElements(), -3, 3, 2);
  ewtest::write(engine, "a", av);
  ewtest::write(engine, "b", bv);
  engine.run();
  const auto got = ewtest::read<float>(engine, "out", out.numElements());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], sixNodesRef(av[i], bv[i])) << i;
}

TEST(MapExpr, OutputTakesTheMappingOfTheFirstInput) {
  Fixture f(8);
  Tensor a = f.graph.addVariable(FLOAT, {100}, "a");
  std::vector<std::vector<Interval>> m(8);
  m[7] = {{0, 60}};
  m[2] = {{60, 100}};
  f.graph.setTileMapping(a, m);
  Tensor out = popops::map(f.graph, pe::Square(pe::_1), {a}, f.prog);
  EXPECT_EQ(f.graph.getTileMapping(out), f.graph.getTileMapping(a));
  EXPECT_EQ(out.shape(), a.shape());
  EXPECT_EQ(out.elementType(), FLOAT);
}

TEST(MapExpr, PlaceholderUsedManyTimesAndDeepTreesNeedManyRegisters) {
  Fixture f(4);
  Tensor a = f.var(FLOAT, {2001}, "a");
  Tensor b = f.var(FLOAT, {2001}, "b");
  // A balanced tree of 32 leaves keeps many partial results live at once.
  using namespace pe;
  std::vector<std::unique_ptr<Expr>> level;
  for (int i = 0; i < 32; ++i) {
    if (i % 2)
      level.push_back((_1 * float(i)).clone());
    else
      level.push_back((_2 + float(i)).clone());
  }
  while (level.size() > 1) {
    std::vector<std::unique_ptr<Expr>> next;
    for (std::size_t i = 0; i < level.size(); i += 2)
      next.push_back(Add(*level[i], *level[i + 1]).clone());
    level = std::move(next);
  }
  Tensor out = popops::map(f.graph, *level[0], {a, b}, f.prog);
  f.read("out", out);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto av = ewtest::randomFloats(2001, -1, 1, 3);
  const auto bv = ewtest::randomFloats(2001, -1, 1, 4);
  ewtest::write(engine, "a", av);
  ewtest::write(engine, "b", bv);
  engine.run();
  const auto got = ewtest::read<float>(engine, "out", 2001);
  for (std::size_t k = 0; k < got.size(); ++k) {
    std::vector<float> vals;
    for (int i = 0; i < 32; ++i)
      vals.push_back(i % 2 ? av[k] * float(i) : bv[k] + float(i));
    while (vals.size() > 1) {
      std::vector<float> next;
      for (std::size_t i = 0; i < vals.size(); i += 2)
        next.push_back(vals[i] + vals[i + 1]);
      vals = next;
    }
    ASSERT_EQ(got[k], vals[0]) << k;
  }
}

TEST(MapExpr, CastsBetweenFloatIntAndBool) {
  Fixture f(4);
  Tensor a = f.var(FLOAT, {103}, "a");
  Tensor i = f.var(INT, {103}, "i");
  using namespace pe;
  Tensor toInt = popops::map(f.graph, Cast(_1 * 3.0f, INT) + _2, {a, i}, f.prog);
  Tensor toFloat = popops::map(f.graph, Cast(_2, FLOAT) * 0.5f, {a, i}, f.prog);
  Tensor toBool = popops::map(f.graph, Cast(_1, BOOL), {i}, f.prog);
  Tensor boolToFloat = popops::map(f.graph, Cast(_1 > 0.0f, FLOAT), {a}, f.prog);
  EXPECT_EQ(toInt.elementType(), INT);
  EXPECT_EQ(toBool.elementType(), BOOL);
  f.read("toInt", toInt);
  f.read("toFloat", toFloat);
  f.read("toBool", toBool);
  f.read("boolToFloat", boolToFloat);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto av = ewtest::randomFloats(103, -10, 10, 5);
  const auto iv = ewtest::randomInts(103, -3, 3, 6);
  ewtest::write(engine, "a", av);
  ewtest::write(engine, "i", iv);
  engine.run();
  const auto gi = ewtest::read<int>(engine, "toInt", 103);
  const auto gf = ewtest::read<float>(engine, "toFloat", 103);
  const auto gb = ewtest::readBool(engine, "toBool", 103);
  const auto gbf = ewtest::read<float>(engine, "boolToFloat", 103);
  for (std::size_t k = 0; k < 103; ++k) {
    EXPECT_EQ(gi[k], static_cast<int>(av[k] * 3.0f) + iv[k]) << k;
    EXPECT_EQ(gf[k], static_cast<float>(iv[k]) * 0.5f) << k;
    EXPECT_EQ(gb[k], iv[k] != 0 ? 1 : 0) << k;
    EXPECT_EQ(gbf[k], av[k] > 0 ? 1.0f : 0.0f) << k;
  }
}

TEST(MapExpr, ConstantsTakeTheTypeOfTheirOperand) {
  Fixture f(2);
  Tensor i = f.var(INT, {10}, "i");
  using namespace pe;
  // 2.75 becomes the INT 2; division is integer division.
  Tensor out = popops::map(f.graph, (_1 * 2.75f) / 3, {i}, f.prog);
  EXPECT_EQ(out.elementType(), INT);
  f.read("out", out);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  std::vector<int> iv = {-7, -3, -1, 0, 1, 2, 5, 9, 100, -100};
  ewtest::write(engine, "i", iv);
  engine.run();
  const auto got = ewtest::read<int>(engine, "out", 10);
  for (std::size_t k = 0; k < 10; ++k)
    EXPECT_EQ(got[k], (iv[k] * 2) / 3) << k;
}

TEST(MapExpr, HalfIsComputedInFloatAndRoundedOnceOnStore) {
  Fixture f(4);
  Tensor h = f.var(HALF, {257}, "h");
  using namespace pe;
  // Rounded after every op, (x + small) - x would be 0 for x = 1.
  Tensor out = popops::map(f.graph, (_1 + ConstHalf(0.0001f)) - _1, {h}, f.prog);
  Tensor sq = popops::map(f.graph, Sqrt(_1 * _1 + 1.0f), {h}, f.prog);
  EXPECT_EQ(out.elementType(), HALF);
  f.read("out", out);
  f.read("sq", sq);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  auto hv = ewtest::toHalf(ewtest::randomFloats(257, -4, 4, 7));
  hv[0] = poplar::floatToHalfBits(1.0f);
  ewtest::write(engine, "h", hv);
  engine.run();
  const auto got = ewtest::fromHalf(ewtest::read<std::uint16_t>(engine, "out", 257));
  const auto gsq = ewtest::fromHalf(ewtest::read<std::uint16_t>(engine, "sq", 257));
  const auto x = ewtest::fromHalf(hv);
  const float small = ewtest::roundHalf(0.0001f);
  EXPECT_NE(got[0], 0.0f);
  for (std::size_t k = 0; k < 257; ++k) {
    EXPECT_EQ(got[k], ewtest::roundHalf((x[k] + small) - x[k])) << k;
    EXPECT_EQ(gsq[k], ewtest::roundHalf(std::sqrt(x[k] * x[k] + 1.0f))) << k;
  }
}

TEST(MapExpr, SelectAndComparisonsInOneExpression) {
  Fixture f(4);
  Tensor a = f.var(FLOAT, {301}, "a");
  Tensor b = f.var(FLOAT, {301}, "b");
  using namespace pe;
  Tensor out = popops::map(f.graph, Select(_1, _2 * 2.0f, _1 > _2 && _1 > 0.0f), {a, b}, f.prog);
  f.read("out", out);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto av = ewtest::randomFloats(301, -2, 2, 8);
  const auto bv = ewtest::randomFloats(301, -2, 2, 9);
  ewtest::write(engine, "a", av);
  ewtest::write(engine, "b", bv);
  engine.run();
  const auto got = ewtest::read<float>(engine, "out", 301);
  for (std::size_t k = 0; k < 301; ++k)
    EXPECT_EQ(got[k], (av[k] > bv[k] && av[k] > 0) ? av[k] : bv[k] * 2.0f) << k;
}

TEST(MapExpr, ComparisonsWithNaNAreAsInCpp) {
  // NaN is unordered: every comparison with it is false except !=, which is true (so x != x is
  // the NaN test it is in C++).
  Fixture f(1);
  Tensor a = f.var(FLOAT, {40}, "a");
  Tensor b = f.var(FLOAT, {40}, "b");
  using namespace pe;
  const std::vector<std::pair<const char *, std::function<bool(float, float)>>> ops{
      {"eq", [](float x, float y) { return x == y; }},
      {"ne", [](float x, float y) { return x != y; }},
      {"lt", [](float x, float y) { return x < y; }},
      {"ge", [](float x, float y) { return x >= y; }}};
  std::vector<Tensor> outs{popops::map(f.graph, _1 == _2, {a, b}, f.prog),
                           popops::map(f.graph, _1 != _2, {a, b}, f.prog),
                           popops::map(f.graph, _1 < _2, {a, b}, f.prog),
                           popops::map(f.graph, _1 >= _2, {a, b}, f.prog)};
  for (std::size_t i = 0; i < outs.size(); ++i)
    f.read(ops[i].first, outs[i]);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  std::vector<float> av(40), bv(40);
  for (std::size_t k = 0; k < 40; ++k) {
    av[k] = k % 3 == 0 ? std::nanf("") : float(k % 5);
    bv[k] = k % 4 == 0 ? std::nanf("") : float(k % 7);
  }
  ewtest::write(engine, "a", av);
  ewtest::write(engine, "b", bv);
  engine.run();
  for (std::size_t i = 0; i < outs.size(); ++i) {
    const auto got = ewtest::read<unsigned char>(engine, ops[i].first, 40);
    for (std::size_t k = 0; k < 40; ++k)
      ASSERT_EQ(got[k] != 0, ops[i].second(av[k], bv[k])) << ops[i].first << " " << k;
  }
}

TEST(MapExpr, ExpressionsPrintAsPopLibsNamesThem) {
  using namespace pe;
  EXPECT_EQ((Sqrt(_1) + 2.0f).name(), "ADD(SQRT(_1), 2:float)");
  EXPECT_TRUE((_1 * _2).deepEquals(Mul(_1, _2)));
  EXPECT_FALSE((_1 * _2).deepEquals(Mul(_2, _1)));
  EXPECT_TRUE(Const(3).isA<Const>());
}

TEST(MapExpr, ManyRunsPerTileShareOneTwoDimensionalVertex) {
  // Every other element on tile 0, the rest on tile 1: each tile holds 600 one-element runs.
  // The map gives each tile one MapExpr2D vertex over all of them, with a HALF operand (in2)
  // and a BOOL one (in1) beside the FLOAT ones (in4), each region reading its own pieces.
  Fixture f(2);
  const std::size_t n = 1200;
  Tensor a = f.graph.addVariable(FLOAT, {n}, "a");
  Tensor h = f.graph.addVariable(HALF, {n}, "h");
  Tensor c = f.graph.addVariable(BOOL, {n}, "c");
  for (std::size_t i = 0; i < n; ++i)
    for (const Tensor &t : {a, h, c})
      f.graph.setTileMapping(t.slice(i, i + 1), static_cast<unsigned>(i % 2));
  for (const auto &[t, name] : {std::pair{a, "a"}, std::pair{h, "h"}, std::pair{c, "c"}})
    f.graph.createHostWrite(name, t);
  using namespace pe;
  Tensor out = popops::map(f.graph, Select(_1 * 2.0f, Cast(_2, FLOAT) - _1, _3), {a, h, c}, f.prog,
                           "select");
  f.read("out", out);

  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto estimates = engine.getVertexCycleEstimates();
  ASSERT_EQ(estimates.size(), 2u);
  for (const auto &e : estimates)
    EXPECT_EQ(e.vertexType, "popops::MapExpr2D<float>");

  const auto av = ewtest::randomFloats(n, -3, 3, 5);
  const auto hv = ewtest::randomFloats(n, -3, 3, 6);
  std::vector<half> hh(hv.begin(), hv.end());
  std::vector<char> cv(n);
  for (std::size_t i = 0; i < n; ++i)
    cv[i] = static_cast<char>(i % 3 == 0);
  ewtest::write(engine, "a", av);
  engine.writeTensor("h", hh.data(), hh.data() + hh.size());
  engine.writeTensor("c", cv.data(), cv.data() + cv.size());
  engine.run();
  const auto got = ewtest::read<float>(engine, "out", n);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], cv[i] ? av[i] * 2.0f : static_cast<float>(hh[i]) - av[i]) << i;
}

TEST(MapExpr, APerChannelOperandIsReadOnceNotExchangedPerElement) {
  // x [4 channels][256] channel-major over 4 tiles (one channel each), scale [4][1] on tile 0:
  // each tile's vertex reads its channel's scale as a scalar, so the map exchanges 3 × 4 bytes
  // (tiles 1-3 fetch one element each), not 3 × 256 × 4.
  Fixture f(4);
  Tensor x = f.graph.addVariable(FLOAT, {4, 256}, "x");
  for (unsigned c = 0; c < 4; ++c)
    f.graph.setTileMapping(x[c], c);
  Tensor scale = f.graph.addVariable(FLOAT, {4, 1}, "scale");
  f.graph.setTileMapping(scale, 0);
  f.graph.createHostWrite("x", x);
  f.graph.createHostWrite("scale", scale);
  using namespace pe;
  Tensor out = popops::map(f.graph, _1 * _2 + 1.0f, {x, scale}, f.prog, "scaled");
  f.read("out", out);

  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  EXPECT_EQ(exchangeBytesOf(engine, "scaled"), 3u * 4u);

  const auto xv = ewtest::randomFloats(4 * 256, -3, 3, 7);
  const std::vector<float> sv{0.5f, -2.0f, 3.0f, 0.25f};
  ewtest::write(engine, "x", xv);
  ewtest::write(engine, "scale", sv);
  engine.run();
  const auto got = ewtest::read<float>(engine, "out", xv.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], xv[i] * sv[i / 256] + 1.0f) << i;
}

TEST(MapExpr, AGateOverManyPlanesPerTileIsReadAsScalars) {
  // x [2 samples][6 channels][4][4] on 2 tiles, 6 whole planes of 16 each, gate [2][6][1][1] on
  // tile 0 (a squeeze-and-excite gate): the map cuts each tile's run at the plane boundaries, so
  // tile 1 fetches its 6 gate elements, not 6 × 16 repetitions of them.
  Fixture f(2);
  Tensor x = f.graph.addVariable(FLOAT, {2, 6, 4, 4}, "x");
  f.graph.setTileMapping(x[0], 0);
  f.graph.setTileMapping(x[1], 1);
  Tensor gate = f.graph.addVariable(FLOAT, {2, 6, 1, 1}, "gate");
  f.graph.setTileMapping(gate, 0);
  f.graph.createHostWrite("x", x);
  f.graph.createHostWrite("gate", gate);
  using namespace pe;
  Tensor out = popops::map(f.graph, _1 * _2 - 0.5f, {x, gate}, f.prog, "excite");
  f.read("out", out);

  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  EXPECT_EQ(exchangeBytesOf(engine, "excite"), 6u * 4u);

  const auto xv = ewtest::randomFloats(2 * 6 * 16, -3, 3, 8);
  const auto gv = ewtest::randomFloats(2 * 6, -2, 2, 9);
  ewtest::write(engine, "x", xv);
  ewtest::write(engine, "gate", gv);
  engine.run();
  const auto got = ewtest::read<float>(engine, "out", xv.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], xv[i] * gv[i / 16] - 0.5f) << i;
}

TEST(MapExpr, ABiasRowOverManyRowsIsReadInPlaceNotExchangedPerRow) {
  // x [37][100] linearly over 3 tiles (runs begin mid-row: phases 0, 34, 67), a bias row [100]
  // on tile 0, FLOAT and HALF: tiles 1 and 2 each fetch the row once (100 elements), not a copy
  // for each of their ~12 rows.
  Fixture f(3);
  Tensor x = f.var(FLOAT, {37, 100}, "x");
  Tensor biasF = f.graph.addVariable(FLOAT, {100}, "biasF");
  Tensor biasH = f.graph.addVariable(HALF, {100}, "biasH");
  f.graph.setTileMapping(biasF, 0);
  f.graph.setTileMapping(biasH, 0);
  f.graph.createHostWrite("biasF", biasF);
  f.graph.createHostWrite("biasH", biasH);
  using namespace pe;
  Tensor outF = popops::map(f.graph, _1 + _2 * 2.0f, {x, biasF}, f.prog, "rowF");
  Tensor outH = popops::map(f.graph, _1 - Cast(_2, FLOAT), {x, biasH}, f.prog, "rowH");
  f.read("outF", outF);
  f.read("outH", outH);

  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  EXPECT_EQ(exchangeBytesOf(engine, "rowF"), 2u * 100u * 4u);
  EXPECT_EQ(exchangeBytesOf(engine, "rowH"), 2u * 100u * 2u);

  const auto xv = ewtest::randomFloats(37 * 100, -3, 3, 12);
  const auto bv = ewtest::randomFloats(100, -2, 2, 13);
  const auto bhBits = ewtest::toHalf(bv);
  const auto bh = ewtest::fromHalf(bhBits);
  ewtest::write(engine, "x", xv);
  ewtest::write(engine, "biasF", bv);
  ewtest::write(engine, "biasH", bhBits);
  engine.run();
  const auto gotF = ewtest::read<float>(engine, "outF", xv.size());
  const auto gotH = ewtest::read<float>(engine, "outH", xv.size());
  for (std::size_t i = 0; i < xv.size(); ++i) {
    ASSERT_EQ(gotF[i], xv[i] + bv[i % 100] * 2.0f) << i;
    ASSERT_EQ(gotH[i], xv[i] - bh[i % 100]) << i;
  }
}

TEST(MapExpr, ARepeatedSubexpressionIsComputedOnce) {
  // tanh(a)·tanh(a) + tanh(a) runs as many instructions as tanh(a)·a + a (a tanh, a product, a
  // sum): the tanh written three times is one node. Same bits as the values computed apart.
  auto instructions = [](const pe::Expr &e) {
    Fixture f(1);
    Tensor a = f.var(FLOAT, {64}, "a");
    Tensor out = popops::map(f.graph, e, {a}, f.prog, "map");
    f.read("out", out);
    Engine engine(f.graph, f.prog);
    engine.load(f.dev);
    const auto estimates = engine.getVertexCycleEstimates();
    EXPECT_EQ(estimates.size(), 1u);
    const auto av = ewtest::randomFloats(64, -2, 2, 11);
    ewtest::write(engine, "a", av);
    engine.run();
    const auto got = ewtest::read<float>(engine, "out", 64);
    for (std::size_t i = 0; i < got.size(); ++i) {
      const float t = std::tanh(av[i]);
      EXPECT_NEAR(got[i], t * t + t, 1e-5f) << i;
    }
    return estimates.front().effective();
  };
  using namespace pe;
  const auto shared = instructions(Tanh(_1) * Tanh(_1) + Tanh(_1));
  Fixture f(1);
  Tensor a = f.var(FLOAT, {64}, "a");
  popops::map(f.graph, Tanh(_1) * _1 + _1, {a}, f.prog, "map");
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  EXPECT_EQ(shared, engine.getVertexCycleEstimates().front().effective());
}

namespace {

/// GELU's tanh form and its input gradient, written out as popnn::nonLinearity writes them, with
/// x and dy standing for any subexpressions.
template <class X> auto geluExpr(const X &x) {
  using namespace pe;
  return x * 0.5f * (1.0f + Tanh(x * 0.7978845608f * (1.0f + 0.044715f * x * x)));
}
template <class X, class Dy> auto geluGradExpr(const X &x, const Dy &dy) {
  using namespace pe;
  const auto t = Tanh(x * 0.7978845608f * (1.0f + 0.044715f * x * x));
  const auto dInner = 0.7978845608f * (1.0f + 3.0f * 0.044715f * x * x);
  return dy * (0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * dInner);
}
double geluRef(double x) {
  return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

/// The map of `e` over a = _1 and b = _2 ([1000] each, values in [-6, 6]): its one vertex's
/// estimated cycles and its results.
std::pair<std::uint64_t, std::vector<float>>
runOnTwoInputs(const pe::Expr &e, std::vector<float> &av, std::vector<float> &bv) {
  Fixture f(1);
  Tensor a = f.var(FLOAT, {1000}, "a");
  Tensor b = f.var(FLOAT, {1000}, "b");
  Tensor out = popops::map(f.graph, e, {a, b}, f.prog, "map");
  f.read("out", out);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto estimates = engine.getVertexCycleEstimates();
  EXPECT_EQ(estimates.size(), 1u);
  av = ewtest::randomFloats(1000, -6, 6, 21);
  bv = ewtest::randomFloats(1000, -6, 6, 22);
  ewtest::write(engine, "a", av);
  ewtest::write(engine, "b", bv);
  engine.run();
  return {estimates.front().effective(), ewtest::read<float>(engine, "out", 1000)};
}

} // namespace

TEST(MapExpr, TheTanhGeluAndItsGradientRunAsOneFusedKernel) {
  // GELU(a + b) costs what tanh(a + b) does (a sum, then one op), not one pass per operation.
  using namespace pe;
  std::vector<float> av, bv;
  const auto tanhCost = runOnTwoInputs(Tanh(_1 + _2), av, bv).first;
  const auto [geluCost, gelu] = runOnTwoInputs(geluExpr(_1 + _2), av, bv);
  EXPECT_EQ(geluCost, tanhCost);
  for (std::size_t i = 0; i < gelu.size(); ++i) {
    const double ref = geluRef(double(av[i]) + bv[i]);
    ASSERT_NEAR(gelu[i], ref, 2e-6 * std::max(1.0, std::fabs(ref))) << i;
  }

  // dy = b, x = a: against a central difference of the reference in double.
  const auto [gradCost, grad] = runOnTwoInputs(geluGradExpr(_1, _2), av, bv);
  EXPECT_EQ(gradCost, runOnTwoInputs(_1 * _2, av, bv).first);
  for (std::size_t i = 0; i < grad.size(); ++i) {
    const double h = 1e-5, x = av[i];
    const double ref = bv[i] * (geluRef(x + h) - geluRef(x - h)) / (2 * h);
    ASSERT_NEAR(grad[i], ref, 1e-5 * std::max(1.0, std::fabs(ref))) << i;
  }
}

TEST(MapExpr, AnExpressionThatOnlyResemblesGeluIsComputedAsWritten) {
  // Another constant (0.045 for 0.044715): no fused kernel, each operation as written.
  using namespace pe;
  std::vector<float> av, bv;
  const auto near =
      _1 * 0.5f * (1.0f + Tanh(_1 * 0.7978845608f * (1.0f + 0.045f * _1 * _1))) + _2 * 0.0f;
  const auto [cost, got] = runOnTwoInputs(near, av, bv);
  EXPECT_GT(cost, runOnTwoInputs(geluExpr(_1) + _2 * 0.0f, av, bv).first);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double x = av[i];
    const double ref = 0.5 * x * (1.0 + std::tanh(0.7978845608 * x * (1.0 + 0.045 * x * x)));
    ASSERT_NEAR(got[i], ref, 2e-6 * std::max(1.0, std::fabs(ref))) << i;
  }
}
