// poplin::matMul family on small IPU Models against a naive double-precision reference.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Half.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/MatMul.hpp>
#include <poplin/MatMulPlan.hpp>
#include <poplin/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include "MatMulTestSupport.hpp"

using namespace poplar;
using namespace poplar::program;
using poplin::testing::randomValues;
using poplin::testing::referenceMatMul;

namespace {

Device device(unsigned tiles) {
  IPUModel m;
  m.tilesPerIPU = tiles;
  return m.createDevice();
}

std::vector<float> transposed(const std::vector<float> &v, std::size_t rows, std::size_t cols) {
  std::vector<float> t(v.size());
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j)
      t[j * rows + i] = v[i * cols + j];
  return t;
}

std::vector<float> roundedToHalf(std::vector<float> v) {
  for (auto &x : v)
    x = static_cast<float>(half(x));
  return v;
}

/// How one test multiply is set up.
struct MatMulCase {
  std::size_t M, N, K;
  unsigned tiles = 16;
  Type type = FLOAT, outType = FLOAT;
  bool transA = false, transB = false, create = false;
  OptionFlags options = {};
  unsigned hostThreads = 0; // 0: engine default
};

/// Writes `values` (float) to the host-writable tensor `handle` of type `type`.
void write(Engine &e, const std::string &handle, const Type &type, const std::vector<float> &v) {
  if (type == HALF) {
    std::vector<half> h(v.begin(), v.end());
    e.writeTensor(handle, h.data(), h.data() + h.size());
  } else {
    e.writeTensor(handle, v.data(), v.data() + v.size());
  }
}

std::vector<float> read(Engine &e, const std::string &handle, const Type &type, std::size_t n) {
  std::vector<float> out(n);
  if (type == HALF) {
    std::vector<half> h(n);
    e.readTensor(handle, h.data(), h.data() + n);
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<float>(h[i]);
  } else {
    e.readTensor(handle, out.data(), out.data() + n);
  }
  return out;
}

/// Runs C = A · B for the setup with host data a [M×K] and b [K×N]; returns C.
std::vector<float> runMatMul(const MatMulCase &s, const std::vector<float> &a,
                             const std::vector<float> &b) {
  Device d = device(s.tiles);
  Graph graph(d.getTarget());
  poplin::addCodelets(graph);
  Tensor A, B;
  if (s.create) {
    A = poplin::createMatMulInputLHS(graph, s.type, s.outType, {s.M, s.K}, {s.K, s.N}, "A",
                                     s.options);
    B = poplin::createMatMulInputRHS(graph, s.type, s.outType, {s.M, s.K}, {s.K, s.N}, "B",
                                     s.options);
  } else {
    Tensor aVar = graph.addVariable(
        s.type, s.transA ? std::vector<std::size_t>{s.K, s.M} : std::vector<std::size_t>{s.M, s.K},
        "A");
    Tensor bVar = graph.addVariable(
        s.type, s.transB ? std::vector<std::size_t>{s.N, s.K} : std::vector<std::size_t>{s.K, s.N},
        "B");
    poputil::mapTensorLinearly(graph, aVar);
    poputil::mapTensorLinearly(graph, bVar);
    graph.createHostWrite("a", aVar);
    graph.createHostWrite("b", bVar);
    A = s.transA ? aVar.transpose() : aVar;
    B = s.transB ? bVar.transpose() : bVar;
  }
  if (s.create) {
    graph.createHostWrite("a", A);
    graph.createHostWrite("b", B);
  }
  Sequence prog;
  Tensor C = poplin::matMul(graph, A, B, prog, s.outType, "C", s.options);
  graph.createHostRead("c", C);
  OptionFlags engineOptions;
  if (s.hostThreads)
    engineOptions.set("target.hostThreads", std::to_string(s.hostThreads));
  Engine engine(graph, prog, engineOptions);
  engine.load(d);
  write(engine, "a", s.type, s.transA && !s.create ? transposed(a, s.M, s.K) : a);
  write(engine, "b", s.type, s.transB && !s.create ? transposed(b, s.K, s.N) : b);
  engine.run();
  return read(engine, "c", s.outType, s.M * s.N);
}

