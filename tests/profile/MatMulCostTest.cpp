// The cost model on poplin::matMul: estimated cycles grow with the work (ratios, not absolutes).
#include <gtest/gtest.h>

#include <iostream>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/MatMul.hpp>
#include <poplin/codelets.hpp>
#include <popops/codelets.hpp>

using namespace poplar;
using namespace poplar::program;

namespace {

/// Total estimated cycles of every step of one M×K by K×N matMul on a 16-tile IPU Model, planned
/// for the IPU (the host's plans may trade exchange for host speed as sizes change).
std::uint64_t matMulCycles(std::size_t m, std::size_t k, std::size_t n) {
  IPUModel model;
  model.tilesPerIPU = 16;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  poplin::addCodelets(graph);
  const OptionFlags ipu{{"planObjective", "ipuCycles"}};
  Tensor a = poplin::createMatMulInputLHS(graph, FLOAT, {m, k}, {k, n}, "a", ipu);
  Tensor b = poplin::createMatMulInputRHS(graph, FLOAT, {m, k}, {k, n}, "b", ipu);
  Sequence prog;
  poplin::matMul(graph, a, b, prog, FLOAT, "mm", ipu);
  Engine engine(graph, prog);
  engine.load(device); // prices vertex classes' own estimates too
  std::uint64_t cycles = 0;
  for (const auto &s : engine.getGraphProfile().steps)
    cycles += s.estimatedCycles;
  return cycles;
}

} // namespace

TEST(MatMulCost, CyclesGrowWithTheMultiplyAddCount) {
  const std::uint64_t small = matMulCycles(64, 64, 64);
  const std::uint64_t doubleM = matMulCycles(128, 64, 64);
  const std::uint64_t eightX = matMulCycles(128, 128, 128);
  ASSERT_GT(small, 0u);
  std::cout << "matMul cycles 64^3 " << small << ", 128x64x64 " << doubleM << ", 128^3 " << eightX
            << "\n";
  // Twice the work costs clearly more but at most about twice (fixed costs amortise).
  const double r2 = double(doubleM) / double(small);
  EXPECT_GT(r2, 1.3) << small << " -> " << doubleM;
  EXPECT_LT(r2, 2.2) << small << " -> " << doubleM;
  // Eight times the work: clearly more, at most about eight times. (At the AMP's rate the
  // products are a small part of such small matMuls; exchange and syncs amortise.)
  const double r8 = double(eightX) / double(small);
  EXPECT_GT(r8, 2.5) << small << " -> " << eightX;
  EXPECT_LT(r8, 8.8) << small << " -> " << eightX;
}
