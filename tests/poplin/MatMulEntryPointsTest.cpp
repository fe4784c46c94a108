// The MatMul.hpp, Convolution.hpp and ConvPreplan.hpp entry points added for PopLibs parity:
// tensor-scaled accumulation, output creation, RHS pre-arrangement, preplanning, option
// validation, convolutionWithOutput and the plan estimates.
#include <gtest/gtest.h>

#include <poplar/exceptions.hpp>
#include <poplin/ConvPreplan.hpp>
#include <poplin/Convolution.hpp>
#include <poplin/MatMul.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Common.hpp>
#include <reference/MatMul.hpp>

#include "LinalgTestSupport.hpp"

using namespace poplin::testing;
using poplar::FLOAT;
using poplar::HALF;

namespace {

TEST(MatMulEntryPoints, TensorScaleAccumulatesTheScaledProduct) {
  for (auto mapping : {Mapping::OneTile, Mapping::Linear}) {
    LinalgHarness h;
    const std::size_t m = 5, k = 7, n = 3;
    const auto a = reference::roundTo(FLOAT, reference::randomValues(m * k, 1));
    const auto b = reference::roundTo(FLOAT, reference::randomValues(k * n, 2));
    const auto c0 = reference::roundTo(FLOAT, reference::randomValues(m * n, 3));
    const auto g0 = reference::roundTo(FLOAT, reference::randomValues(2 * m * n, 4));
    auto A = h.input("a", FLOAT, {m, k}, a, mapping);
    auto B = h.input("b", FLOAT, {k, n}, b, mapping);
    auto C = h.input("c", FLOAT, {m, n}, c0, mapping);
    auto scale = h.input("k", FLOAT, {1}, {-0.5}, mapping);
    poplin::matMulAcc(h.graph(), C, scale, A, B, h.prog());
    // Grouped: two copies of the same product.
    auto AG = poplar::concat(A.expand({0}), A.expand({0}));
    auto BG = poplar::concat(B.expand({0}), B.expand({0}));
    auto CG = h.input("cg", FLOAT, {2, m, n}, g0, mapping);
    poplin::matMulGroupedAcc(h.graph(), CG, scale, AG, BG, h.prog());
    h.output("c", C);
    h.output("cg", CG);
    auto out = h.run();
    const auto ab = reference::matMul(a, b, m, n, k);
    std::vector<double> want(m * n), wantG(2 * m * n);
    for (std::size_t i = 0; i < m * n; ++i) {
      want[i] = c0[i] - 0.5 * ab[i];
      wantG[i] = g0[i] - 0.5 * ab[i];
      wantG[m * n + i] = g0[m * n + i] - 0.5 * ab[i];
    }
    EXPECT_LT(reference::relativeError(out["c"], want), 1e-6);
    EXPECT_LT(reference::relativeError(out["cg"], wantG), 1e-6);
  }
}

TEST(MatMulEntryPoints, CreatedOutputsReceiveTheProduct) {
  LinalgHarness h;
  const std::size_t m = 6, k = 4, n = 5;
  const auto a = reference::roundTo(FLOAT, reference::randomValues(2 * m * k, 5));
  const auto b = reference::roundTo(FLOAT, reference::randomValues(2 * k * n, 6));
  auto A = h.input("a", FLOAT, {2, m, k}, a);
  auto B = h.input("b", FLOAT, {2, k, n}, b);
  auto out2 = poplin::createMatMulOutput(h.graph(), FLOAT, {m, k}, {k, n}, "out2");
  auto outH = poplin::createMatMulOutput(h.graph(), FLOAT, HALF, {m, k}, {k, n}, "outH");
  auto out3 =
      poplin::createMatMulGroupedOutput(h.graph(), FLOAT, FLOAT, {2, m, k}, {2, k, n}, "out3");
  EXPECT_EQ(out2.shape(), (std::vector<std::size_t>{m, n}));
  EXPECT_EQ(outH.elementType(), HALF);
  EXPECT_EQ(out3.shape(), (std::vector<std::size_t>{2, m, n}));
  poplin::matMulWithOutput(h.graph(), A[0], B[0], out2, h.prog());
  poplin::matMulGroupedWithOutput(h.graph(), A, B, out3, h.prog());
  h.output("out2", out2);
  h.output("out3", out3);
  auto out = h.run();
  auto want0 = reference::matMul(matrixOf(a, 0, m, k), matrixOf(b, 0, k, n), m, n, k);
  auto want1 = reference::matMul(matrixOf(a, 1, m, k), matrixOf(b, 1, k, n), m, n, k);
  EXPECT_LT(reference::relativeError(out["out2"], want0), 1e-6);
  want0.insert(want0.end(), want1.begin(), want1.end());
  EXPECT_LT(reference::relativeError(out["out3"], want0), 1e-6);
}

TEST(MatMulEntryPoints, PreArrangedRightOperandGivesTheSameProduct) {
  LinalgHarness h;
  const std::size_t m = 4, k = 6, n = 3;
  const auto a = reference::roundTo(FLOAT, reference::randomValues(m * k, 7));
  const auto b = reference::roundTo(FLOAT, reference::randomValues(k * n, 8));
  auto A = h.input("a", FLOAT, {m, k}, a, Mapping::OneTile);
  auto B = h.input("b", FLOAT, {k, n}, b, Mapping::OneTile);
  auto arranged = poplin::preArrangeMatMulInputRHS(h.graph(), {m, k}, B, h.prog(), "arranged",
                                                   {{"inputRHSIsPreArranged", "true"}});
  auto arrangedG =
      poplin::preArrangeMatMulGroupedInputRHS(h.graph(), {1, m, k}, B.expand({0}), h.prog(), FLOAT);
  EXPECT_EQ(arranged.shape(), B.shape());
  h.output("c", poplin::matMul(h.graph(), A, arranged, h.prog()));
  h.output("cg", poplin::matMulGrouped(h.graph(), A.expand({0}), arrangedG, h.prog(), FLOAT));
  auto out = h.run();
  const auto want = reference::matMul(a, b, m, n, k);
  EXPECT_LT(reference::relativeError(out["c"], want), 1e-6);
  EXPECT_EQ(out["c"], out["cg"]);
}

TEST(MatMulEntryPoints, PreplanFillsTheCacheWithMultipliesAndConvolutions) {
  LinalgHarness h;
  const auto &target = h.graph().getTarget();
  poplar::OptionFlags mmOpts{{"availableMemoryProportion", "0.5"}};
  std::set<poplin::MatMulPlanParams> matmuls{
      {&target, poplin::MatMulParams{FLOAT, FLOAT, {8, 16}, {16, 4}}, &mmOpts},
      {&target, poplin::MatMulParams{HALF, FLOAT, {2, 8, 16}, {2, 16, 4}}, &mmOpts}};
  poplar::OptionFlags convOpts;
  poplin::ConvParams conv(FLOAT, 1, {8, 8}, {3, 3}, 4, 4, 1);
  std::set<poplin::ConvPlanParams> convs{{&target, conv, &convOpts}};
  poplin::PlanningCache cache;
  poplin::preplan(convs, matmuls, cache);
  EXPECT_GE(cache.size(), 3u);
  const std::size_t planned = cache.size();
  // Building a preplanned multiply plans nothing new.
  auto A = h.input("a", FLOAT, {8, 16}, reference::randomValues(128, 9));
  auto B = h.input("b", FLOAT, {16, 4}, reference::randomValues(64, 10));
  poplin::matMul(h.graph(), A, B, h.prog(), "mm", mmOpts, &cache);
  EXPECT_EQ(cache.size(), planned);

  poplin::MatMulToConvOptions convOptions;
  const auto asConvs = poplin::matMulGetConvPlanParams(matmuls, convOptions);
  ASSERT_EQ(asConvs.size(), 2u);
  for (const auto &[t, p, o] : asConvs) {
    EXPECT_EQ(t, &target);
    EXPECT_EQ(p.kernelShape, std::vector<std::size_t>{1});
    EXPECT_EQ(p.inputFieldShape, std::vector<std::size_t>{8});
    EXPECT_EQ(p.inputChannelsPerConvGroup, 16u);
    EXPECT_EQ(p.outputChannelsPerConvGroup, 4u);
    EXPECT_NO_THROW(poplin::convolutionValidateOptions(*o));
  }
}

TEST(MatMulEntryPoints, BadArgumentsThrowNamingThem) {
  LinalgHarness h;
  auto var = [&](std::vector<std::size_t> shape) {
    auto v = h.graph().addVariable(FLOAT, shape, "v");
    h.graph().setTileMapping(v, 0);
    return v;
  };
  try {
    poplin::matMulAcc(h.graph(), var({2, 2}), var({2}), var({2, 3}), var({3, 2}), h.prog());
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("k (the scale)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(
      poplin::matMulAcc(h.graph(), var({2, 3}), var({1}), var({2, 3}), var({3, 2}), h.prog()),
      poputil::poplibs_error);
  EXPECT_THROW(poplin::transposeGroupedMatrix(var({2, 3})), poputil::poplibs_error);
  EXPECT_EQ(poplin::transposeGroupedMatrix(var({4, 2, 3})).shape(),
            (std::vector<std::size_t>{4, 3, 2}));
  EXPECT_THROW(poplin::matmulValidateOptions({{"partialsTipe", "half"}}), poplar::invalid_option);
  EXPECT_NO_THROW(poplin::matmulValidateOptions({{"partialsType", "half"}}));
  EXPECT_THROW(poplin::convolutionValidateOptions({{"pass", "SIDEWAYS"}}), poplar::invalid_option);
  poplin::PlanningCache cache;
  std::set<poplin::MatMulPlanParams> noTarget{
      {nullptr, poplin::MatMulParams{FLOAT, FLOAT, {2, 2}, {2, 2}}, nullptr}};
  EXPECT_THROW(poplin::preplanMatMuls(noTarget, cache), poputil::poplibs_error);
}

TEST(ConvolutionEntryPoints, WithOutputWritesWhatConvolutionReturns) {
  LinalgHarness h;
  poplin::ConvParams p(FLOAT, 2, {6, 5}, {3, 2}, 3, 4, 1);
  auto in = poplin::createInput(h.graph(), p, "in");
  auto w = poplin::createWeights(h.graph(), p, "w");
  h.write("in", in, reference::randomValues(in.numElements(), 11));
  h.write("w", w, reference::randomValues(w.numElements(), 12));
  auto out = poplin::createConvOutput(h.graph(), p, "out");
  poplin::convolutionWithOutput(h.graph(), in, w, out, p, false, h.prog(), "withOutput");
  h.output("out", out);
  h.output("ref", poplin::convolution(h.graph(), in, w, p, false, h.prog(), "plain"));
  auto results = h.run();
  EXPECT_EQ(results["out"], results["ref"]);
  auto wrong = h.graph().addVariable(FLOAT, {2, 4, 3, 3}, "wrong");
  h.graph().setTileMapping(wrong, 0);
  try {
    poplin::convolutionWithOutput(h.graph(), in, w, wrong, p, false, h.prog());
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("output 'out'"), std::string::npos) << e.what();
  }
}

TEST(ConvolutionEntryPoints, EstimatesAndBiasesFollowTheParameters) {
  LinalgHarness h;
  poplin::ConvParams p(FLOAT, 1, {8, 8}, {3, 3}, 4, 6, 1);
  const double flops = double(poplin::getFwdFlops(p));
  EXPECT_DOUBLE_EQ(poplin::getFwdPerfectCycleCount(h.graph(), p), flops / (2 * 16 * 16));
  EXPECT_DOUBLE_EQ(poplin::getWuPerfectCycleCount(h.graph(), p), flops / (2 * 16 * 16));
  EXPECT_GT(poplin::getBwdPerfectCycleCount(h.graph(), p), 0.0);
  poplin::ConvParams ph = p;
  ph.inputType = ph.outputType = HALF;
  EXPECT_DOUBLE_EQ(poplin::getFwdPerfectCycleCount(h.graph(), ph), flops / (2 * 64 * 16));
  const auto costs = poplin::reportPlanEstimatedCosts(h.graph(), p);
  EXPECT_GT(costs.cycles, 0u);
  EXPECT_GT(costs.memory, 0u);

  auto acts = h.graph().addVariable(FLOAT, {1, 6, 6, 6}, "acts");
  EXPECT_EQ(poplin::createBiases(h.graph(), acts, p).shape(), std::vector<std::size_t>{6});
  auto wrongActs = h.graph().addVariable(FLOAT, {1, 5, 6, 6}, "wrongActs");
  EXPECT_THROW(poplin::createBiases(h.graph(), wrongActs, p), poputil::poplibs_error);

  poplin::PlanningCache cache;
  poplar::OptionFlags wu{{"pass", "TRAINING_WU"}};
  poplin::preplanConvolutions(h.graph(), {{&h.graph().getTarget(), p, &wu}}, cache);
  EXPECT_GE(cache.size(), 1u);
}

} // namespace
