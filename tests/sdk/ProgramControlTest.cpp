// Control programs: Sequence, Repeat, RepeatWhile*, If, Switch, Call, multiple programs,
// Abort (PrintTensor's text is in PrintTensorTest.cpp). Each test counts vertex executions with an
// Increment counter and checks the count against the number of times the program semantics say the
// body must run.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;
using enginetest::expectThrowWithMessage;

namespace {

/// A graph with an int counter on tile 1, a compute set that increments it, and host access.
struct CounterGraph {
  Device device = enginetest::smallDevice(4);
  Graph graph{device.getTarget()};
  Tensor counter;
  ComputeSet inc;

  CounterGraph() {
    testvertices::registerTestVertices();
    counter = graph.addVariable(INT, {}, "counter");
    graph.setTileMapping(counter, 1);
    graph.setInitialValue(counter, 0);
    inc = graph.addComputeSet("inc");
    VertexRef v = graph.addVertex(inc, "Increment", {{"counter", counter}});
    graph.setTileMapping(v, 1);
    graph.createHostRead("counter", counter);
    graph.createHostWrite("counterIn", counter);
  }

  /// A compute set computing flag = (counter < limit) on tile 2.
  Tensor lessThan(int limit, ComputeSet &cs) {
    Tensor flag = graph.addVariable(BOOL, {}, "flag");
    graph.setTileMapping(flag, 2);
    cs = graph.addComputeSet("lessThan");
    VertexRef v = graph.addVertex(cs, "LessThan", {{"value", counter}, {"flag", flag}});
    graph.setInitialValue(v["limit"], limit);
    graph.setTileMapping(v, 2);
    return flag;
  }

  /// A scalar the host writes with handle `name` (for predicates and Switch controls).
  Tensor hostScalar(Type type, const std::string &name, unsigned tile = 0) {
    Tensor t = graph.addVariable(type, {}, name);
    graph.setTileMapping(t, tile);
    graph.createHostWrite(name, t);
    return t;
  }

  static int read(Engine &e) {
    int v = -1;
    e.readTensor("counter", &v, &v + 1);
    return v;
  }
};

int runOnce(CounterGraph &g, const Program &prog) {
  Engine engine(g.graph, prog);
  engine.load(g.device);
  engine.run(0);
  return CounterGraph::read(engine);
}

} // namespace

