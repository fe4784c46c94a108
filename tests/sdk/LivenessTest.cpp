// Variables whose values are never needed at the same time share tile memory (the compiler's
// liveness analysis): the saving is exact, and nothing a later step or a later run reads is
// overwritten — a value read before this run writes it (a counter), one carried into a loop,
// one that a branch may or may not have rewritten. Each test places a temporary where a wrong
// lifetime would let it overwrite the value, and checks the value against a host computation.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {

constexpr std::size_t kN = 256; // floats per temporary: 1 KiB

struct Fixture {
  Device device = enginetest::smallDevice(2);
  Graph graph{device.getTarget()};
  Fixture() { testvertices::registerTestVertices(); }

  Tensor var(Type type, std::vector<std::size_t> shape, const std::string &name) {
    Tensor t = graph.addVariable(type, shape, name);
    graph.setTileMapping(t, 0);
    return t;
  }
  /// A host-written input of kN floats.
  Tensor input(const std::string &name) {
    Tensor t = var(FLOAT, {kN}, name);
    graph.createHostWrite(name, t);
    return t;
  }
  /// A host-read scalar result.
  Tensor result(const std::string &name) {
    Tensor t = var(FLOAT, {}, name);
    graph.createHostRead(name, t);
    return t;
  }
  Program copy(const Tensor &in, const Tensor &out) {
    ComputeSet cs = graph.addComputeSet("copy");
    graph.setTileMapping(graph.addVertex(cs, "CopyFloats", {{"in", in}, {"out", out}}), 0);
    return Execute(cs);
  }
  Program sum(const Tensor &in, const Tensor &out) {
    ComputeSet cs = graph.addComputeSet("sum");
    graph.setTileMapping(graph.addVertex(cs, "Sum", {{"in", in}, {"out", out}}), 0);
    return Execute(cs);
  }
};

std::vector<float> ramp(float scale) {
  std::vector<float> v(kN);
  for (std::size_t i = 0; i < kN; ++i)
    v[i] = scale * static_cast<float>(i % 7 + 1);
  return v;
}

float total(const std::vector<float> &v) { return std::accumulate(v.begin(), v.end(), 0.0f); }

void write(Engine &e, const std::string &name, const std::vector<float> &v) {
  e.writeTensor(name, v.data(), v.data() + v.size());
}

float read(Engine &e, const std::string &name) {
  float x = 0;
  e.readTensor(name, &x, &x + 1);
  return x;
}

/// Memory of tile 0 and the two sums when t1 = in; s1 = sum(t1); t2 = in2; s2 = sum(t2) run in
/// `order` (indices into those four steps).
struct TwoTemporaries {
  std::uint64_t tileBytes;
  float s1, s2;
};
TwoTemporaries runTwoTemporaries(const std::vector<int> &order) {
  Fixture f;
  Tensor in = f.input("in"), in2 = f.input("in2");
  Tensor t1 = f.var(FLOAT, {kN}, "t1"), t2 = f.var(FLOAT, {kN}, "t2");
  Tensor s1 = f.result("s1"), s2 = f.result("s2");
  const std::vector<Program> steps = {f.copy(in, t1), f.sum(t1, s1), f.copy(in2, t2),
                                      f.sum(t2, s2)};
  Sequence prog;
  for (int i : order)
    prog.add(steps[i]);
  Engine e(f.graph, prog);
  e.load(f.device);
  write(e, "in", ramp(1));
  write(e, "in2", ramp(3));
  e.run();
  return {e.getTileMemoryUsed(0), read(e, "s1"), read(e, "s2")};
}

} // namespace

TEST(Liveness, TemporariesNeededOneAfterAnotherShareTileMemory) {
  // Same graph, same vertices; only the order differs. Apart, t1 dies before t2 is written
  // and t2 takes its bytes; interleaved, both are needed at once.
  const TwoTemporaries apart = runTwoTemporaries({0, 1, 2, 3});
  const TwoTemporaries together = runTwoTemporaries({0, 2, 1, 3});
  EXPECT_EQ(together.tileBytes - apart.tileBytes, kN * sizeof(float));
  for (const auto &r : {apart, together}) {
    EXPECT_EQ(r.s1, total(ramp(1)));
    EXPECT_EQ(r.s2, total(ramp(3)));
  }
}