/// fp32 accumulation of K products of values in [-1, 1].
double floatTolerance(std::size_t K) { return 1e-5 + 2e-6 * double(K); }

void expectClose(const std::vector<float> &got, const std::vector<double> &want, double absTol,
                 double relTol, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], absTol + relTol * std::abs(want[i])) << what << " element " << i;
}

class MatMulShapes : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(MatMulShapes, FloatMatchesReference) {
  const auto [m, n, k] = GetParam();
  MatMulCase s{std::size_t(m), std::size_t(n), std::size_t(k)};
  const auto a = randomValues(s.M * s.K, 11), b = randomValues(s.K * s.N, 12);
  expectClose(runMatMul(s, a, b), referenceMatMul(a, b, s.M, s.N, s.K), floatTolerance(s.K), 0,
              "C");
}

// Square, skinny, 1×N, N×1 and odd sizes.
INSTANTIATE_TEST_SUITE_P(Sizes, MatMulShapes,
                         ::testing::Values(std::make_tuple(1, 1, 1), std::make_tuple(1, 65, 17),
                                           std::make_tuple(65, 1, 17), std::make_tuple(3, 17, 127),
                                           std::make_tuple(17, 3, 65), std::make_tuple(64, 64, 64),
                                           std::make_tuple(127, 65, 3), std::make_tuple(1, 1, 300),
                                           std::make_tuple(200, 8, 4)));

TEST(MatMul, TransposedViewsAsOperands) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      MatMulCase s{17, 23, 31};
      s.transA = ta;
      s.transB = tb;
      const auto a = randomValues(s.M * s.K, 21), b = randomValues(s.K * s.N, 22);
      expectClose(runMatMul(s, a, b), referenceMatMul(a, b, s.M, s.N, s.K), floatTolerance(s.K), 0,
                  "transA=" + std::to_string(ta) + " transB=" + std::to_string(tb));
    }
}

TEST(MatMul, OperandsFromCreateMatMulInputs) {
  MatMulCase s{40, 72, 96};
  s.create = true;
  const auto a = randomValues(s.M * s.K, 31), b = randomValues(s.K * s.N, 32);
  expectClose(runMatMul(s, a, b), referenceMatMul(a, b, s.M, s.N, s.K), floatTolerance(s.K), 0,
              "C");
}

TEST(MatMul, HalfInputsWithFloatAndHalfOutputs) {
  for (Type out : {FLOAT, HALF}) {
    MatMulCase s{19, 33, 45};
    s.type = HALF;
    s.outType = out;
    const auto a = roundedToHalf(randomValues(s.M * s.K, 41));
    const auto b = roundedToHalf(randomValues(s.K * s.N, 42));
    // Inputs are exact halves and products accumulate in fp32; a half output adds one rounding
    // (relative 2^-11).
    expectClose(runMatMul(s, a, b), referenceMatMul(a, b, s.M, s.N, s.K), floatTolerance(s.K),
                out == HALF ? 1e-3 : 0.0, "out " + out.toString());
  }
}

TEST(MatMul, TinyMemoryProportionForcesAKSplitWithinBudget) {
  Device d = device(16);
  Graph graph(d.getTarget());
  const OptionFlags tight{{"availableMemoryProportion", "0.1"}};
  const auto plan = poplin::getMatMulPlan(graph, FLOAT, FLOAT, {16, 4096}, {4096, 16}, tight);
  EXPECT_GT(plan.innerBlocks, 1u);
  EXPECT_TRUE(plan.fitsBudget);
  EXPECT_LE(plan.bytesPerTile, plan.bytesBudget);
  EXPECT_EQ(plan.bytesBudget, std::uint64_t(0.1 * d.getTarget().getBytesPerTile()));
  std::ostringstream report;
  poplin::reportPlanInfo(report, graph, {16, 4096}, {4096, 16}, tight);
  EXPECT_NE(report.str().find("K split) " + std::to_string(plan.innerBlocks)), std::string::npos)
      << report.str();

  MatMulCase s{16, 16, 4096};
  s.options = tight;
  const auto a = randomValues(s.M * s.K, 51), b = randomValues(s.K * s.N, 52);
  expectClose(runMatMul(s, a, b), referenceMatMul(a, b, s.M, s.N, s.K), floatTolerance(s.K), 0,
              "C");
}

