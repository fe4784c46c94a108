// The complete PopLibs expression set against reference/ElementWise.hpp: every op added for
// PopLibs 3.x in FLOAT and HALF (float ops) or INT and UNSIGNED_INT (integer ops), with the edge
// cases (NaN, ±inf, −0, shifts past the width, division by negative numbers and by zero), on two
// tile mappings and with 1 and 2 host threads (bit-identical); the multi-expression map,
// outputGeneratedCodelet, createOutputForElementWiseOp and the type errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <popops/ElementWise.hpp>
#include <popops/ElementWiseUtil.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Common.hpp>
#include <reference/ElementWise.hpp>

#include "ElementWiseTestSupport.hpp"

namespace {

using namespace poplar;
namespace pe = popops::expr;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

enum class Layout { OneTile, Linear16 };

struct Operand {
  Type type;
  std::vector<double> values;
};

std::size_t bytesOf(const Type &t) {
  return t == HALF || t == SHORT || t == UNSIGNED_SHORT ? 2 : (t == BOOL ? 1 : 4);
}

std::vector<unsigned char> encode(const Operand &o) {
  std::vector<unsigned char> out(o.values.size() * bytesOf(o.type));
  for (std::size_t i = 0; i < o.values.size(); ++i) {
    unsigned char *p = out.data() + i * bytesOf(o.type);
    const double v = o.values[i];
    if (o.type == FLOAT) {
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
    } else if (o.type == HALF) {
      const std::uint16_t h = poplar::floatToHalfBits(static_cast<float>(v));
      std::memcpy(p, &h, 2);
    } else if (o.type == INT) {
      const std::int32_t x = static_cast<std::int32_t>(static_cast<std::int64_t>(v));
      std::memcpy(p, &x, 4);
    } else if (o.type == UNSIGNED_INT) {
      const std::uint32_t x = static_cast<std::uint32_t>(static_cast<std::int64_t>(v));
      std::memcpy(p, &x, 4);
    } else if (o.type == SHORT || o.type == UNSIGNED_SHORT) {
      const std::uint16_t x = static_cast<std::uint16_t>(static_cast<std::int64_t>(v));
      std::memcpy(p, &x, 2);
    } else {
      *p = v != 0 ? 1 : 0;
    }
  }
  return out;
}

double decode(const Type &t, const unsigned char *p) {
  if (t == FLOAT) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (t == HALF) {
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    return poplar::halfBitsToFloat(h);
  }
  if (t == INT) {
    std::int32_t x;
    std::memcpy(&x, p, 4);
    return x;
  }
  if (t == UNSIGNED_INT) {
    std::uint32_t x;
    std::memcpy(&x, p, 4);
    return x;
  }
  if (t == SHORT) {
    std::int16_t x;
    std::memcpy(&x, p, 2);
    return x;
  }
  if (t == UNSIGNED_SHORT) {
    std::uint16_t x;
    std::memcpy(&x, p, 2);
    return x;
  }
  return *p;
}

struct Result {
  Type type;
  std::vector<unsigned char> bytes;
  std::vector<double> values;
};

/// Maps `e` over `operands` on a 16-tile device (all on tile 0, or linearly over all 16).
Result runMap(const pe::Expr &e, const std::vector<Operand> &operands, Layout layout,
              unsigned threads = 1) {
  ewtest::Fixture f(16);
  std::vector<Tensor> ts;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    Tensor t = f.var(operands[i].type, {operands[i].values.size()}, name);
    if (layout == Layout::OneTile)
      f.graph.setTileMapping(t, 0);
    ts.push_back(t);
  }
  Tensor out = popops::map(f.graph, e, ts, f.prog, "map");
  f.read("out", out);
  OptionFlags opts;
  opts.set("target.hostThreads", std::to_string(threads));
  Engine engine(f.graph, f.prog, opts);
  engine.load(f.dev);
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const auto bytes = encode(operands[i]);
    engine.writeTensor("in" + std::to_string(i), bytes.data(), bytes.data() + bytes.size());
  }
  engine.run();
  Result r{out.elementType(),
           std::vector<unsigned char>(out.numElements() * bytesOf(out.elementType())),
           {}};
  engine.readTensor("out", r.bytes.data(), r.bytes.data() + r.bytes.size());
  for (std::size_t i = 0; i < out.numElements(); ++i)
    r.values.push_back(decode(r.type, r.bytes.data() + i * bytesOf(r.type)));
  return r;
}

/// Inputs as the device holds them (rounded to float or half).
std::vector<double> held(const Type &t, std::vector<double> v) {
  return reference::roundTo(t, std::move(v));
}

