// The element-wise API around the ops: named functions with host constants, the op-type and
// multi-expression map overloads, comparisons in place, the variance conversions with a result
// type, outputGeneratedCodelet, createOutputForElementWiseOp, checkTypes and debug records.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <popops/ElementWise.hpp>
#include <popops/ElementWiseUtil.hpp>
#include <poputil/exceptions.hpp>
#include <reference/ElementWise.hpp>

#include "ExprOpsTestSupport.hpp"

namespace {

using namespace poplar;
using namespace exprtest;
namespace pe = popops::expr;

TEST(ElementWiseApi, OpTypesAppearInDebugRecordsByName) {
  EXPECT_EQ(poputil::toProfileValue(pe::UnaryOpType::GELU_ERF).asString(), "GELU_ERF");
  EXPECT_EQ(poputil::toProfileValue(pe::BinaryOpType::SHIFT_RIGHT_SIGN_EXTEND).asString(),
            "SHIFT_RIGHT_SIGN_EXTEND");
  EXPECT_EQ(poputil::toProfileValue(pe::TernaryOpType::CLAMP).asString(), "CLAMP");
}

TEST(ElementWiseApi, ComparisonInPlaceWritesBoolOperand) {
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

TEST(ElementWiseApi, MultiExpressionMapInPlaceReadsEveryInputBeforeWriting) {
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

TEST(ElementWiseApi, MultiExpressionMapWithOutputRunsInOneComputeSet) {
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

TEST(ElementWiseApi, MultiExpressionMapInPlaceNeedsATensorPerExpression) {
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

TEST(ElementWiseApi, MultiExpressionMapWithOutputNeedsOneOutputPerExpression) {
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

TEST(ElementWiseApi, GeneratedCodeletIsReadableCpp) {
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

TEST(ElementWiseApi, GeneratedCodeletRejectsWhatMapRejects) {
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

TEST(ElementWiseApi, CheckTypesAcceptsMatchingConstantsOnly) {
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

TEST(ElementWiseApi, ComparisonInPlaceOnFloatIsRejected) {
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

TEST(ElementWiseApi, OutputForElementWiseOpFollowsTheBestSpreadInput) {
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

TEST(ElementWiseApi, VarianceConversionsWithDstTypeConvertOnce) {
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

TEST(ElementWiseApi, OpTypeOverloadsOfMapInPlaceAndWithOutput) {
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

TEST(ElementWiseApi, NamedFunctionsTakeScalarConstantsOnEitherSide) {
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

} // namespace