TEST(ProgramSequence, RunsChildrenInOrder) {
  testvertices::registerTestVertices();
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor a = graph.addVariable(FLOAT, {4}, "a");
  Tensor b = graph.addVariable(FLOAT, {4}, "b");
  graph.setTileMapping(a, 0);
  graph.setTileMapping(b, 1);
  graph.setInitialValue(a, ArrayRef<float>{1, 2, 3, 4});
  ComputeSet cs = graph.addComputeSet("double");
  VertexRef v = graph.addVertex(cs, "Scale", {{"data", a}});
  graph.setInitialValue(v["factor"], 2.0f);
  graph.setTileMapping(v, 0);
  graph.createHostRead("a", a);
  graph.createHostRead("b", b);
  // b must see a before doubling; a is doubled once.
  Engine engine(graph, Sequence{Copy(a, b), Execute(cs)});
  engine.load(device);
  engine.run();
  std::vector<float> ha(4), hb(4);
  engine.readTensor("a", ha.data(), ha.data() + 4);
  engine.readTensor("b", hb.data(), hb.data() + 4);
  EXPECT_EQ(hb, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(ha, (std::vector<float>{2, 4, 6, 8}));
}

TEST(ProgramSequence, AddAfterConstructionIsSeenByHolders) {
  CounterGraph g;
  Sequence inner;
  Sequence outer{inner, Execute(g.inc)};
  inner.add(Execute(g.inc));
  inner.add(Execute(g.inc));
  EXPECT_EQ(runOnce(g, outer), 3);
}

TEST(ProgramSequence, EmptyProgramRunsAndChangesNothing) {
  CounterGraph g;
  EXPECT_EQ(runOnce(g, Sequence()), 0);
}

TEST(ProgramSequence, SameComputeSetExecutedTwice) {
  CounterGraph g;
  EXPECT_EQ(runOnce(g, Sequence{Execute(g.inc), Execute(g.inc)}), 2);
}

TEST(ProgramSequence, StateCarriesOverBetweenRuns) {
  CounterGraph g;
  Engine engine(g.graph, Repeat(3, Execute(g.inc)));
  engine.load(g.device);
  for (int run = 1; run <= 4; ++run) {
    engine.run();
    EXPECT_EQ(CounterGraph::read(engine), 3 * run);
  }
}

TEST(ProgramSequence, WriteUndefAndSyncAreNoOps) {
  CounterGraph g;
  EXPECT_EQ(runOnce(g, Sequence{Execute(g.inc), WriteUndef(g.counter), Sync(SyncType::INTERNAL),
                                Execute(g.inc)}),
            2);
}

TEST(ProgramSequence, SequenceCannotAddItself) {
  CounterGraph g;
  Sequence s;
  expectThrowWithMessage<control_program_error>([&] { s.add(s); }, {"contain itself"});
}

TEST(ProgramSequence, CycleThroughAnotherSequenceIsRejectedWhenAdded) {
  CounterGraph g;
  Sequence a("outer"), b("inner"), c("innermost");
  a.add(b);
  b.add(c);
  // Closing the loop would make a program that contains itself (and could never be freed).
  expectThrowWithMessage<control_program_error>(
      [&] { c.add(a); }, {"'innermost'", "cannot contain itself", "already contains"});
  // The refused add left the programs as they were: they still compile and run.
  c.add(Execute(g.inc));
  EXPECT_EQ(runOnce(g, a), 1);
}

TEST(ProgramRepeat, RunsBodyCountTimes) {
  CounterGraph g;
  EXPECT_EQ(runOnce(g, Repeat(5, Execute(g.inc))), 5);
}

TEST(ProgramRepeat, ZeroCountSkipsBody) {
  CounterGraph g;
  EXPECT_EQ(runOnce(g, Sequence{Repeat(0, Execute(g.inc)), Execute(g.inc)}), 1);
}

TEST(ProgramRepeat, NestedRepeatsMultiply) {
  CounterGraph g;
  EXPECT_EQ(runOnce(g, Repeat(3, Repeat(4, Execute(g.inc)))), 12);
}

TEST(ProgramRepeat, NestedWithZeroInnerAndSharedBody) {
  CounterGraph g;
  Program body = Execute(g.inc);
  // 2 × (0 + 1 + 3 × (1 + 2)) = 20, with the same body handle used in several places.
  Program prog =
      Repeat(2, Sequence{Repeat(0, body), body, Repeat(3, Sequence{body, Repeat(2, body)})});
  EXPECT_EQ(runOnce(g, prog), 20);
}

TEST(ProgramRepeatWhile, TrueLoopsUntilPredicateFalse) {
  CounterGraph g;
  ComputeSet cond;
  Tensor flag = g.lessThan(7, cond);
  EXPECT_EQ(runOnce(g, RepeatWhileTrue(Execute(cond), flag, Execute(g.inc))), 7);
}

TEST(ProgramRepeatWhile, TrueWithFalsePredicateNeverRunsBody) {
  CounterGraph g;
  ComputeSet cond;
  Tensor flag = g.lessThan(0, cond);
  EXPECT_EQ(runOnce(g, RepeatWhileTrue(Execute(cond), flag, Execute(g.inc))), 0);
}

TEST(ProgramRepeatWhile, ConditionRunsBeforeEveryTest) {
  // The condition program increments too: it runs n+1 times for n bodies.
  CounterGraph g;
  ComputeSet cond;
  Tensor flag = g.lessThan(10, cond);
  // cond: counter += 1, then flag = counter < 10; body: counter += 1.
  // Values after each cond: 1,3,5,7,9,11 → 5 bodies; final counter 11.
  EXPECT_EQ(
      runOnce(g, RepeatWhileTrue(Sequence{Execute(g.inc), Execute(cond)}, flag, Execute(g.inc))),
      11);
}

TEST(ProgramRepeatWhile, FalseLoopsUntilPredicateTrue) {
  CounterGraph g;
  Tensor flag = g.graph.addVariable(BOOL, {}, "atLeast");
  g.graph.setTileMapping(flag, 3);
  ComputeSet cond = g.graph.addComputeSet("atLeast");
  VertexRef v = g.graph.addVertex(cond, "AtLeast", {{"value", g.counter}, {"flag", flag}});
  g.graph.setInitialValue(v["limit"], 9);
  g.graph.setTileMapping(v, 0);
  Engine engine(g.graph, RepeatWhileFalse(Execute(cond), flag, Execute(g.inc)));
  engine.load(g.device);
  int start = 2;
  engine.writeTensor("counterIn", &start, &start + 1);
  engine.run();
  EXPECT_EQ(CounterGraph::read(engine), 9);
  // Already at the limit: the body must not run again.
  engine.run();
  EXPECT_EQ(CounterGraph::read(engine), 9);
}

TEST(ProgramRepeatWhile, PredicateMustBeScalar) {
  CounterGraph g;
  Tensor many = g.graph.addVariable(BOOL, {2}, "twoFlags");
  g.graph.setTileMapping(many, 0);
  expectThrowWithMessage<control_program_error>(
      [&] { RepeatWhileTrue(Sequence(), many, Execute(g.inc)); },
      {"RepeatWhileTrue", "twoFlags", "exactly one element"});
}

TEST(ProgramIf, TakesThenOrElseByPredicate) {
  CounterGraph g;
  Tensor pred = g.hostScalar(BOOL, "pred");
  Engine engine(g.graph, If(pred, Repeat(3, Execute(g.inc)), Execute(g.inc)));
  engine.load(g.device);
  bool t = true, f = false;
  engine.writeTensor("pred", &t, &t + 1);
  engine.run();
  EXPECT_EQ(CounterGraph::read(engine), 3);
  engine.writeTensor("pred", &f, &f + 1);
  engine.run();
  EXPECT_EQ(CounterGraph::read(engine), 4);
}

TEST(ProgramIf, WithoutElseDoesNothingWhenFalse) {
  CounterGraph g;
  Tensor pred = g.hostScalar(BOOL, "pred");
  Engine engine(g.graph, Sequence{If(pred, Repeat(5, Execute(g.inc))), Execute(g.inc)});
  engine.load(g.device);
  bool f = false, t = true;
  engine.writeTensor("pred", &f, &f + 1);
  engine.run();
  EXPECT_EQ(CounterGraph::read(engine), 1);
  engine.writeTensor("pred", &t, &t + 1);
  engine.run();
  EXPECT_EQ(CounterGraph::read(engine), 7);
}

TEST(ProgramIf, NonBoolPredicatesTestNonZero) {
  CounterGraph g;
  Tensor ip = g.hostScalar(INT, "ip", 2);
  Tensor fp = g.hostScalar(FLOAT, "fp", 3);
  Engine engine(g.graph, Sequence{If(ip, Execute(g.inc)), If(fp, Repeat(10, Execute(g.inc)))});
  engine.load(g.device);
  struct Case {
    int i;
    float f;
    int expectAdded;
  };
  int total = 0;
  for (Case c : {Case{-5, 0.0f, 1}, Case{0, 0.5f, 10}, Case{0, 0.0f, 0}, Case{7, -2.0f, 11}}) {
    engine.writeTensor("ip", &c.i, &c.i + 1);
    engine.writeTensor("fp", &c.f, &c.f + 1);
    engine.run();
    total += c.expectAdded;
    EXPECT_EQ(CounterGraph::read(engine), total) << "i=" << c.i << " f=" << c.f;
  }
}

TEST(ProgramIf, PredicateOnRemoteTileAfterComputeSet) {
  // The predicate is produced by a vertex in the same program, on another tile.
  CounterGraph g;
  ComputeSet cond;
  Tensor flag = g.lessThan(2, cond);
  Program step = Sequence{Execute(cond), If(flag, Execute(g.inc))};
  // counter: 0 → 1 → 2 → stays 2.
  EXPECT_EQ(runOnce(g, Repeat(5, step)), 2);
}

TEST(ProgramSwitch, SelectsCaseOrDefault) {
  CounterGraph g;
  Tensor control = g.hostScalar(INT, "control");
  Switch sw(control,
            {{0, Execute(g.inc)}, {1, Repeat(2, Execute(g.inc))}, {5, Repeat(5, Execute(g.inc))}},
            Repeat(100, Execute(g.inc)));
  Engine engine(g.graph, sw);
  engine.load(g.device);
  int total = 0;
  for (auto [value, added] :
       std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {5, 5}, {2, 100}, {-1, 100}, {1, 2}}) {
    engine.writeTensor("counterIn", &total, &total + 1);
    engine.writeTensor("control", &value, &value + 1);
    engine.run();
    EXPECT_EQ(CounterGraph::read(engine), total + added) << "control " << value;
    total += added;
  }
}

