// The complete PopLibs expression set against reference/ElementWise.hpp: every op added for
// PopLibs 3.x in FLOAT and HALF (float ops) or INT, UNSIGNED_INT, SHORT and UNSIGNED_SHORT
// (integer ops), with the edge cases (NaN, ±inf, −0, shifts past the width, division by negative
// numbers and by zero), on two tile mappings and with 1 and 2 host threads (bit-identical), and
// the type errors naming op and type.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <popops/ElementWise.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Common.hpp>
#include <reference/ElementWise.hpp>

#include "ExprOpsTestSupport.hpp"

namespace {

using namespace poplar;
using namespace exprtest;
namespace pe = popops::expr;

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

TEST(ExprOpsComplete, ClampAndSelectTakeShortIntegers) {
  const std::vector<double> x = {-32768, -5, 0, 5, 300, 32767};
  const std::vector<double> c = {1, 0, 1, 0, 1, 0};
  for (Type t : {SHORT, UNSIGNED_SHORT}) {
    std::vector<double> in = x;
    if (t == UNSIGNED_SHORT)
      for (auto &v : in)
        v = v < 0 ? -v : v;
    const double lo = t == SHORT ? -100 : 3, hi = 200;
    const Result r =
        runMap(pe::Clamp(pe::_1, pe::Const(lo), pe::Const(hi)), {{t, in}}, Layout::Linear16);
    const Result s =
        runMap(pe::Select(pe::_1, pe::Neg(pe::_1), pe::_2), {{t, in}, {BOOL, c}}, Layout::OneTile);
    ASSERT_EQ(r.type, t);
    ASSERT_EQ(s.type, t);
    for (std::size_t i = 0; i < in.size(); ++i) {
      EXPECT_EQ(r.values[i], std::min(std::max(in[i], lo), hi)) << t.toString() << " " << in[i];
      const double neg = double(
          reference::elementWiseShortInteger("SUBTRACT", 0, std::int64_t(in[i]), t == SHORT));
      EXPECT_EQ(s.values[i], c[i] != 0 ? in[i] : neg) << t.toString() << " " << in[i];
    }
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
  EXPECT_EQ(os.str(), "SHIFT_RIGHT_SIGN_EXTEND(\n  _1,\n  _2)");
  EXPECT_EQ((_1 * 0.5_half).name(), "MULTIPLY(_1, 0.5:half)");
  EXPECT_TRUE(deepEquals(Rem(_1, Const(3)), _1 % 3));
  EXPECT_FALSE(deepEquals(Shl(_1, _2), Shr(_1, _2)));
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

} // namespace
