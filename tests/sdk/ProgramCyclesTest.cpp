// Engine::estimateProgramCycles: a program's IPU cycles read from its compiled steps without
// running it. Checked against the sums the program's structure implies (programs holding one
// compute set each give the parts) and against what an execution profile records for a run.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {

/// Two compute sets of known vertex cost (setPerfEstimate), a flag and a switch control.
struct CostGraph {
  Device device = enginetest::smallDevice(4);
  Graph graph{device.getTarget()};
  Tensor counter, flag, control;
  ComputeSet cheap, dear, test;

  CostGraph() {
    testvertices::registerTestVertices();
    counter = graph.addVariable(INT, {}, "counter");
    graph.setTileMapping(counter, 1);
    graph.setInitialValue(counter, 0);
    cheap = incrementing("cheap", 500);
    dear = incrementing("dear", 4000);
    flag = graph.addVariable(BOOL, {}, "flag");
    graph.setTileMapping(flag, 2);
    test = graph.addComputeSet("test");
    VertexRef v = graph.addVertex(test, "LessThan", {{"value", counter}, {"flag", flag}});
    graph.setInitialValue(v["limit"], 3);
    graph.setTileMapping(v, 2);
    control = graph.addVariable(INT, {}, "control");
    graph.setTileMapping(control, 0);
    graph.setInitialValue(control, 0);
  }

  ComputeSet incrementing(const std::string &name, std::uint64_t cycles) {
    ComputeSet cs = graph.addComputeSet(name);
    VertexRef v = graph.addVertex(cs, "Increment", {{"counter", counter}});
    graph.setTileMapping(v, 1);
    graph.setPerfEstimate(v, cycles);
    return cs;
  }
};

} // namespace

TEST(ProgramCycles, ControlFlowCountsWhatTheStructureRuns) {
  CostGraph g;
  Function f = g.graph.addFunction(Sequence{Execute(g.cheap), Execute(g.dear)});
  const std::vector<Program> programs = {
      Execute(g.cheap),                                                                 // 0
      Execute(g.dear),                                                                  // 1
      Execute(g.test),                                                                  // 2
      Sequence{Execute(g.cheap), Repeat(3, Execute(g.dear))},                           // 3
      If(g.flag, Execute(g.cheap), Execute(g.dear)),                                    // 4
      If(g.flag, Execute(g.dear)),                                                      // 5
      RepeatWhileTrue(Execute(g.test), g.flag, Execute(g.dear)),                        // 6
      Switch(g.control, {{1, Execute(g.dear)}, {2, Execute(g.cheap)}},                  // 7
             Sequence{Execute(g.cheap), Execute(g.cheap)}),                             //
      Sequence{Call(f), Repeat(2, Call(f))},                                            // 8
      Sequence{Execute(g.cheap), Switch(g.control, Execute(g.dear)), Execute(g.cheap)}, // 9
  };
  Engine engine(g.graph, programs);
  engine.load(g.device);
  const std::uint64_t cheap = engine.estimateProgramCycles(0);
  const std::uint64_t dear = engine.estimateProgramCycles(1);
  const std::uint64_t test = engine.estimateProgramCycles(2);
  ASSERT_GT(cheap, 0u);
  ASSERT_GT(dear, cheap + 3000) << "the vertices' setPerfEstimate must show";
  EXPECT_EQ(engine.estimateProgramCycles(3), cheap + 3 * dear);
  EXPECT_EQ(engine.estimateProgramCycles(4), std::max(cheap, dear));
  EXPECT_EQ(engine.estimateProgramCycles(5), dear);
  EXPECT_EQ(engine.estimateProgramCycles(6), test + dear) << "one pass of condition and body";
  EXPECT_EQ(engine.estimateProgramCycles(7), dear) << "the dearest of cases and default";
  EXPECT_EQ(engine.estimateProgramCycles(8), 3 * (cheap + dear));
  EXPECT_EQ(engine.estimateProgramCycles(9), cheap + dear + cheap);
}

TEST(ProgramCycles, EqualsWhatTheExecutionProfileRecordsForOneRun) {
  CostGraph g;
  const Program prog =
      Sequence{Execute(g.cheap), Repeat(4, Sequence{Execute(g.dear), Execute(g.test)})};
  Engine engine(g.graph, prog, {{"debug.instrument", "true"}});
  engine.load(g.device);
  const std::uint64_t estimate = engine.estimateProgramCycles();
  engine.run();
  const auto profile = engine.getExecutionProfile();
  ASSERT_TRUE(profile.has_value());
  EXPECT_EQ(estimate, profile->totalEstimatedCycles);
}

TEST(ProgramCycles, ProgramThatDoesNotExistIsNamed) {
  CostGraph g;
  Engine engine(g.graph, Execute(g.cheap));
  enginetest::expectThrowWithMessage<index_error>(
      [&] { engine.estimateProgramCycles(7); },
      {"estimateProgramCycles", "program 7 does not exist"});
}