TEST(ProgramSwitch, AddChainsAndNegativeCases) {
  CounterGraph g;
  Tensor control = g.hostScalar(SHORT, "control");
  Switch sw(control);
  sw.add(-3, Repeat(3, Execute(g.inc))).add(4, Repeat(4, Execute(g.inc)));
  Engine engine(g.graph, sw);
  engine.load(g.device);
  int total = 0;
  for (auto [value, added] : std::vector<std::pair<short, int>>{{-3, 3}, {4, 4}, {3, 0}, {-4, 0}}) {
    engine.writeTensor("control", &value, &value + 1);
    engine.run();
    total += added;
    EXPECT_EQ(CounterGraph::read(engine), total) << "control " << value;
  }
}

TEST(ProgramSwitch, OnlyDefaultAlwaysRuns) {
  CounterGraph g;
  Tensor control = g.hostScalar(UNSIGNED_INT, "control");
  Engine engine(g.graph, Switch(control, Repeat(2, Execute(g.inc))));
  engine.load(g.device);
  unsigned value = 12345;
  engine.writeTensor("control", &value, &value + 1);
  engine.run();
  EXPECT_EQ(CounterGraph::read(engine), 2);
}

TEST(ProgramSwitch, DuplicateCaseIsAnError) {
  CounterGraph g;
  Tensor control = g.hostScalar(INT, "control");
  expectThrowWithMessage<control_program_error>(
      [&] {
        Switch(control, {{1, Execute(g.inc)}, {1, Sequence()}}, {"pick"});
      },
      {"case 1", "twice", "pick"});
  Switch sw(control, {{2, Execute(g.inc)}});
  expectThrowWithMessage<control_program_error>([&] { sw.add(2, Sequence()); }, {"case 2"});
}

