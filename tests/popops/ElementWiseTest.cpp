// The named element-wise operations (popops/ElementWise.hpp) against host loops: every op on
// FLOAT, the integer ops on INT and UNSIGNED_INT, HALF, comparisons and logic, InPlace and
// WithOutput, one and many tiles, odd sizes and views.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include <popops/ElementWise.hpp>

#include "ElementWiseTestSupport.hpp"

using namespace poplar;
using namespace poplar::program;
using ewtest::Fixture;

namespace {

using UnaryFn = std::function<Tensor(Graph &, const Tensor &, Sequence &)>;
struct UnaryCase {
  const char *name;
  UnaryFn op;
  double (*ref)(double);
  float lo, hi;
  double tol; // relative to max(1, |ref|)
};

const UnaryCase kUnaryCases[] = {
    {"neg", [](Graph &g, const Tensor &a, Sequence &p) { return popops::neg(g, a, p); },
     [](double x) { return -x; }, -5, 5, 0},
    {"abs", [](Graph &g, const Tensor &a, Sequence &p) { return popops::abs(g, a, p); },
     [](double x) { return std::fabs(x); }, -5, 5, 0},
    {"exp", [](Graph &g, const Tensor &a, Sequence &p) { return popops::exp(g, a, p); },
     [](double x) { return std::exp(x); }, -10, 10, 1e-6},
    {"log", [](Graph &g, const Tensor &a, Sequence &p) { return popops::log(g, a, p); },
     [](double x) { return std::log(x); }, 0.01f, 100, 1e-6},
    {"log1p", [](Graph &g, const Tensor &a, Sequence &p) { return popops::log1p(g, a, p); },
     [](double x) { return std::log1p(x); }, -0.9f, 10, 1e-6},
    {"sqrt", [](Graph &g, const Tensor &a, Sequence &p) { return popops::sqrt(g, a, p); },
     [](double x) { return std::sqrt(x); }, 0, 100, 1e-7},
    {"rsqrt", [](Graph &g, const Tensor &a, Sequence &p) { return popops::rsqrt(g, a, p); },
     [](double x) { return 1 / std::sqrt(x); }, 0.01f, 100, 1e-6},
    {"square", [](Graph &g, const Tensor &a, Sequence &p) { return popops::square(g, a, p); },
     [](double x) { return x * x; }, -5, 5, 1e-7},
    {"tanh", [](Graph &g, const Tensor &a, Sequence &p) { return popops::tanh(g, a, p); },
     [](double x) { return std::tanh(x); }, -6, 6, 1e-6},
    {"sigmoid", [](Graph &g, const Tensor &a, Sequence &p) { return popops::sigmoid(g, a, p); },
     [](double x) { return 1 / (1 + std::exp(-x)); }, -10, 10, 1e-6},
    {"signum", [](Graph &g, const Tensor &a, Sequence &p) { return popops::signum(g, a, p); },
     [](double x) { return double((x > 0) - (x < 0)); }, -5, 5, 0},
    {"floor", [](Graph &g, const Tensor &a, Sequence &p) { return popops::floor(g, a, p); },
     [](double x) { return std::floor(x); }, -5, 5, 0},
    {"ceil", [](Graph &g, const Tensor &a, Sequence &p) { return popops::ceil(g, a, p); },
     [](double x) { return std::ceil(x); }, -5, 5, 0},
    {"round", [](Graph &g, const Tensor &a, Sequence &p) { return popops::round(g, a, p); },
     [](double x) { return std::round(x); }, -5, 5, 0},
    {"cos", [](Graph &g, const Tensor &a, Sequence &p) { return popops::cos(g, a, p); },
     [](double x) { return std::cos(x); }, -10, 10, 1e-6},
    {"sin", [](Graph &g, const Tensor &a, Sequence &p) { return popops::sin(g, a, p); },
     [](double x) { return std::sin(x); }, -10, 10, 1e-6},
    {"erf", [](Graph &g, const Tensor &a, Sequence &p) { return popops::erf(g, a, p); },
     [](double x) { return std::erf(x); }, -4, 4, 1e-6},
};

class UnaryFloat : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(UnaryFloat, MatchesHostReferenceOnManyTilesAndOddSize) {
  const UnaryCase &c = GetParam();
  Fixture f(16);
  Tensor a = f.var(FLOAT, {1001}, "a");
  Tensor out = c.op(f.graph, a, f.prog);
  f.read("out", out);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  auto av = ewtest::randomFloats(1001, c.lo, c.hi, 11);
  if (c.lo <= -2.5f) { // halfway cases for round, and zero
    av[0] = 0.5f;
    av[1] = -2.5f;
    av[2] = 0.0f;
  }
  ewtest::write(engine, "a", av);
  engine.run();
  const auto got = ewtest::read<float>(engine, "out", 1001);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double want = c.ref(av[i]);
    if (c.tol == 0)
      ASSERT_EQ(got[i], static_cast<float>(want)) << c.name << "(" << av[i] << ")";
    else
      ASSERT_NEAR(got[i], want, c.tol * std::max(1.0, std::fabs(want)))
          << c.name << "(" << av[i] << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(ElementWise, UnaryFloat, ::testing::ValuesIn(kUnaryCases),
                         [](const auto &info) { return std::string(info.param.name); });

TEST(ElementWise, BinaryFloatOpsOnOneTile) {
  Fixture f(1);
  Tensor a = f.var(FLOAT, {7, 13}, "a");
  Tensor b = f.var(FLOAT, {7, 13}, "b");
  Tensor add = popops::add(f.graph, a, b, f.prog);
  Tensor sub = popops::sub(f.graph, a, b, f.prog);
  Tensor mul = popops::mul(f.graph, a, b, f.prog);
  Tensor div = popops::div(f.graph, a, b, f.prog);
  Tensor pow = popops::pow(f.graph, a, b, f.prog);
  Tensor mx = popops::max(f.graph, a, b, f.prog);
  Tensor mn = popops::min(f.graph, a, b, f.prog);
  for (auto [n, t] : {std::pair{"add", add},
                      {"sub", sub},
                      {"mul", mul},
                      {"div", div},
                      {"pow", pow},
                      {"max", mx},
                      {"min", mn}})
    f.read(n, t);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto av = ewtest::randomFloats(91, 0.1f, 4, 12);
  const auto bv = ewtest::randomFloats(91, -3, 3, 13);
  ewtest::write(engine, "a", av);
  ewtest::write(engine, "b", bv);
  engine.run();
  const auto gadd = ewtest::read<float>(engine, "add", 91);
  const auto gsub = ewtest::read<float>(engine, "sub", 91);
  const auto gmul = ewtest::read<float>(engine, "mul", 91);
  const auto gdiv = ewtest::read<float>(engine, "div", 91);
  const auto gpow = ewtest::read<float>(engine, "pow", 91);
  const auto gmax = ewtest::read<float>(engine, "max", 91);
  const auto gmin = ewtest::read<float>(engine, "min", 91);
  for (std::size_t i = 0; i < 91; ++i) {
    EXPECT_EQ(gadd[i], av[i] + bv[i]);
    EXPECT_EQ(gsub[i], av[i] - bv[i]);
    EXPECT_EQ(gmul[i], av[i] * bv[i]);
    EXPECT_EQ(gdiv[i], av[i] / bv[i]);
    EXPECT_NEAR(gpow[i], std::pow(double(av[i]), double(bv[i])),
                1e-6 * std::max(1.0, std::pow(double(av[i]), double(bv[i]))));
    EXPECT_EQ(gmax[i], std::max(av[i], bv[i]));
    EXPECT_EQ(gmin[i], std::min(av[i], bv[i]));
  }
}

TEST(ElementWise, IntegerOps) {
  Fixture f(4);
  Tensor a = f.var(INT, {203}, "a");
  Tensor b = f.var(INT, {203}, "b");
  Tensor add = popops::add(f.graph, a, b, f.prog);
  Tensor sub = popops::sub(f.graph, a, b, f.prog);
  Tensor mul = popops::mul(f.graph, a, b, f.prog);
  Tensor div = popops::div(f.graph, a, b, f.prog);
  Tensor mx = popops::max(f.graph, a, b, f.prog);
  Tensor mn = popops::min(f.graph, a, b, f.prog);
  Tensor ab = popops::abs(f.graph, a, f.prog);
  Tensor ng = popops::neg(f.graph, a, f.prog);
  Tensor sg = popops::signum(f.graph, a, f.prog);
  Tensor sq = popops::square(f.graph, a, f.prog);
  Tensor lt = popops::lt(f.graph, a, b, f.prog);
  Tensor cl = popops::clamp(f.graph, a, -50, 50, f.prog);
  EXPECT_EQ(add.elementType(), INT);
  EXPECT_EQ(lt.elementType(), BOOL);
  for (auto [n, t] : {std::pair{"add", add},
                      {"sub", sub},
                      {"mul", mul},
                      {"div", div},
                      {"max", mx},
                      {"min", mn},
                      {"abs", ab},
                      {"neg", ng},
                      {"signum", sg},
                      {"square", sq},
                      {"lt", lt},
                      {"clamp", cl}})
    f.read(n, t);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto av = ewtest::randomInts(203, -1000, 1000, 14);
  auto bv = ewtest::randomInts(203, -30, 30, 15);
  for (auto &x : bv)
    x = x == 0 ? 7 : x;
  ewtest::write(engine, "a", av);
  ewtest::write(engine, "b", bv);
  engine.run();
  auto r = [&](const char *n) { return ewtest::read<int>(engine, n, 203); };
  const auto gadd = r("add"), gsub = r("sub"), gmul = r("mul"), gdiv = r("div"), gmax = r("max"),
             gmin = r("min"), gabs = r("abs"), gneg = r("neg"), gsg = r("signum"),
             gsq = r("square"), gcl = r("clamp");
  const auto glt = ewtest::readBool(engine, "lt", 203);
  for (std::size_t i = 0; i < 203; ++i) {
    EXPECT_EQ(gadd[i], av[i] + bv[i]);
    EXPECT_EQ(gsub[i], av[i] - bv[i]);
    EXPECT_EQ(gmul[i], av[i] * bv[i]);
    EXPECT_EQ(gdiv[i], av[i] / bv[i]);
    EXPECT_EQ(gmax[i], std::max(av[i], bv[i]));
    EXPECT_EQ(gmin[i], std::min(av[i], bv[i]));
    EXPECT_EQ(gabs[i], std::abs(av[i]));
    EXPECT_EQ(gneg[i], -av[i]);
    EXPECT_EQ(gsg[i], (av[i] > 0) - (av[i] < 0));
    EXPECT_EQ(gsq[i], av[i] * av[i]);
    EXPECT_EQ(glt[i], av[i] < bv[i] ? 1 : 0);
    EXPECT_EQ(gcl[i], std::clamp(av[i], -50, 50));
  }
}

TEST(ElementWise, UnsignedOpsCompareAndDivideAsUnsigned) {
  Fixture f(2);
  Tensor a = f.var(UNSIGNED_INT, {6}, "a");
  Tensor b = f.var(UNSIGNED_INT, {6}, "b");
  Tensor div = popops::div(f.graph, a, b, f.prog);
  Tensor gt = popops::gt(f.graph, a, b, f.prog);
  Tensor mx = popops::max(f.graph, a, b, f.prog);
  Tensor add = popops::add(f.graph, a, 1u, f.prog);
  f.read("div", div);
  f.read("gt", gt);
  f.read("max", mx);
  f.read("add", add);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  std::vector<unsigned> av = {0xffffffffu, 3, 0x80000000u, 100, 7, 0};
  std::vector<unsigned> bv = {2, 0x90000000u, 1, 7, 100, 5};
  ewtest::write(engine, "a", av);
  ewtest::write(engine, "b", bv);
  engine.run();
  const auto gdiv = ewtest::read<unsigned>(engine, "div", 6);
  const auto ggt = ewtest::readBool(engine, "gt", 6);
  const auto gmax = ewtest::read<unsigned>(engine, "max", 6);
  const auto gadd = ewtest::read<unsigned>(engine, "add", 6);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(gdiv[i], av[i] / bv[i]) << i;
    EXPECT_EQ(ggt[i], av[i] > bv[i] ? 1 : 0) << i;
    EXPECT_EQ(gmax[i], std::max(av[i], bv[i])) << i;
    EXPECT_EQ(gadd[i], av[i] + 1u) << i;
  }
}

TEST(ElementWise, HalfOpsRoundTheFloatResult) {
  Fixture f(4);
  Tensor a = f.var(HALF, {99}, "a");
  Tensor b = f.var(HALF, {99}, "b");
  Tensor add = popops::add(f.graph, a, b, f.prog);
  Tensor mul = popops::mul(f.graph, a, b, f.prog);
  Tensor ex = popops::exp(f.graph, a, f.prog);
  Tensor ge = popops::gteq(f.graph, a, b, f.prog);
  EXPECT_EQ(add.elementType(), HALF);
  f.read("add", add);
  f.read("mul", mul);
  f.read("exp", ex);
  f.read("ge", ge);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto ah = ewtest::toHalf(ewtest::randomFloats(99, -3, 3, 16));
  const auto bh = ewtest::toHalf(ewtest::randomFloats(99, -3, 3, 17));
  ewtest::write(engine, "a", ah);
  ewtest::write(engine, "b", bh);
  engine.run();
  const auto av = ewtest::fromHalf(ah), bv = ewtest::fromHalf(bh);
  const auto gadd = ewtest::fromHalf(ewtest::read<std::uint16_t>(engine, "add", 99));
  const auto gmul = ewtest::fromHalf(ewtest::read<std::uint16_t>(engine, "mul", 99));
  const auto gexp = ewtest::fromHalf(ewtest::read<std::uint16_t>(engine, "exp", 99));
  const auto gge = ewtest::readBool(engine, "ge", 99);
  for (std::size_t i = 0; i < 99; ++i) {
    EXPECT_EQ(gadd[i], ewtest::roundHalf(av[i] + bv[i])) << i;
    EXPECT_EQ(gmul[i], ewtest::roundHalf(av[i] * bv[i])) << i;
    EXPECT_NEAR(gexp[i], std::exp(av[i]), 1e-3 * std::exp(av[i])) << i;
    EXPECT_EQ(gge[i], av[i] >= bv[i] ? 1 : 0) << i;
  }
}

TEST(ElementWise, ComparisonsAndLogicGiveBool) {
  Fixture f(4);
  Tensor a = f.var(FLOAT, {77}, "a");
  Tensor b = f.var(FLOAT, {77}, "b");
  Tensor eq = popops::eq(f.graph, a, b, f.prog);
  Tensor ne = popops::neq(f.graph, a, b, f.prog);
  Tensor le = popops::lte(f.graph, a, b, f.prog);
  Tensor gt = popops::gt(f.graph, a, b, f.prog);
  Tensor andT = popops::logicalAnd(f.graph, le, ne, f.prog);
  Tensor orT = popops::logicalOr(f.graph, eq, gt, f.prog);
  Tensor notT = popops::logicalNot(f.graph, gt, f.prog);
  EXPECT_EQ(andT.elementType(), BOOL);
  for (auto [n, t] :
       {std::pair{"eq", eq}, {"ne", ne}, {"le", le}, {"and", andT}, {"or", orT}, {"not", notT}})
    f.read(n, t);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  auto av = ewtest::randomFloats(77, -2, 2, 18);
  auto bv = ewtest::randomFloats(77, -2, 2, 19);
  for (std::size_t i = 0; i < 77; i += 5)
    bv[i] = av[i];
  ewtest::write(engine, "a", av);
  ewtest::write(engine, "b", bv);
  engine.run();
  auto r = [&](const char *n) { return ewtest::readBool(engine, n, 77); };
  const auto geq = r("eq"), gne = r("ne"), gle = r("le"), gand = r("and"), gor = r("or"),
             gnot = r("not");
  for (std::size_t i = 0; i < 77; ++i) {
    EXPECT_EQ(geq[i], av[i] == bv[i]);
    EXPECT_EQ(gne[i], av[i] != bv[i]);
    EXPECT_EQ(gle[i], av[i] <= bv[i]);
    EXPECT_EQ(gand[i], av[i] < bv[i]);
    EXPECT_EQ(gor[i], av[i] >= bv[i]);
    EXPECT_EQ(gnot[i], av[i] <= bv[i]);
  }
}

TEST(ElementWise, SelectAndClampWithTensors) {
  Fixture f(4);
  Tensor a = f.var(FLOAT, {50}, "a");
  Tensor b = f.var(FLOAT, {50}, "b");
  Tensor c = f.var(BOOL, {50}, "c");
  Tensor lo = f.var(FLOAT, {50}, "lo");
  Tensor sel = popops::select(f.graph, a, b, c, f.prog);
  Tensor cl = popops::clamp(f.graph, a, lo, b, f.prog);
  Tensor clc = popops::clamp(f.graph, a, -0.5f, 0.5f, f.prog);
  f.read("sel", sel);
  f.read("cl", cl);
  f.read("clc", clc);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto av = ewtest::randomFloats(50, -2, 2, 20);
  const auto bv = ewtest::randomFloats(50, 0, 2, 21);
  const auto lov = ewtest::randomFloats(50, -2, 0, 22);
  std::vector<unsigned char> cv(50);
  for (std::size_t i = 0; i < 50; ++i)
    cv[i] = (i % 3) == 0;
  ewtest::write(engine, "a", av);
  ewtest::write(engine, "b", bv);
  ewtest::write(engine, "c", cv);
  ewtest::write(engine, "lo", lov);
  engine.run();
  const auto gsel = ewtest::read<float>(engine, "sel", 50);
  const auto gcl = ewtest::read<float>(engine, "cl", 50);
  const auto gclc = ewtest::read<float>(engine, "clc", 50);
  for (std::size_t i = 0; i < 50; ++i) {
    EXPECT_EQ(gsel[i], cv[i] ? av[i] : bv[i]);
    EXPECT_EQ(gcl[i], std::min(std::max(av[i], lov[i]), bv[i]));
    EXPECT_EQ(gclc[i], std::clamp(av[i], -0.5f, 0.5f));
  }
}

TEST(ElementWise, InPlaceAndWithOutputVariants) {
  Fixture f(4);
  Tensor a = f.var(FLOAT, {65}, "a");
  Tensor b = f.var(FLOAT, {65}, "b");
  Tensor c = f.var(FLOAT, {65}, "c");
  Tensor out = f.graph.addVariable(FLOAT, {65}, "out");
  poputil::mapTensorLinearly(f.graph, out);
  popops::addInPlace(f.graph, a, b, f.prog);    // a = a + b
  popops::mulInPlace(f.graph, a, 2.0f, f.prog); // a = 2(a + b)
  popops::sqrtInPlace(f.graph, c, f.prog);
  popops::subWithOutput(f.graph, a, c, out, f.prog);
  Tensor sel = f.graph.clone(a, "selOut");
  popops::selectWithOutput(f.graph, a, c, popops::gt(f.graph, a, c, f.prog), sel, f.prog);
  f.read("a", a);
  f.read("c", c);
  f.read("out", out);
  f.read("sel", sel);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto av = ewtest::randomFloats(65, -2, 2, 23);
  const auto bv = ewtest::randomFloats(65, -2, 2, 24);
  const auto cv = ewtest::randomFloats(65, 0, 4, 25);
  ewtest::write(engine, "a", av);
  ewtest::write(engine, "b", bv);
  ewtest::write(engine, "c", cv);
  engine.run();
  const auto ga = ewtest::read<float>(engine, "a", 65);
  const auto gc = ewtest::read<float>(engine, "c", 65);
  const auto gout = ewtest::read<float>(engine, "out", 65);
  const auto gsel = ewtest::read<float>(engine, "sel", 65);
  for (std::size_t i = 0; i < 65; ++i) {
    const float na = (av[i] + bv[i]) * 2.0f, nc = std::sqrt(cv[i]);
    EXPECT_EQ(ga[i], na);
    EXPECT_EQ(gc[i], nc);
    EXPECT_EQ(gout[i], na - nc);
    EXPECT_EQ(gsel[i], std::max(na, nc));
  }
}

TEST(ElementWise, TransposedAndSlicedInputs) {
  Fixture f(16);
  Tensor m = f.var(FLOAT, {24, 17}, "m");
  Tensor n = f.var(FLOAT, {17, 24}, "n");
  Tensor sum = popops::add(f.graph, m.transpose(), n, f.prog);                       // [17, 24]
  Tensor part = popops::mul(f.graph, m.slice(3, 10, 1), m.slice(10, 17, 1), f.prog); // [24, 7]
  Tensor shuffled = popops::neg(f.graph, n.reshape({17, 4, 6}).dimShuffle({2, 0, 1}), f.prog);
  f.read("sum", sum);
  f.read("part", part);
  f.read("shuffled", shuffled);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto mv = ewtest::randomFloats(24 * 17, -2, 2, 26);
  const auto nv = ewtest::randomFloats(17 * 24, -2, 2, 27);
  ewtest::write(engine, "m", mv);
  ewtest::write(engine, "n", nv);
  engine.run();
  const auto gsum = ewtest::read<float>(engine, "sum", 17 * 24);
  const auto gpart = ewtest::read<float>(engine, "part", 24 * 7);
  const auto gsh = ewtest::read<float>(engine, "shuffled", 17 * 24);
  for (std::size_t r = 0; r < 17; ++r)
    for (std::size_t c = 0; c < 24; ++c)
      ASSERT_EQ(gsum[r * 24 + c], mv[c * 17 + r] + nv[r * 24 + c]);
  for (std::size_t r = 0; r < 24; ++r)
    for (std::size_t c = 0; c < 7; ++c)
      ASSERT_EQ(gpart[r * 7 + c], mv[r * 17 + 3 + c] * mv[r * 17 + 10 + c]);
  // shuffled[k][i][j] = -n[i][j * 6 + k]
  for (std::size_t k = 0; k < 6; ++k)
    for (std::size_t i = 0; i < 17; ++i)
      for (std::size_t j = 0; j < 4; ++j)
        ASSERT_EQ(gsh[(k * 17 + i) * 4 + j], -nv[i * 24 + j * 6 + k]);
}

TEST(ElementWise, ColumnBlockedTableWithRowMajorOperand) {
  // A table stored as column blocks, one per tile (how sliceable tables are built): a map over
  // it works on each block in memory order, and an operand stored row-major still lines up
  // element by element.
  Fixture f(4);
  std::vector<Tensor> blocks;
  for (unsigned b = 0; b < 3; ++b) {
    blocks.push_back(f.graph.addVariable(FLOAT, {40, 3}, "block" + std::to_string(b)));
    f.graph.setTileMapping(blocks.back(), b);
  }
  Tensor table = concat(blocks, 1); // [40][9]
  f.graph.createHostWrite("table", table);
  Tensor other = f.var(FLOAT, {40, 9}, "other");
  Tensor grad = f.graph.clone(table, "grad");
  f.graph.createHostWrite("grad", grad);
  namespace pe = popops::expr;
  popops::mapInPlace(f.graph, pe::_1 - 0.5f * pe::_2 + pe::_3, {table, grad, other}, f.prog);
  Tensor doubled = popops::mul(f.graph, other, table, f.prog);
  f.read("tableOut", table);
  f.read("doubled", doubled);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto tv = ewtest::randomFloats(40 * 9, -2, 2, 31);
  const auto gv = ewtest::randomFloats(40 * 9, -2, 2, 32);
  const auto ov = ewtest::randomFloats(40 * 9, -2, 2, 33);
  ewtest::write(engine, "table", tv);
  ewtest::write(engine, "grad", gv);
  ewtest::write(engine, "other", ov);
  engine.run();
  const auto gt = ewtest::read<float>(engine, "tableOut", 40 * 9);
  const auto gd = ewtest::read<float>(engine, "doubled", 40 * 9);
  for (std::size_t i = 0; i < 40 * 9; ++i) {
    const float updated = tv[i] - 0.5f * gv[i] + ov[i];
    ASSERT_EQ(gt[i], updated) << i;
    ASSERT_EQ(gd[i], ov[i] * updated) << i;
  }
}

TEST(ElementWise, InPlaceWithAnOverlappingViewReadsTheOldValues) {
  Fixture f(2);
  Tensor a = f.var(FLOAT, {40}, "a");
  // a[0:39] += a[1:40]: every element must see its neighbour's old value.
  popops::addInPlace(f.graph, a.slice(0, 39), a.slice(1, 40), f.prog);
  f.read("a", a);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto av = ewtest::randomFloats(40, -2, 2, 28);
  ewtest::write(engine, "a", av);
  engine.run();
  const auto got = ewtest::read<float>(engine, "a", 40);
  for (std::size_t i = 0; i < 39; ++i)
    EXPECT_EQ(got[i], av[i] + av[i + 1]) << i;
  EXPECT_EQ(got[39], av[39]);
}

} // namespace