TEST(MatMul, HalfPartialsOfAKSplitAreRoundedOncePerPartial) {
  // partialsType "half": each K-split partial is stored as HALF (one rounding, relative 2^-11 of
  // its size, at most Σ_k |a·b|) and summed in FLOAT.
  const OptionFlags halfPartials{{"availableMemoryProportion", "0.1"}, {"partialsType", "half"}};
  Device d = device(16);
  Graph graph(d.getTarget());
  const auto plan =
      poplin::getMatMulPlan(graph, FLOAT, FLOAT, {16, 4096}, {4096, 16}, halfPartials);
  ASSERT_GT(plan.innerBlocks, 1u);
  ASSERT_EQ(plan.innerSteps, 1u);
  EXPECT_EQ(plan.partialsType, HALF);
  for (Type out : {FLOAT, HALF}) {
    MatMulCase s{16, 16, 4096};
    s.outType = out;
    const auto a = randomValues(s.M * s.K, 53), b = randomValues(s.K * s.N, 54);
    std::vector<float> absA(a.size()), absB(b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      absA[i] = std::abs(a[i]);
    for (std::size_t i = 0; i < b.size(); ++i)
      absB[i] = std::abs(b[i]);
    const auto want = referenceMatMul(a, b, s.M, s.N, s.K);
    const auto magnitude = referenceMatMul(absA, absB, s.M, s.N, s.K);
    s.options = halfPartials;
    const auto got = runMatMul(s, a, b);
    s.options = {{"availableMemoryProportion", "0.1"}};
    const auto floatPartials = runMatMul(s, a, b);
    EXPECT_NE(got, floatPartials) << "the HALF partials made no difference";
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i],
                  floatTolerance(s.K) + magnitude[i] / 2048 +
                      (out == HALF ? std::abs(want[i]) / 1024 : 0.0))
          << "out " << out.toString() << " element " << i;
  }
}

TEST(MatMul, EveryPlanRespectsTheBudget) {
  Device d = device(16);
  Graph graph(d.getTarget());
  for (const char *proportion : {"0.1", "0.3", "0.6", "1"})
    for (std::size_t size : {8u, 100u}) {
      const auto plan = poplin::getMatMulPlan(graph, FLOAT, FLOAT, {size, size}, {size, size},
                                              {{"availableMemoryProportion", proportion}});
      EXPECT_TRUE(plan.fitsBudget) << proportion << " " << size;
      EXPECT_LE(plan.bytesPerTile, plan.bytesBudget) << proportion << " " << size;
      EXPECT_LE(plan.tilesUsed, 16u);
    }
}

TEST(MatMul, ResultsAreBitIdenticalForAnyHostThreadCount) {
  MatMulCase s{50, 70, 900};
  s.options = {{"availableMemoryProportion", "0.05"}}; // also exercises the K split
  const auto a = randomValues(s.M * s.K, 61), b = randomValues(s.K * s.N, 62);
  s.hostThreads = 1;
  const auto one = runMatMul(s, a, b);
  s.hostThreads = 3;
  const auto three = runMatMul(s, a, b);
  EXPECT_EQ(one, three);
}

TEST(MatMul, DefaultIpuWith1472Tiles) {
  MatMulCase s{96, 80, 200};
  s.tiles = 1472;
  s.create = true;
  const auto a = randomValues(s.M * s.K, 71), b = randomValues(s.K * s.N, 72);
  expectClose(runMatMul(s, a, b), referenceMatMul(a, b, s.M, s.N, s.K), floatTolerance(s.K), 0,
              "C");
}