TEST(ProgramSwitch, FloatControlIsAnError) {
  CounterGraph g;
  Tensor control = g.hostScalar(FLOAT, "floatControl");
  expectThrowWithMessage<control_program_error>([&] { Switch sw(control); },
                                                {"floatControl", "integer"});
}

TEST(ProgramCall, FunctionCalledTwiceRunsTwice) {
  CounterGraph g;
  Function f = g.graph.addFunction(Repeat(3, Execute(g.inc)));
  EXPECT_EQ(runOnce(g, Sequence{Call(f), Call(f)}), 6);
}

TEST(ProgramCall, FunctionCalledFromTwoPrograms) {
  CounterGraph g;
  Function f = g.graph.addFunction(Repeat(2, Execute(g.inc)));
  std::vector<Program> progs{Sequence{Call(f), Execute(g.inc)},
                             Sequence{Execute(g.inc), Call(f), Call(f)}};
  Engine engine(g.graph, progs);
  engine.load(g.device);
  engine.run(0);
  EXPECT_EQ(CounterGraph::read(engine), 3);
  engine.run(1);
  EXPECT_EQ(CounterGraph::read(engine), 8);
  engine.run(0);
  EXPECT_EQ(CounterGraph::read(engine), 11);
}

TEST(ProgramCall, FunctionInsideRepeatAndFunctionCallingFunction) {
  CounterGraph g;
  Function inner = g.graph.addFunction(Repeat(2, Execute(g.inc)));
  Function outer = g.graph.addFunction(Sequence{Call(inner), Execute(g.inc), Call(inner)});
  // Each outer: 2 + 1 + 2 = 5; four times.
  EXPECT_EQ(runOnce(g, Repeat(4, Call(outer))), 20);
}