TEST(Liveness, ValueReadBeforeTheRunWritesItSurvivesBetweenRuns) {
  // `counter` is only ever incremented in the step program, so it carries a value from run to
  // run. A temporary written after its last use in each run must not take its bytes.
  Fixture f;
  Tensor counter = f.var(INT, {}, "counter");
  Tensor zero = f.graph.addConstant(INT, {}, 0, "zero");
  f.graph.setTileMapping(zero, 0);
  Tensor seen = f.var(INT, {}, "seen");
  f.graph.createHostRead("seen", seen);
  Tensor in = f.input("in"), t = f.var(FLOAT, {kN}, "t"), s = f.result("s");
  ComputeSet inc = f.graph.addComputeSet("increment");
  f.graph.setTileMapping(f.graph.addVertex(inc, "Increment", {{"counter", counter}}), 0);
  Sequence step{Execute(inc), Copy(counter, seen), f.copy(in, t), f.sum(t, s)};
  Engine e(f.graph, {Copy(zero, counter), step});
  e.load(f.device);
  write(e, "in", ramp(-5));
  e.run(0);
  for (int run = 1; run <= 3; ++run) {
    e.run(1);
    int n = 0;
    e.readTensor("seen", &n, &n + 1);
    EXPECT_EQ(n, run);
    EXPECT_EQ(read(e, "s"), total(ramp(-5)));
  }
}

TEST(Liveness, ValueCarriedIntoALoopIsKeptForEveryIteration) {
  // a is written before the loop and read at the top of each iteration; b is written later in
  // each iteration. Counted once, a's last use comes before b's first, but the next iteration
  // reads a again.
  Fixture f;
  Tensor in = f.input("in"), in2 = f.input("in2");
  Tensor a = f.var(FLOAT, {kN}, "a"), b = f.var(FLOAT, {kN}, "b");
  Tensor r = f.result("r"), s = f.result("s");
  Engine e(f.graph,
           Sequence{f.copy(in, a), Repeat(3, Sequence{f.sum(a, r), f.copy(in2, b), f.sum(b, s)})});
  e.load(f.device);
  write(e, "in", ramp(1));
  write(e, "in2", ramp(100));
  e.run();
  EXPECT_EQ(read(e, "r"), total(ramp(1)));
  EXPECT_EQ(read(e, "s"), total(ramp(100)));
}

TEST(Liveness, WriteInsideABranchDoesNotEndTheValueBefore) {
  // x is rewritten only when the flag is set, and read after the If either way: a run that
  // skips the branch reads the previous run's x. z, written after x's last read, must not
  // share x's bytes.
  Fixture f;
  Tensor flag = f.var(INT, {}, "flag");
  f.graph.createHostWrite("flag", flag);
  Tensor in = f.input("in"), in2 = f.input("in2");
  Tensor x = f.var(FLOAT, {kN}, "x"), z = f.var(FLOAT, {kN}, "z");
  Tensor out = f.result("out"), out2 = f.result("out2");
  Engine e(f.graph,
           Sequence{If(flag, f.copy(in, x)), f.sum(x, out), f.copy(in2, z), f.sum(z, out2)});
  e.load(f.device);
  write(e, "in", ramp(2));
  write(e, "in2", ramp(-9));
  for (int set : {1, 0, 0}) {
    e.writeTensor("flag", &set, &set + 1);
    e.run();
    EXPECT_EQ(read(e, "out"), total(ramp(2))) << "flag " << set;
    EXPECT_EQ(read(e, "out2"), total(ramp(-9)));
  }
}

TEST(Liveness, VariableUsedByTwoProgramsIsKeptBetweenThem) {
  // Program 0 writes w; program 1 reads it. Program 1's own temporary must not take w's bytes.
  Fixture f;
  Tensor in = f.input("in"), in2 = f.input("in2");
  Tensor w = f.var(FLOAT, {kN}, "w"), t = f.var(FLOAT, {kN}, "t");
  Tensor s = f.result("s"), s2 = f.result("s2");
  Engine e(f.graph, {f.copy(in, w), Sequence{f.copy(in2, t), f.sum(t, s2), f.sum(w, s)}});
  e.load(f.device);
  write(e, "in", ramp(4));
  write(e, "in2", ramp(7));
  e.run(0);
  e.run(1);
  EXPECT_EQ(read(e, "s"), total(ramp(4)));
  EXPECT_EQ(read(e, "s2"), total(ramp(7)));
}