/// Runs C += k · A · B (2-D, or grouped when G > 0) and returns C.
std::vector<float> runAcc(std::size_t G, std::size_t M, std::size_t N, std::size_t K, float k,
                          const std::vector<float> &c0, const std::vector<float> &a,
                          const std::vector<float> &b, const OptionFlags &options = {}) {
  Device d = device(4);
  Graph graph(d.getTarget());
  poplin::addCodelets(graph);
  auto shape = [&](std::size_t r, std::size_t c) {
    return G ? std::vector<std::size_t>{G, r, c} : std::vector<std::size_t>{r, c};
  };
  Tensor A = graph.addVariable(FLOAT, shape(M, K), "A");
  Tensor B = graph.addVariable(FLOAT, shape(K, N), "B");
  Tensor C = graph.addVariable(FLOAT, shape(M, N), "C");
  for (const Tensor &t : {A, B, C})
    poputil::mapTensorLinearly(graph, t);
  graph.createHostWrite("a", A);
  graph.createHostWrite("b", B);
  graph.createHostWrite("c", C);
  graph.createHostRead("c", C);
  Sequence prog;
  if (G)
    poplin::matMulGroupedAcc(graph, C, k, A, B, prog, "acc", options);
  else
    poplin::matMulAcc(graph, C, k, A, B, prog, "acc", options);
  Engine engine(graph, prog);
  engine.load(d);
  engine.writeTensor("a", a.data(), a.data() + a.size());
  engine.writeTensor("b", b.data(), b.data() + b.size());
  engine.writeTensor("c", c0.data(), c0.data() + c0.size());
  engine.run();
  std::vector<float> out(c0.size());
  engine.readTensor("c", out.data(), out.data() + out.size());
  return out;
}

TEST(MatMulAcc, AddsScaledProductToC) {
  const std::size_t M = 13, N = 29, K = 37;
  const float k = -0.75f;
  const auto a = randomValues(M * K, 81), b = randomValues(K * N, 82), c0 = randomValues(M * N, 83);
  auto want = referenceMatMul(a, b, M, N, K);
  for (std::size_t i = 0; i < want.size(); ++i)
    want[i] = c0[i] + k * want[i];
  expectClose(runAcc(0, M, N, K, k, c0, a, b), want, floatTolerance(K), 0, "C");
  // Also with a K split.
  expectClose(runAcc(0, M, N, K, k, c0, a, b, {{"availableMemoryProportion", "0.004"}}), want,
              floatTolerance(K), 0, "C (K split)");
}

TEST(MatMulGrouped, EachGroupIsItsOwnProduct) {
  const std::size_t G = 3, M = 5, N = 9, K = 7;
  Device d = device(4);
  Graph graph(d.getTarget());
  poplin::addCodelets(graph);
  Tensor A = poplin::createMatMulGroupedInputLHS(graph, FLOAT, FLOAT, {G, M, K}, {G, K, N}, "A");
  Tensor B = poplin::createMatMulGroupedInputRHS(graph, FLOAT, FLOAT, {G, M, K}, {G, K, N}, "B");
  ASSERT_EQ(A.shape(), (std::vector<std::size_t>{G, M, K}));
  ASSERT_EQ(B.shape(), (std::vector<std::size_t>{G, K, N}));
  graph.createHostWrite("a", A);
  graph.createHostWrite("b", B);
  Sequence prog;
  Tensor C = poplin::matMulGrouped(graph, A, B, prog, FLOAT, "C");
  ASSERT_EQ(C.shape(), (std::vector<std::size_t>{G, M, N}));
  graph.createHostRead("c", C);
  Engine engine(graph, prog);
  engine.load(d);
  const auto a = randomValues(G * M * K, 91), b = randomValues(G * K * N, 92);
  engine.writeTensor("a", a.data(), a.data() + a.size());
  engine.writeTensor("b", b.data(), b.data() + b.size());
  engine.run();
  std::vector<float> c(G * M * N);
  engine.readTensor("c", c.data(), c.data() + c.size());
  for (std::size_t g = 0; g < G; ++g) {
    const std::vector<float> ag(a.begin() + g * M * K, a.begin() + (g + 1) * M * K);
    const std::vector<float> bg(b.begin() + g * K * N, b.begin() + (g + 1) * K * N);
    const std::vector<float> cg(c.begin() + g * M * N, c.begin() + (g + 1) * M * N);
    expectClose(cg, referenceMatMul(ag, bg, M, N, K), floatTolerance(K), 0,
                "group " + std::to_string(g));
  }
}