/// A float result against a double reference: both NaN, or equal infinities, or within a
/// relative tolerance of the result type (1 ulp of float; 1 ulp of half after the rounding).
void expectClose(const Type &t, double got, double want, const std::string &what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what << ": got " << got << ", want NaN";
    return;
  }
  if (std::isinf(want)) {
    EXPECT_EQ(got, want) << what;
    return;
  }
  const double rel = t == HALF ? 1.0 / 1024 : 2.4e-7;
  const double tiny = t == HALF ? 6.1e-5 : 1.2e-38;
  EXPECT_NEAR(got, want, rel * std::fabs(want) + tiny) << what;
  if (want == 0 && got == 0) {
    EXPECT_EQ(std::signbit(got), std::signbit(want)) << what << ": the sign of zero";
  }
}

const std::vector<double> kFloatEdges = {0.0,  -0.0,  kInf, -kInf, kNaN,  0.5,   -0.5,
                                         2.5,  -2.5,  3.5,  1.0,   -1.0,  1e-3,  -7.25,
                                         0.75, -0.75, 8.0,  -27.0, 100.0, -100.0};

struct FloatUnaryCase {
  pe::UnaryOpType op;
  double lo, hi; // random inputs in [lo, hi) besides the edge values
};

class FloatUnary : public ::testing::TestWithParam<FloatUnaryCase> {};