TEST(ProgramCall, RecursiveFunctionIsRejected) {
  CounterGraph g;
  Sequence body;
  Function f = g.graph.addFunction(body);
  body.add(Execute(g.inc));
  body.add(Call(f));
  expectThrowWithMessage<control_program_error>(
      [&] { Engine e(g.graph, Call(f)); }, {"function " + std::to_string(f.getId()), "recursion"});
}

TEST(ProgramCall, MutualRecursionIsRejected) {
  CounterGraph g;
  Sequence bodyA, bodyB;
  Function a = g.graph.addFunction(bodyA);
  Function b = g.graph.addFunction(bodyB);
  bodyA.add(Call(b));
  bodyB.add(Call(a));
  expectThrowWithMessage<control_program_error>([&] { Engine e(g.graph, Call(a)); },
                                                {"calls itself"});
}

TEST(ProgramMulti, RunSelectsProgramByIndex) {
  CounterGraph g;
  std::vector<Program> progs{Execute(g.inc), Repeat(10, Execute(g.inc)), Sequence()};
  Engine engine(g.graph, progs);
  engine.load(g.device);
  engine.run(1);
  EXPECT_EQ(CounterGraph::read(engine), 10);
  engine.run(0);
  EXPECT_EQ(CounterGraph::read(engine), 11);
  engine.run(2);
  EXPECT_EQ(CounterGraph::read(engine), 11);
  engine.run(1);
  EXPECT_EQ(CounterGraph::read(engine), 21);
}

TEST(ProgramMulti, RunOutOfRangeIsIndexError) {
  CounterGraph g;
  std::vector<Program> progs{Execute(g.inc), Execute(g.inc)};
  Engine engine(g.graph, progs);
  engine.load(g.device);
  expectThrowWithMessage<index_error>([&] { engine.run(2); }, {"program 2", "2 program"});
  engine.run(1); // still usable
  EXPECT_EQ(CounterGraph::read(engine), 1);
}

TEST(ProgramMulti, RunBeforeLoadIsRuntimeError) {
  CounterGraph g;
  Engine engine(g.graph, Execute(g.inc));
  expectThrowWithMessage<poplar::runtime_error>([&] { engine.run(0); }, {"load"});
}

TEST(ProgramAbort, AbortThrowsWithMessageAndStopsProgram) {
  CounterGraph g;
  Engine engine(g.graph, Sequence{Execute(g.inc), Abort("stop here: bad input"), Execute(g.inc)});
  engine.load(g.device);
  expectThrowWithMessage<application_runtime_error>([&] { engine.run(); },
                                                    {"stop here: bad input"});
  EXPECT_EQ(CounterGraph::read(engine), 1);
}

TEST(ProgramAbort, AbortWithoutMessageSaysAbort) {
  CounterGraph g;
  Engine engine(g.graph, Abort());
  engine.load(g.device);
  expectThrowWithMessage<application_runtime_error>([&] { engine.run(); }, {"Abort"});
}