TEST(MatMulGrouped, AccumulatesPerGroup) {
  const std::size_t G = 2, M = 6, N = 4, K = 11;
  const float k = 2.0f;
  const auto a = randomValues(G * M * K, 101), b = randomValues(G * K * N, 102),
             c0 = randomValues(G * M * N, 103);
  std::vector<double> want(G * M * N);
  for (std::size_t g = 0; g < G; ++g) {
    const auto r = referenceMatMul({a.begin() + g * M * K, a.begin() + (g + 1) * M * K},
                                   {b.begin() + g * K * N, b.begin() + (g + 1) * K * N}, M, N, K);
    for (std::size_t i = 0; i < M * N; ++i)
      want[g * M * N + i] = c0[g * M * N + i] + k * r[i];
  }
  expectClose(runAcc(G, M, N, K, k, c0, a, b), want, floatTolerance(K), 0, "C");
}

TEST(MatMul, WithOutputWritesTheGivenTensor) {
  const std::size_t M = 7, N = 5, K = 9;
  Device d = device(4);
  Graph graph(d.getTarget());
  poplin::addCodelets(graph);
  Tensor A = graph.addVariable(FLOAT, {M, K}, "A");
  Tensor B = graph.addVariable(FLOAT, {K, N}, "B");
  Tensor out = graph.addVariable(FLOAT, {M, N}, "out");
  for (const Tensor &t : {A, B, out})
    poputil::mapTensorLinearly(graph, t);
  graph.createHostWrite("a", A);
  graph.createHostWrite("b", B);
  graph.createHostRead("out", out);
  Sequence prog;
  poplin::PlanningCache cache;
  poplin::matMulWithOutput(graph, A, B, out, prog, "mm", {}, &cache);
  poplin::matMulWithOutput(graph, A, B, out, prog, "mm again", {}, &cache);
  EXPECT_EQ(cache.size(), 1u);
  Engine engine(graph, prog);
  engine.load(d);
  const auto a = randomValues(M * K, 111), b = randomValues(K * N, 112);
  engine.writeTensor("a", a.data(), a.data() + a.size());
  engine.writeTensor("b", b.data(), b.data() + b.size());
  engine.run();
  std::vector<float> got(M * N);
  engine.readTensor("out", got.data(), got.data() + got.size());
  expectClose(got, referenceMatMul(a, b, M, N, K), floatTolerance(K), 0, "out");
}

} // namespace

namespace {

TEST(MatMul, SerialInnerStepsKeepTightBudgets) {
  // Replicated operand blocks would not fit these budgets: the planner walks K in serial steps.
  struct Tight {
    std::size_t n, k;
    const char *proportion;
  };
  for (const Tight t : {Tight{128, 256, "0.05"}, Tight{64, 256, "0.03"}}) {
    Device d = device(16);
    Graph graph(d.getTarget());
    const OptionFlags options{{"availableMemoryProportion", t.proportion}};
    const auto plan = poplin::getMatMulPlan(graph, FLOAT, FLOAT, {t.n, t.k}, {t.k, t.n}, options);
    EXPECT_GT(plan.innerSteps, 1u) << t.n;
    EXPECT_TRUE(plan.fitsBudget) << t.n;
    EXPECT_LE(plan.bytesPerTile, plan.bytesBudget) << t.n;
    for (bool create : {true, false}) {
      MatMulCase s{t.n, t.n, t.k};
      s.options = options;
      s.create = create;
      const auto a = randomValues(s.M * s.K, 121), b = randomValues(s.K * s.N, 122);
      expectClose(runMatMul(s, a, b), referenceMatMul(a, b, s.M, s.N, s.K), floatTolerance(s.K), 0,
                  "n=" + std::to_string(t.n) + " create=" + std::to_string(create));
    }
  }
}

} // namespace