TEST_P(FloatUnary, MatchesReferenceInFloatAndHalfOnBothLayouts) {
  const auto c = GetParam();
  const std::string name = pe::toString(c.op);
  std::vector<double> x = reference::randomValues(301, 7, c.lo, c.hi);
  x.insert(x.end(), kFloatEdges.begin(), kFloatEdges.end());
  for (Type t : {FLOAT, HALF}) {
    const auto in = held(t, x);
    const auto want = reference::roundTo(t, reference::elementWiseUnary(name, in));
    for (Layout layout : {Layout::OneTile, Layout::Linear16}) {
      const Result r = runMap(pe::UnaryOp(c.op, pe::_1), {{t, in}}, layout);
      ASSERT_EQ(r.type, t);
      for (std::size_t i = 0; i < in.size(); ++i)
        expectClose(t, r.values[i], want[i],
                    name + " " + t.toString() + " of " + std::to_string(in[i]));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ExprOpsComplete, FloatUnary,
                         ::testing::Values(FloatUnaryCase{pe::UnaryOpType::ASIN, -1, 1},
                                           FloatUnaryCase{pe::UnaryOpType::TAN, -1.5, 1.5},
                                           FloatUnaryCase{pe::UnaryOpType::CBRT, -50, 50},
                                           FloatUnaryCase{pe::UnaryOpType::EXPONENT2, -20, 15},
                                           FloatUnaryCase{pe::UnaryOpType::NEARBY_INT, -20, 20},
                                           FloatUnaryCase{pe::UnaryOpType::GELU_ERF, -10, 10},
                                           FloatUnaryCase{pe::UnaryOpType::TRUNC, -20, 20},
                                           FloatUnaryCase{pe::UnaryOpType::ROUND, -20, 20},
                                           FloatUnaryCase{pe::UnaryOpType::SIGNUM, -2, 2},
                                           FloatUnaryCase{pe::UnaryOpType::SQUARE, -100, 100},
                                           FloatUnaryCase{pe::UnaryOpType::ABSOLUTE, -100, 100},
                                           FloatUnaryCase{pe::UnaryOpType::NEGATE, -100, 100}),
                         [](const auto &info) { return pe::toString(info.param.op); });

TEST(ExprOpsComplete, PredicatesGiveBoolForNaNAndInfinities) {
  const std::vector<double> x = {0.0, -0.0, 1.5, -3.0, kInf, -kInf, kNaN, 65504.0, 1e30};
  for (Type t : {FLOAT, HALF})
    for (auto op : {pe::UnaryOpType::IS_FINITE, pe::UnaryOpType::IS_INF, pe::UnaryOpType::IS_NAN}) {
      const auto in = held(t, x); // 1e30 is +inf in half
      const Result r = runMap(pe::UnaryOp(op, pe::_1), {{t, in}}, Layout::Linear16);
      ASSERT_EQ(r.type, BOOL);
      for (std::size_t i = 0; i < in.size(); ++i)
        EXPECT_EQ(r.values[i] != 0, reference::elementWisePredicate(pe::toString(op), in[i]))
            << pe::toString(op) << " " << t.toString() << " of " << in[i];
    }
}

TEST(ExprOpsComplete, FloatBinaryOpsMatchReferenceWithNegativeOperandsAndSpecials) {
  std::vector<double> a = reference::randomValues(200, 3, -10, 10);
  std::vector<double> b = reference::randomValues(200, 4, -10, 10);
  const std::vector<double> ea = {7.5, -7.5, 7.5, -7.5, 0.0, -0.0, kInf, 1.0, kNaN, 5.0};
  const std::vector<double> eb = {2.0, 2.0, -2.0, -2.0, -1.0, 1.0, 3.0, 0.0, 1.0, kInf};
  a.insert(a.end(), ea.begin(), ea.end());
  b.insert(b.end(), eb.begin(), eb.end());
  for (auto op : {pe::BinaryOpType::ATAN2, pe::BinaryOpType::REMAINDER})
    for (Type t : {FLOAT, HALF}) {
      const auto x = held(t, a), y = held(t, b);
      const auto want = reference::roundTo(t, reference::elementWiseBinary(pe::toString(op), x, y));
      for (Layout layout : {Layout::OneTile, Layout::Linear16}) {
        const Result r = runMap(pe::BinaryOp(op, pe::_1, pe::_2), {{t, x}, {t, y}}, layout);
        for (std::size_t i = 0; i < x.size(); ++i)
          expectClose(t, r.values[i], want[i],
                      pe::toString(op) + " " + t.toString() + " of " + std::to_string(x[i]) + ", " +
                          std::to_string(y[i]));
      }
    }
}

TEST(ExprOpsComplete, VarianceConversionsMatchReferenceAndUndoEachOther) {
  const auto v = reference::randomValues(150, 5, 0.01, 4);
  for (Type t : {FLOAT, HALF}) {
    const auto x = held(t, v);
    const std::vector<double> eps(x.size(), reference::roundTo(t, 1e-3));
    const auto inv =
        reference::roundTo(t, reference::elementWiseBinary("VARIANCE_TO_INV_STD_DEV", x, eps));
    const Result r =
        runMap(pe::VarianceToInvStdDev(pe::_1, pe::_2), {{t, x}, {t, eps}}, Layout::Linear16);
    for (std::size_t i = 0; i < x.size(); ++i)
      expectClose(t, r.values[i], inv[i], "VARIANCE_TO_INV_STD_DEV " + t.toString());
    const auto back =
        reference::roundTo(t, reference::elementWiseBinary("INV_STD_DEV_TO_VARIANCE", inv, eps));
    const Result r2 =
        runMap(pe::InvStdDevToVariance(pe::_1, pe::_2), {{t, inv}, {t, eps}}, Layout::OneTile);
    for (std::size_t i = 0; i < x.size(); ++i) {
      expectClose(t, r2.values[i], back[i], "INV_STD_DEV_TO_VARIANCE " + t.toString());
      EXPECT_NEAR(r2.values[i], x[i], (t == HALF ? 4e-3 : 1e-5) * (1 + x[i]));
    }
  }
}

TEST(ExprOpsComplete, VarianceConversionsWithDstTypeConvertOnce) {
  ewtest::Fixture f(16);
  Tensor v = f.var(FLOAT, {40}, "v");
  Tensor inv = popops::varianceToInvStdDev(f.graph, v, 1e-3f, f.prog); // HALF by default
  EXPECT_EQ(inv.elementType(), HALF);
  Tensor back = popops::invStdDevToVariance(f.graph, inv, 1e-3f, f.prog); // FLOAT by default
  EXPECT_EQ(back.elementType(), FLOAT);
  f.read("inv", inv);
  f.read("back", back);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto vv = ewtest::randomFloats(40, 0.05f, 4, 9);
  ewtest::write(engine, "v", vv);
  engine.run();
  const auto gi = ewtest::fromHalf(ewtest::read<std::uint16_t>(engine, "inv", 40));
  const auto gb = ewtest::read<float>(engine, "back", 40);
  for (std::size_t i = 0; i < vv.size(); ++i) {
    const double want =
        reference::elementWiseBinary("VARIANCE_TO_INV_STD_DEV", vv[i], double(1e-3f));
    expectClose(HALF, gi[i], reference::roundTo(HALF, want), "varianceToInvStdDev");
    // back is computed in half (src is HALF), then converted to FLOAT.
    const double wb =
        reference::roundTo(HALF, reference::elementWiseBinary("INV_STD_DEV_TO_VARIANCE", gi[i],
                                                              reference::roundTo(HALF, 1e-3)));
    expectClose(HALF, gb[i], wb, "invStdDevToVariance");
  }
  try {
    popops::varianceToInvStdDev(f.graph, v, 1e-3f, f.prog, INT);
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("dstType int must be half"), std::string::npos)
        << e.what();
  }
  Tensor eps2 = f.var(FLOAT, {2}, "eps2");
  try {
    popops::invStdDevToVariance(f.graph, v, eps2, f.prog, FLOAT);
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("epsilon"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("must be one element of float"), std::string::npos)
        << e.what();
  }
}

struct IntCase {
  pe::BinaryOpType op;
  bool isSigned;
};

class IntegerBinary : public ::testing::TestWithParam<IntCase> {};

TEST_P(IntegerBinary, FollowsCSemanticsWithTheEdgesDefined) {
  const auto c = GetParam();
  const std::string name = pe::toString(c.op);
  const Type t = c.isSigned ? INT : UNSIGNED_INT;
  std::vector<double> a, b;
  const bool shift = name.rfind("SHIFT", 0) == 0;
  const double intMin = -2147483648.0, intMax = 2147483647.0, uMax = 4294967295.0;
  const std::vector<double> edgesA =
      c.isSigned ? std::vector<double>{intMin, intMin, intMax, -7, 7, -7, 7, -1, 0, 123456, -5}
                 : std::vector<double>{uMax, 0x80000000u, 7, 7, 0, 1, 123456, 99, 5, 1000, 3};
  const std::vector<double> edgesB =
      shift ? (c.isSigned ? std::vector<double>{1, 31, 32, 33, -1, 0, 5, 31, 40, 100, 2}
                          : std::vector<double>{1, 31, 32, 33, 0, 31, 40, 100, 4294967295.0, 3, 2})
            : (c.isSigned ? std::vector<double>{-1, 1, -1, 2, -2, -2, 2, 0, 5, -1000, 0}
                          : std::vector<double>{1, 2, 0, 3, 5, 0, 1000, 100, 6, 7, 8});
  a = edgesA;
  b = edgesB;
  std::mt19937 rng(11);
  for (int i = 0; i < 200; ++i) {
    const std::uint32_t x = rng(), y = rng();
    a.push_back(c.isSigned ? double(std::int32_t(x)) : double(x));
    if (shift)
      b.push_back(double(y % 40));
    else
      b.push_back(c.isSigned ? double(std::int32_t(y) >> (y % 24)) : double(y >> (y % 24)));
  }
  for (Layout layout : {Layout::OneTile, Layout::Linear16}) {
    const Result r = runMap(pe::BinaryOp(c.op, pe::_1, pe::_2), {{t, a}, {t, b}}, layout);
    ASSERT_EQ(r.type, t);
    for (std::size_t i = 0; i < a.size(); ++i)
      ASSERT_EQ(r.values[i], double(reference::elementWiseInteger(name, std::int64_t(a[i]),
                                                                  std::int64_t(b[i]), c.isSigned)))
          << name << " " << t.toString() << " of " << a[i] << ", " << b[i];
  }
}

INSTANTIATE_TEST_SUITE_P(
    ExprOpsComplete, IntegerBinary,
    ::testing::Values(
        IntCase{pe::BinaryOpType::BITWISE_AND, true}, IntCase{pe::BinaryOpType::BITWISE_OR, false},
        IntCase{pe::BinaryOpType::BITWISE_XOR, true},
        IntCase{pe::BinaryOpType::BITWISE_XNOR, false}, IntCase{pe::BinaryOpType::SHIFT_LEFT, true},
        IntCase{pe::BinaryOpType::SHIFT_LEFT, false}, IntCase{pe::BinaryOpType::SHIFT_RIGHT, true},
        IntCase{pe::BinaryOpType::SHIFT_RIGHT, false},
        IntCase{pe::BinaryOpType::SHIFT_RIGHT_SIGN_EXTEND, true},
        IntCase{pe::BinaryOpType::DIVIDE, true}, IntCase{pe::BinaryOpType::DIVIDE, false},
        IntCase{pe::BinaryOpType::REMAINDER, true}, IntCase{pe::BinaryOpType::REMAINDER, false}),
    [](const auto &info) {
      return pe::toString(info.param.op) + (info.param.isSigned ? "_INT" : "_UNSIGNED_INT");
    });

TEST(ExprOpsComplete, ShortIntegersWrapAsSixteenBitArithmetic) {
  const std::vector<double> sa = {-32768, -32768, 32767, -7, 7, -1, -1, 0x4000, 300, -300, 255, 1};
  const std::vector<double> sb = {-1, 1, 1, 2, -2, 1, 15, 2, 16, 3, 0, 40};
  const std::vector<double> ua = {65535, 0x8000, 7, 7, 0, 1, 65535, 0x4000, 300, 1000, 255, 1};
  const std::vector<double> ub = {1, 15, 16, 3, 5, 0, 1, 2, 17, 7, 0, 40};
  for (bool isSigned : {true, false}) {
    const Type t = isSigned ? SHORT : UNSIGNED_SHORT;
    const auto &a = isSigned ? sa : ua;
    const auto &b = isSigned ? sb : ub;
    std::vector<pe::BinaryOpType> ops = {
        pe::BinaryOpType::BITWISE_AND,  pe::BinaryOpType::BITWISE_OR, pe::BinaryOpType::BITWISE_XOR,
        pe::BinaryOpType::BITWISE_XNOR, pe::BinaryOpType::SHIFT_LEFT, pe::BinaryOpType::SHIFT_RIGHT,
        pe::BinaryOpType::ADD,          pe::BinaryOpType::MULTIPLY,   pe::BinaryOpType::DIVIDE,
        pe::BinaryOpType::REMAINDER};
    if (isSigned)
      ops.push_back(pe::BinaryOpType::SHIFT_RIGHT_SIGN_EXTEND);
    for (auto op : ops)
      for (Layout layout : {Layout::OneTile, Layout::Linear16}) {
        const Result r = runMap(pe::BinaryOp(op, pe::_1, pe::_2), {{t, a}, {t, b}}, layout);
        ASSERT_EQ(r.type, t);
        for (std::size_t i = 0; i < a.size(); ++i)
          ASSERT_EQ(r.values[i],
                    double(reference::elementWiseShortInteger(pe::toString(op), std::int64_t(a[i]),
                                                              std::int64_t(b[i]), isSigned)))
              << pe::toString(op) << " " << t.toString() << " of " << a[i] << ", " << b[i];
      }
    const Result n = runMap(pe::BitwiseNot(pe::_1), {{t, a}}, Layout::Linear16);
    for (std::size_t i = 0; i < a.size(); ++i)
      EXPECT_EQ(n.values[i], double(reference::elementWiseShortInteger(
                                 "BITWISE_NOT", std::int64_t(a[i]), 0, isSigned)));
  }
}

TEST(ExprOpsComplete, IntegerUnaryBitOpsMatchReference) {
  const std::vector<double> s = {0, 1, -1, -2147483648.0, 2147483647, 0x00f0, -256, 12345};
  const std::vector<double> u = {0, 1, 4294967295.0, 0x80000000u, 0x7fffffff, 0x00f0, 256, 12345};
  for (auto op : {pe::UnaryOpType::BITWISE_NOT, pe::UnaryOpType::POPCOUNT,
                  pe::UnaryOpType::COUNT_LEADING_ZEROS})
    for (bool isSigned : {true, false}) {
      const auto &x = isSigned ? s : u;
      const Type t = isSigned ? INT : UNSIGNED_INT;
      const Result r = runMap(pe::UnaryOp(op, pe::_1), {{t, x}}, Layout::Linear16);
      ASSERT_EQ(r.type, t);
      for (std::size_t i = 0; i < x.size(); ++i)
        EXPECT_EQ(r.values[i], double(reference::elementWiseInteger(
                                   pe::toString(op), std::int64_t(x[i]), 0, isSigned)))
            << pe::toString(op) << " " << t.toString() << " of " << x[i];
    }
}

TEST(ExprOpsComplete, ResultsAreBitIdenticalForOneAndTwoHostThreads) {
  const auto x = held(FLOAT, reference::randomValues(4099, 21, -3, 3));
  const auto y = held(FLOAT, reference::randomValues(4099, 22, 0.5, 3));
  // Several new ops in one expression, over many tiles.
  const pe::Any e = pe::Add(pe::GeluErf(pe::_1),
                            pe::Mul(pe::Atan2(pe::_1, pe::_2), pe::Rem(pe::Cbrt(pe::_2), pe::_1)));
  const Result one = runMap(e, {{FLOAT, x}, {FLOAT, y}}, Layout::Linear16, 1);
  const Result two = runMap(e, {{FLOAT, x}, {FLOAT, y}}, Layout::Linear16, 2);
  EXPECT_EQ(one.bytes, two.bytes);
  std::vector<double> xi(x.size()), yi(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    xi[i] = std::floor(x[i] * 1000);
    yi[i] = double(i % 37);
  }
  const pe::Any ie =
      pe::BitwiseXor(pe::Shl(pe::_1, pe::_2), pe::Rem(pe::_1, pe::Add(pe::_2, pe::Const(1))));
  EXPECT_EQ(runMap(ie, {{INT, xi}, {INT, yi}}, Layout::Linear16, 1).bytes,
            runMap(ie, {{INT, xi}, {INT, yi}}, Layout::Linear16, 2).bytes);
}

TEST(ExprOpsComplete, OperatorsBuildTheBitwiseAndShiftNodes) {
  using namespace popops::expr;
  EXPECT_EQ((_1 & _2).name(), "BITWISE_AND(_1, _2)");
  EXPECT_EQ((_1 | 3).name(), "BITWISE_OR(_1, 3:int)");
  EXPECT_EQ((_1 ^ _2).name(), "BITWISE_XOR(_1, _2)");
  EXPECT_EQ((~_1).name(), "BITWISE_NOT(_1)");
  EXPECT_EQ((_1 % 7).name(), "REMAINDER(_1, 7:int)");
  EXPECT_EQ((_1 << 2).name(), "SHIFT_LEFT(_1, 2:int)");
  EXPECT_EQ((1u >> _1).name(), "SHIFT_RIGHT(1:unsigned int, _1)");
  std::ostringstream os;
  os << ShrSE(_1, _2);
  EXPECT_EQ(os.str(), "SHIFT_RIGHT_SIGN_EXTEND(_1, _2)");
  EXPECT_EQ((_1 * 0.5_half).name(), "MULTIPLY(_1, 0.5:half)");
  EXPECT_TRUE(deepEquals(Rem(_1, Const(3)), _1 % 3));
  EXPECT_FALSE(deepEquals(Shl(_1, _2), Shr(_1, _2)));
}

TEST(ExprOpsComplete, OpTypesAppearInDebugRecordsByName) {
  EXPECT_EQ(poputil::toProfileValue(pe::UnaryOpType::GELU_ERF).asString(), "GELU_ERF");
  EXPECT_EQ(poputil::toProfileValue(pe::BinaryOpType::SHIFT_RIGHT_SIGN_EXTEND).asString(),
            "SHIFT_RIGHT_SIGN_EXTEND");
  EXPECT_EQ(poputil::toProfileValue(pe::TernaryOpType::CLAMP).asString(), "CLAMP");
}

TEST(ExprOpsComplete, NamedFunctionsTakeScalarConstantsOnEitherSide) {
  ewtest::Fixture f(4);
  Tensor a = f.var(INT, {6}, "a");
  Tensor out = f.graph.addVariable(INT, {6}, "out");
  poputil::mapTensorLinearly(f.graph, out);
  Tensor r1 = popops::rem(f.graph, a, -4, f.prog);                    // a % −4
  Tensor r2 = popops::shiftLeft(f.graph, 1, a, f.prog);               // 1 << a
  popops::shiftRightSignExtendWithOutput(f.graph, a, 1, out, f.prog); // a >> 1
  Tensor c = f.graph.clone(a, "c");
  f.prog.add(program::Copy(a, c));
  popops::bitwiseXnorInPlace(f.graph, c, 5, f.prog);
  f.read("r1", r1);
  f.read("r2", r2);
  f.read("out", out);
  f.read("c", c);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const std::vector<int> av = {-9, -1, 0, 5, 9, 31};
  ewtest::write(engine, "a", av);
  engine.run();
  const auto g1 = ewtest::read<int>(engine, "r1", 6), g2 = ewtest::read<int>(engine, "r2", 6),
             g3 = ewtest::read<int>(engine, "out", 6), g4 = ewtest::read<int>(engine, "c", 6);
  for (std::size_t i = 0; i < av.size(); ++i) {
    EXPECT_EQ(g1[i], reference::elementWiseInteger("REMAINDER", av[i], -4, true)) << av[i];
    EXPECT_EQ(g2[i], reference::elementWiseInteger("SHIFT_LEFT", 1, av[i], true)) << av[i];
    EXPECT_EQ(g3[i], reference::elementWiseInteger("SHIFT_RIGHT_SIGN_EXTEND", av[i], 1, true));
    EXPECT_EQ(g4[i], reference::elementWiseInteger("BITWISE_XNOR", av[i], 5, true)) << av[i];
  }
}

TEST(ExprOpsComplete, OpTypeOverloadsOfMapInPlaceAndWithOutput) {
  ewtest::Fixture f(4);
  Tensor a = f.var(UNSIGNED_INT, {5}, "a");
  Tensor b = f.var(UNSIGNED_INT, {5}, "b");
  Tensor out = f.graph.clone(a, "out");
  popops::mapWithOutput(f.graph, pe::UnaryOpType::POPCOUNT, a, out, f.prog);
  popops::mapInPlace(f.graph, pe::BinaryOpType::SHIFT_RIGHT, a, b, f.prog);
  f.read("a", a);
  f.read("out", out);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const std::vector<unsigned> av = {0xffffffffu, 0x80000000u, 7, 0, 1234}, bv = {4, 31, 32, 1, 0};
  ewtest::write(engine, "a", av);
  ewtest::write(engine, "b", bv);
  engine.run();
  const auto ga = ewtest::read<unsigned>(engine, "a", 5),
             go = ewtest::read<unsigned>(engine, "out", 5);
  for (std::size_t i = 0; i < av.size(); ++i) {
    EXPECT_EQ(go[i], reference::elementWiseInteger("POPCOUNT", av[i], 0, false)) << av[i];
    EXPECT_EQ(ga[i], reference::elementWiseInteger("SHIFT_RIGHT", av[i], bv[i], false)) << av[i];
  }
}

TEST(ExprOpsComplete, ComparisonInPlaceWritesBoolOperand) {
  ewtest::Fixture f(4);
  Tensor a = f.var(BOOL, {4}, "a");
  Tensor b = f.var(BOOL, {4}, "b");
  popops::eqInPlace(f.graph, a, b, f.prog);
  Tensor c = f.var(BOOL, {4}, "c");
  popops::ltInPlace(f.graph, c, b, f.prog); // false < true only
  f.read("a", a);
  f.read("c", c);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const std::vector<unsigned char> av = {0, 0, 1, 1}, bv = {0, 1, 0, 1};
  ewtest::write(engine, "a", av);
  ewtest::write(engine, "c", av);
  ewtest::write(engine, "b", bv);
  engine.run();
  EXPECT_EQ(ewtest::readBool(engine, "a", 4), (std::vector<unsigned char>{1, 0, 0, 1}));
  EXPECT_EQ(ewtest::readBool(engine, "c", 4), (std::vector<unsigned char>{0, 1, 0, 0}));
}

TEST(ExprOpsComplete, MultiExpressionMapInPlaceReadsEveryInputBeforeWriting) {
  ewtest::Fixture f(16);
  Tensor a = f.var(FLOAT, {100}, "a");
  Tensor b = f.var(FLOAT, {100}, "b");
  // a ← b and b ← a + b in one pass: both read the old values.
  popops::mapInPlace(f.graph, {pe::Any(pe::_2), pe::Any(pe::Add(pe::_1, pe::_2))}, {a, b}, f.prog);
  const std::vector<Tensor> fresh = popops::map(
      f.graph, {pe::Any(pe::Sqrt(pe::Abs(pe::_1))), pe::Any(pe::Lt(pe::_1, pe::Const(0.0f)))}, {a},
      f.prog);
  ASSERT_EQ(fresh.size(), 2u);
  EXPECT_EQ(fresh[1].elementType(), BOOL);
  f.read("a", a);
  f.read("b", b);
  f.read("s", fresh[0]);
  f.read("n", fresh[1]);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto av = ewtest::randomFloats(100, -5, 5, 1), bv = ewtest::randomFloats(100, -5, 5, 2);
  ewtest::write(engine, "a", av);
  ewtest::write(engine, "b", bv);
  engine.run();
  const auto ga = ewtest::read<float>(engine, "a", 100), gb = ewtest::read<float>(engine, "b", 100);
  const auto gs = ewtest::read<float>(engine, "s", 100);
  const auto gn = ewtest::readBool(engine, "n", 100);
  for (std::size_t i = 0; i < 100; ++i) {
    EXPECT_EQ(ga[i], bv[i]);
    EXPECT_EQ(gb[i], av[i] + bv[i]);
    EXPECT_EQ(gs[i], std::sqrt(std::fabs(bv[i]))); // after the in-place pass, a holds b
    EXPECT_EQ(gn[i] != 0, bv[i] < 0);
  }
}

TEST(ExprOpsComplete, MultiExpressionMapWithOutputRunsInOneComputeSet) {
  ewtest::Fixture f(16);
  Tensor a = f.var(INT, {50}, "a");
  Tensor b = f.var(INT, {50}, "b");
  Tensor bits = f.graph.clone(a, "bits");
  Tensor flags = f.graph.addVariable(BOOL, {50}, "flags");
  poputil::mapTensorLinearly(f.graph, flags);
  const unsigned before = f.graph.addComputeSet("probe-before").getId();
  popops::mapWithOutput(f.graph,
                        {pe::Any(pe::BitwiseXor(pe::_1, pe::_2)), pe::Any(pe::Gt(pe::_1, pe::_2))},
                        {a, b}, {bits, flags}, f.prog);
  const unsigned after = f.graph.addComputeSet("probe-after").getId();
  EXPECT_EQ(after - before - 1, 1u) << "the expressions should share one compute set";
  f.read("bits", bits);
  f.read("flags", flags);
  Engine engine(f.graph, f.prog);
  engine.load(f.dev);
  const auto av = ewtest::randomInts(50, -1000, 1000, 3),
             bv = ewtest::randomInts(50, -1000, 1000, 4);
  ewtest::write(engine, "a", av);
  ewtest::write(engine, "b", bv);
  engine.run();
  const auto gx = ewtest::read<int>(engine, "bits", 50);
  const auto gf = ewtest::readBool(engine, "flags", 50);
  for (std::size_t i = 0; i < av.size(); ++i) {
    EXPECT_EQ(gx[i], av[i] ^ bv[i]);
    EXPECT_EQ(gf[i] != 0, av[i] > bv[i]);
  }
}

TEST(ExprOpsComplete, MultiExpressionMapInPlaceNeedsATensorPerExpression) {
  ewtest::Fixture f(4);
  Tensor a = f.var(FLOAT, {8}, "a");
  try {
    popops::mapInPlace(f.graph, {pe::Any(pe::_1), pe::Any(pe::Neg(pe::_1))}, {a}, f.prog);
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("2 expressions write tensors _1 to _2 but only 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(ExprOpsComplete, MultiExpressionMapWithOutputNeedsOneOutputPerExpression) {
  ewtest::Fixture f(4);
  Tensor a = f.var(FLOAT, {8}, "a");
  try {
    popops::mapWithOutput(f.graph, {pe::Any(pe::_1), pe::Any(pe::_1)}, {a}, {a}, f.prog);
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("2 expressions need as many outputs, got 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(ExprOpsComplete, GeneratedCodeletIsReadableCpp) {
  ewtest::Fixture f(4);
  Tensor a = f.var(HALF, {8}, "a");
  Tensor s = f.var(HALF, {1}, "s");
  std::ostringstream os;
  popops::outputGeneratedCodelet(f.graph.getTarget(), pe::Mul(pe::Asin(pe::_1), pe::_2), {a, s}, {},
                                 os);
  const std::string text = os.str();
  for (const char *part :
       {"class GeneratedMapExpr_", "public Vertex", "Input<Vector<half>> in1;",
        "Input<Vector<half>> in2; // _2, one element for all", "Output<Vector<half>> out;",
        "std::asin(t0)", "in2[0]", "bool compute()", "out[i] = "})
    EXPECT_NE(text.find(part), std::string::npos) << part << " missing from\n" << text;
}

TEST(ExprOpsComplete, GeneratedCodeletRejectsWhatMapRejects) {
  ewtest::Fixture f(4);
  Tensor a = f.var(FLOAT, {8}, "a");
  std::ostringstream os;
  try {
    popops::outputGeneratedCodelet(f.graph.getTarget(), pe::BitwiseNot(pe::_1), {a}, {}, os);
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("BITWISE_NOT does not support float"), std::string::npos)
        << e.what();
  }
}

TEST(ExprOpsComplete, UnsupportedTypesAreNamedWithTheOp) {
  struct Bad {
    pe::Any e;
    Type type;
    std::string message;
  };
  const std::vector<Bad> cases = {
      {pe::BitwiseAnd(pe::_1, pe::_1), FLOAT, "BITWISE_AND does not support float"},
      {pe::Shl(pe::_1, pe::_1), HALF, "SHIFT_LEFT does not support half"},
      {pe::ShrSE(pe::_1, pe::_1), UNSIGNED_INT,
       "SHIFT_RIGHT_SIGN_EXTEND does not support unsigned int"},
      {pe::Asin(pe::_1), INT, "ASIN does not support int"},
      {pe::IsNaN(pe::_1), INT, "IS_NAN does not support int"},
      {pe::UnaryOp(pe::UnaryOpType::POPCOUNT, pe::_1), FLOAT, "POPCOUNT does not support float"},
      {pe::Atan2(pe::_1, pe::_1), UNSIGNED_INT, "ATAN2 does not support unsigned int"},
      {pe::Rem(pe::_1, pe::_1), BOOL, "REMAINDER does not support bool"},
      {pe::UnaryOp(pe::UnaryOpType::COUNT_LEADING_ZEROS, pe::_1), SHORT,
       "COUNT_LEADING_ZEROS does not support short"},
      {pe::ShrSE(pe::_1, pe::_1), UNSIGNED_SHORT,
       "SHIFT_RIGHT_SIGN_EXTEND does not support unsigned short"},
  };
  for (const auto &c : cases) {
    ewtest::Fixture f(2);
    Tensor a = f.var(c.type, {4}, "a");
    try {
      popops::map(f.graph, c.e, {a}, f.prog);
      ADD_FAILURE() << "expected poplibs_error for " << c.message;
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
  }
}

TEST(ExprOpsComplete, CheckTypesAcceptsMatchingConstantsOnly) {
  EXPECT_NO_THROW(popops::checkTypes(INT, 3));
  EXPECT_NO_THROW(popops::checkTypes(HALF, 0.5f));
  EXPECT_NO_THROW(popops::checkTypes(FLOAT, 0.5));
  EXPECT_NO_THROW(popops::checkTypes(UNSIGNED_INT, 3u));
  try {
    popops::checkTypes(INT, 0.5f);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("not int"), std::string::npos) << e.what();
  }
  try {
    popops::checkTypes(FLOAT, 3u);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("unsigned int"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("float"), std::string::npos) << e.what();
  }
}

TEST(ExprOpsComplete, ComparisonInPlaceOnFloatIsRejected) {
  ewtest::Fixture f(2);
  Tensor a = f.var(FLOAT, {4}, "a");
  Tensor b = f.var(FLOAT, {4}, "b");
  try {
    popops::ltInPlace(f.graph, a, b, f.prog);
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("holds float but the expression"), std::string::npos) << m;
    EXPECT_NE(m.find("gives bool"), std::string::npos) << m;
  }
}

TEST(ExprOpsComplete, OutputForElementWiseOpFollowsTheBestSpreadInput) {
  ewtest::Fixture f(16);
  Tensor one = f.graph.addVariable(FLOAT, {64}, "one");
  f.graph.setTileMapping(one, 3);
  Tensor spread = f.var(FLOAT, {64}, "spread"); // linear over 16 tiles
  Tensor out = popops::createOutputForElementWiseOp(f.graph, {one, spread}, HALF, "out");
  EXPECT_EQ(out.elementType(), HALF);
  EXPECT_EQ(out.shape(), spread.shape());
  EXPECT_EQ(f.graph.getTileMapping(out), f.graph.getTileMapping(spread));
  Tensor other = f.graph.addVariable(FLOAT, {63}, "other");
  try {
    popops::createOutputForElementWiseOp(f.graph, {one, other}, FLOAT);
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("input 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[63]"), std::string::npos) << e.what();
  }
}

} // namespace
