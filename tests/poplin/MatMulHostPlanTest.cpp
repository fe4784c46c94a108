// The host-time plan objective: plans stay within each tile's budget, operand slices on spare
// storage tiles and direct accumulation into fp32 outputs give the reference result,
// bit-identically for any host-thread count, and the planObjective option is checked.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>
#include <poplin/MatMul.hpp>
#include <poplin/MatMulPlan.hpp>
#include <poplin/codelets.hpp>

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

/// A multiply of host data a [M×K] · b [K×N] with operands from createMatMulInput*.
struct HostPlanCase {
  std::size_t M, N, K;
  unsigned tiles;
  OptionFlags options;
};

std::vector<float> run(const HostPlanCase &s, const std::vector<float> &a,
                       const std::vector<float> &b, unsigned hostThreads) {
  Device d = device(s.tiles);
  Graph graph(d.getTarget());
  poplin::addCodelets(graph);
  const std::vector<std::size_t> aShape{s.M, s.K}, bShape{s.K, s.N};
  Tensor A = poplin::createMatMulInputLHS(graph, FLOAT, FLOAT, aShape, bShape, "A", s.options);
  Tensor B = poplin::createMatMulInputRHS(graph, FLOAT, FLOAT, aShape, bShape, "B", s.options);
  graph.createHostWrite("a", A);
  graph.createHostWrite("b", B);
  Sequence prog;
  Tensor C = poplin::matMul(graph, A, B, prog, "C", s.options);
  graph.createHostRead("c", C);
  Engine engine(graph, prog, {{"target.hostThreads", std::to_string(hostThreads)}});
  engine.load(d);
  engine.writeTensor("a", a.data(), a.data() + a.size());
  engine.writeTensor("b", b.data(), b.data() + b.size());
  engine.run();
  std::vector<float> c(s.M * s.N);
  engine.readTensor("c", c.data(), c.data() + c.size());
  return c;
}

void expectNearReference(const std::vector<float> &got, const std::vector<double> &want,
                         std::size_t K, const std::string &what) {
  ASSERT_EQ(got.size(), want.size());
  const double tolerance = 1e-5 + 2e-6 * double(K);
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tolerance) << what << " element " << i;
}

TEST(MatMulHostPlan, PlansFitTheBudgetAndTheTiles) {
  for (unsigned tiles : {16u, 64u, 1472u})
    for (const char *proportion : {"0.02", "0.1", "0.6"})
      for (std::size_t n : {8u, 100u, 300u, 1024u}) {
        if (tiles < 1472 && n == 1024)
          continue; // does not fit the smallest models at all
        Device d = device(tiles);
        Graph graph(d.getTarget());
        const auto plan = poplin::getMatMulPlan(graph, FLOAT, FLOAT, {n, n}, {n, n},
                                                {{"availableMemoryProportion", proportion}});
        const std::string where =
            std::to_string(tiles) + " tiles, " + proportion + ", n " + std::to_string(n);
        if (!plan.fitsBudget)
          continue; // the least-memory plan, flagged; the compiler then checks tile memory
        EXPECT_LE(plan.bytesPerTile, plan.bytesBudget) << where;
        EXPECT_LE(plan.tilesUsed + plan.storageTiles, tiles) << where;
        EXPECT_GE(plan.groupBlocks * plan.rowBlocks * plan.colBlocks * plan.innerBlocks, 1u);
        EXPECT_GE(plan.rowsPerBlock * plan.rowBlocks, n) << where;
        EXPECT_GE(plan.innerPerStep * plan.innerSteps, plan.innerPerBlock) << where;
        if (plan.storageTiles) {
          EXPECT_GT(plan.innerSteps, 1u) << where;
        }
      }
}

TEST(MatMulHostPlan, TheCompilerFindsEveryTileWithinItsMemory) {
  // Tiles of 48 KiB and (almost) all of it offered: the compiler, which lays out every tile's
  // arena (operands, exchange buffers, vertex state), refuses a tile that overflows, so a plan
  // that undercounts its tiles' bytes fails here.
  for (const auto &[m, n, k] : {std::tuple<std::size_t, std::size_t, std::size_t>{100, 90, 200},
                                {128, 128, 256},
                                {64, 300, 120}})
    for (const char *objective : {"hostTime", "ipuCycles"}) {
      IPUModel model;
      model.tilesPerIPU = 64;
      model.memoryBytesPerTile = 48 * 1024;
      Device d = model.createDevice();
      Graph graph(d.getTarget());
      poplin::addCodelets(graph);
      const OptionFlags options{{"availableMemoryProportion", "0.9"}, {"planObjective", objective}};
      const std::vector<std::size_t> aShape{m, k}, bShape{k, n};
      const auto plan = poplin::getMatMulPlan(graph, FLOAT, FLOAT, aShape, bShape, options);
      ASSERT_TRUE(plan.fitsBudget) << plan;
      Tensor A = poplin::createMatMulInputLHS(graph, FLOAT, FLOAT, aShape, bShape, "A", options);
      Tensor B = poplin::createMatMulInputRHS(graph, FLOAT, FLOAT, aShape, bShape, "B", options);
      Sequence prog;
      poplin::matMul(graph, A, B, prog, "C", options);
      EXPECT_NO_THROW({ Engine engine(graph, prog); }) << plan;
    }
}