TEST(ProgramAbort, AbortOnConditionOnlyWhenTrue) {
  CounterGraph g;
  Tensor bad = g.hostScalar(BOOL, "bad");
  Engine engine(g.graph, Sequence{AbortOnCondition(bad, "counter overflow"), Execute(g.inc)});
  engine.load(g.device);
  bool f = false, t = true;
  engine.writeTensor("bad", &f, &f + 1);
  engine.run();
  EXPECT_EQ(CounterGraph::read(engine), 1);
  engine.writeTensor("bad", &t, &t + 1);
  expectThrowWithMessage<application_runtime_error>([&] { engine.run(); }, {"counter overflow"});
  EXPECT_EQ(CounterGraph::read(engine), 1);
  engine.writeTensor("bad", &f, &f + 1);
  engine.run();
  EXPECT_EQ(CounterGraph::read(engine), 2);
}

TEST(ProgramAbort, AbortOnConditionDefaultMessageNamesPredicate) {
  CounterGraph g;
  Tensor bad = g.hostScalar(INT, "errorFlag");
  Engine engine(g.graph, AbortOnCondition(bad));
  engine.load(g.device);
  int one = 1;
  engine.writeTensor("errorFlag", &one, &one + 1);
  expectThrowWithMessage<application_runtime_error>([&] { engine.run(); }, {"errorFlag"});
}

TEST(ProgramAbort, AbortInUntakenBranchDoesNotFire) {
  CounterGraph g;
  Tensor pred = g.hostScalar(BOOL, "pred");
  Engine engine(g.graph, If(pred, Execute(g.inc), Abort("else taken")));
  engine.load(g.device);
  bool t = true;
  engine.writeTensor("pred", &t, &t + 1);
  engine.run();
  EXPECT_EQ(CounterGraph::read(engine), 1);
}

TEST(ProgramIf, HalfPredicate) {
  CounterGraph g;
  Tensor zero = g.graph.addConstantHalf(HALF, {}, 0x8000, "negZero"); // -0.0 is false
  Tensor tiny = g.graph.addConstantHalf(HALF, {}, 0x0001, "tiny");    // subnormal is true
  g.graph.setTileMapping(zero, 0);
  g.graph.setTileMapping(tiny, 3);
  EXPECT_EQ(runOnce(g, Sequence{If(zero, Repeat(5, Execute(g.inc))), If(tiny, Execute(g.inc))}), 1);
}

TEST(ProgramSequence, VariadicConstructorKeepsOrder) {
  CounterGraph g;
  ComputeSet cond;
  Tensor flag = g.lessThan(1, cond);
  Tensor flags = g.graph.addVariable(BOOL, {2}, "flags");
  g.graph.setTileMapping(flags, 0);
  g.graph.createHostRead("flags", flags);
  // flag before the increment is true (0 < 1); after it, false.
  Sequence s(Execute(cond), Copy(flag, flags[0]), Execute(g.inc), Execute(cond),
             Copy(flag, flags[1]));
  Engine engine(g.graph, s);
  engine.load(g.device);
  engine.run();
  unsigned char got[2] = {9, 9};
  engine.readTensor("flags", got, got + 2);
  EXPECT_EQ(got[0], 1);
  EXPECT_EQ(got[1], 0);
}

TEST(ProgramMulti, MovedEngineKeepsRunning) {
  CounterGraph g;
  Engine first(g.graph, Repeat(2, Execute(g.inc)));
  first.load(g.device);
  first.run();
  Engine moved(std::move(first));
  moved.run();
  EXPECT_EQ(CounterGraph::read(moved), 4);
  Engine assigned(g.graph, Sequence());
  assigned = std::move(moved);
  assigned.run();
  EXPECT_EQ(CounterGraph::read(assigned), 6);
}