TEST(MatMulHostPlan, LargeProductsUseFewerLargerBlocksThanTheIpuPlan) {
  Device d = device(1472);
  Graph graph(d.getTarget());
  const std::vector<std::size_t> shape{1024, 1024};
  const auto host = poplin::getMatMulPlan(graph, FLOAT, FLOAT, shape, shape);
  const auto ipu =
      poplin::getMatMulPlan(graph, FLOAT, FLOAT, shape, shape, {{"planObjective", "ipuCycles"}});
  EXPECT_EQ(host.objective, poplin::PlanObjective::HOST_TIME);
  EXPECT_EQ(ipu.objective, poplin::PlanObjective::IPU_CYCLES);
  // Each objective's plan is at least as good as the other's by its own measure.
  EXPECT_LE(host.hostNanoseconds, ipu.hostNanoseconds);
  EXPECT_LE(ipu.totalCycles, host.totalCycles);
  EXPECT_LT(host.tilesUsed, ipu.tilesUsed);
  EXPECT_GT(host.rowsPerBlock * host.colsPerBlock, ipu.rowsPerBlock * ipu.colsPerBlock);
  EXPECT_TRUE(host.fitsBudget);
  std::ostringstream printed;
  printed << host;
  EXPECT_NE(printed.str().find("chosen for host time"), std::string::npos) << printed.str();
  EXPECT_NE(printed.str().find("on " + std::to_string(host.tilesUsed) + " tiles"),
            std::string::npos)
      << printed.str();
}

TEST(MatMulHostPlan, StorageTilesGiveTheReferenceResultForAnyThreadCount) {
  // Tight budgets on a 64-tile model: serial steps with operand slices on spare tiles, ragged
  // blocks in every dimension.
  const HostPlanCase s{100, 90, 200, 64, {{"availableMemoryProportion", "0.02"}}};
  {
    Device d = device(s.tiles);
    Graph graph(d.getTarget());
    const auto plan = poplin::getMatMulPlan(graph, FLOAT, FLOAT, {s.M, s.K}, {s.K, s.N}, s.options);
    ASSERT_GT(plan.storageTiles, 0u);
    ASSERT_GT(plan.innerSteps, 1u);
    std::ostringstream printed;
    printed << plan;
    EXPECT_NE(printed.str().find("storage tiles"), std::string::npos) << printed.str();
  }
  const auto a = randomValues(s.M * s.K, 201), b = randomValues(s.K * s.N, 202);
  const auto one = run(s, a, b, 1);
  expectNearReference(one, referenceMatMul(a, b, s.M, s.N, s.K), s.K, "storage tiles");
  EXPECT_EQ(one, run(s, a, b, 3));
}

TEST(MatMulHostPlan, SerialStepsAccumulateStraightIntoAFloatOutput) {
  // No K split, several steps: each unit accumulates into its own output block (no partials).
  const HostPlanCase s{128, 128, 256, 16, {{"availableMemoryProportion", "0.05"}}};
  {
    Device d = device(s.tiles);
    Graph graph(d.getTarget());
    const auto plan = poplin::getMatMulPlan(graph, FLOAT, FLOAT, {s.M, s.K}, {s.K, s.N}, s.options);
    ASSERT_EQ(plan.innerBlocks, 1u);
    ASSERT_GT(plan.innerSteps, 1u);
  }
  const auto a = randomValues(s.M * s.K, 211), b = randomValues(s.K * s.N, 212);
  const auto one = run(s, a, b, 1);
  expectNearReference(one, referenceMatMul(a, b, s.M, s.N, s.K), s.K, "direct steps");
  EXPECT_EQ(one, run(s, a, b, 2));
}

TEST(MatMulHostPlan, IpuCyclesObjectiveStillSplitsKAndMatchesTheReference) {
  const HostPlanCase s{96, 80, 200, 64, {{"planObjective", "ipuCycles"}}};
  {
    Device d = device(s.tiles);
    Graph graph(d.getTarget());
    const auto plan = poplin::getMatMulPlan(graph, FLOAT, FLOAT, {s.M, s.K}, {s.K, s.N}, s.options);
    ASSERT_GT(plan.innerBlocks, 1u);
    ASSERT_EQ(plan.objective, poplin::PlanObjective::IPU_CYCLES);
  }
  const auto a = randomValues(s.M * s.K, 221), b = randomValues(s.K * s.N, 222);
  const auto one = run(s, a, b, 1);
  expectNearReference(one, referenceMatMul(a, b, s.M, s.N, s.K), s.K, "ipuCycles plan");
  EXPECT_EQ(one, run(s, a, b, 2));
}

TEST(MatMulHostPlan, PlanObjectiveIsChecked) {
  Device d = device(4);
  Graph graph(d.getTarget());
  poplin::addCodelets(graph);
  Tensor A = graph.addVariable(FLOAT, {3, 4}, "A"), B = graph.addVariable(FLOAT, {4, 5}, "B");
  graph.setTileMapping(A, 0);
  graph.setTileMapping(B, 0);
  Sequence prog;
  try {
    poplin::matMul(graph, A, B, prog, "mm", {{"planObjective", "fastest"}});
    FAIL() << "no exception for planObjective 'fastest'";
  } catch (const invalid_option &e) {
    EXPECT_NE(std::string(e.what()).find("option 'planObjective' has value 'fastest'; expected "
                                         "'hostTime' or 'ipuCycles'"),
              std::string::npos)
        << e.what();
  }
  for (const char *valid : {"hostTime", "ipuCycles"})
    EXPECT_EQ(poplin::matMul(graph, A, B, prog, "mm", {{"planObjective", valid}}).shape(),
              (std::vector<std::size_t>{3, 5}));
}

} // namespace
