// <poplar/CSRFunctions.hpp>: with inv, div0 or oflo on, a vertex whose arithmetic raises that
// exception stops the run with application_runtime_error naming it; with them off, IEEE
// results (inf, NaN). References: the IEEE results computed on the host, and the mode bits
// read back through getAndModifyFloatingPointBehaviour.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <poplar/CSRFunctions.hpp>
#include <poplar/Engine.hpp>
#include <tessera/VertexType.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;
using enginetest::expectThrowWithMessage;

namespace {

constexpr unsigned kTiles = 4, kPerTile = 8;

/// out[i] = a[i] / b[i]
class Divide : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float>> b;
  Output<Vector<float>> out;
  bool compute() {
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = a[i] / b[i];
    return true;
  }
};

/// data[i] = half(data[i] * factor): HALF arithmetic through float, as codelets compute it.
class HalfScale : public Vertex {
public:
  InOut<Vector<half>> data;
  float factor;
  bool compute() {
    for (std::size_t i = 0; i < data.size(); ++i)
      data[i] = half(float(data[i]) * factor);
    return true;
  }
};

void registerDivide() {
  static const bool once = [] {
    tessera::VertexTypeBuilder<HalfScale>("FpTestHalfScale")
        .field("data", &HalfScale::data)
        .field("factor", &HalfScale::factor)
        .add();
    tessera::VertexTypeBuilder<Divide>("FpTestDivide")
        .field("a", &Divide::a)
        .field("b", &Divide::b)
        .field("out", &Divide::out)
        .add();
    return true;
  }();
  (void)once;
}

/// out = a / b on every tile (a row per tile), after `setup`; programs {setup + divide}.
struct Division {
  Device device = enginetest::smallDevice(kTiles, 6);
  Graph graph{device.getTarget()};
  Tensor a, b, out;
  ComputeSet cs;

  Division() {
    registerDivide();
    testvertices::registerTestVertices();
    a = graph.addVariable(FLOAT, {kTiles, kPerTile}, "a");
    b = graph.addVariable(FLOAT, {kTiles, kPerTile}, "b");
    out = graph.addVariable(FLOAT, {kTiles, kPerTile}, "out");
    cs = graph.addComputeSet("divide");
    for (unsigned t = 0; t < kTiles; ++t) {
      for (const Tensor &x : {a, b, out})
        graph.setTileMapping(x[t], t);
      VertexRef v =
          graph.addVertex(cs, "FpTestDivide", {{"a", a[t]}, {"b", b[t]}, {"out", out[t]}});
      graph.setTileMapping(v, t);
    }
    graph.createHostWrite("a", a);
    graph.createHostWrite("b", b);
    graph.createHostRead("out", out);
  }

  /// Runs `prog` (program 0) with a[i] = numerator and b = 1 except b[zeroAt…] = 0.
  std::vector<float> run(const Program &prog, float numerator, std::vector<unsigned> zeroAt,
                         unsigned threads = 1) {
    Engine engine(
        graph, prog,
        {{"target.hostThreads", std::to_string(threads)}, {"executableCache.enable", "false"}});
    engine.load(device);
    std::vector<float> av(kTiles * kPerTile, numerator), bv(kTiles * kPerTile, 1.0f),
        outv(kTiles * kPerTile);
    for (unsigned i : zeroAt)
      bv[i] = 0.0f;
    engine.writeTensor("a", av.data(), av.data() + av.size());
    engine.writeTensor("b", bv.data(), bv.data() + bv.size());
    engine.run(0);
    engine.readTensor("out", outv.data(), outv.data() + outv.size());
    return outv;
  }
};

FloatingPointBehaviour only(bool inv, bool div0, bool oflo) {
  return FloatingPointBehaviour(inv, div0, oflo, false, false);
}

} // namespace

TEST(FloatingPointBehaviour, DefaultsAreAllOnAndNotInvertsThem) {
  const FloatingPointBehaviour d;
  EXPECT_TRUE(d.inv && d.div0 && d.oflo && d.esr && d.nanoo);
  const FloatingPointBehaviour n = !FloatingPointBehaviour(true, false, true, false, true);
  EXPECT_TRUE(!n.inv && n.div0 && !n.oflo && n.esr && !n.nanoo);
}

TEST(FloatingPointBehaviour, DivisionByZeroWithDiv0OnStopsNamingTheVertex) {
  for (unsigned threads : {1u, 2u}) {
    Division d;
    Sequence prog;
    setFloatingPointBehaviour(d.graph, prog, only(false, true, false), "fp");
    prog.add(Execute(d.cs));
    // Zeros on tiles 3 and 1: the lowest tile is reported whatever the thread count.
    expectThrowWithMessage<application_runtime_error>(
        [&] {
          d.run(prog, 1.0f, {3 * kPerTile + 2, 1 * kPerTile + 5}, threads);
        },
        {"'FpTestDivide'", "compute set 'divide'", "on tile 1 ",
         "floating-point exception: division by zero"});
  }
}

TEST(FloatingPointBehaviour, DivisionByZeroWithDiv0OffGivesInfinity) {
  Division d;
  Sequence prog;
  setFloatingPointBehaviour(d.graph, prog, only(true, false, true));
  prog.add(Execute(d.cs));
  const auto out = d.run(prog, 3.0f, {6});
  EXPECT_EQ(out[6], std::numeric_limits<float>::infinity());
  EXPECT_EQ(out[5], 3.0f);
}

TEST(FloatingPointBehaviour, EngineStartsWithEveryTrapOff) {
  Division d;
  const auto out = d.run(Execute(d.cs), 0.0f, {0});
  EXPECT_TRUE(std::isnan(out[0])); // 0/0 with inv off: NaN, as IEEE says
}

TEST(FloatingPointBehaviour, InvalidOperationWithInvOnStops) {
  Division d;
  Sequence prog;
  setFloatingPointBehaviour(d.graph, prog, only(true, false, false));
  prog.add(Execute(d.cs));
  expectThrowWithMessage<application_runtime_error>(
      [&] { d.run(prog, 0.0f, {2 * kPerTile}); }, // 0/0
      {"'FpTestDivide'", "on tile 2 ", "invalid operation"});
  // 1/0 raises division by zero only, which is off here.
  EXPECT_EQ(d.run(prog, 1.0f, {2 * kPerTile})[2 * kPerTile],
            std::numeric_limits<float>::infinity());
}

TEST(FloatingPointBehaviour, OverflowWithOfloOnStops) {
  Division d;
  Sequence prog;
  setFloatingPointBehaviour(d.graph, prog, only(false, false, true));
  prog.add(Execute(d.cs));
  // 3e38 / 0.5 overflows.
  expectThrowWithMessage<application_runtime_error>(
      [&] {
        Engine engine(d.graph, prog, {{"executableCache.enable", "false"}});
        engine.load(d.device);
        std::vector<float> av(kTiles * kPerTile, 3e38f), bv(kTiles * kPerTile, 1.0f);
        bv[kPerTile + 1] = 0.5f;
        engine.writeTensor("a", av.data(), av.data() + av.size());
        engine.writeTensor("b", bv.data(), bv.data() + bv.size());
        engine.run(0);
      },
      {"'FpTestDivide'", "on tile 1 ", "overflow"});
}

TEST(FloatingPointBehaviour, SavedModeRestoresAndReadsBack) {
  Division d;
  Sequence prog;
  setFloatingPointBehaviour(d.graph, prog, only(false, true, false));
  setStochasticRounding(d.graph, prog, true);
  // Clear div0 around the division, then restore it.
  Tensor saved =
      getAndModifyFloatingPointBehaviour(d.graph, prog, only(false, true, false),
                                         FloatingPointBehaviour(false, false, false, false, true));
  prog.add(Execute(d.cs));
  Tensor during = getAndModifyFloatingPointBehaviour(d.graph, prog, only(false, false, false),
                                                     only(false, false, false));
  setFloatingPointBehaviour(d.graph, prog, saved);
  EXPECT_EQ(saved.elementType(), UNSIGNED_INT);
  EXPECT_EQ(saved.numElements(), kTiles);
  d.graph.createHostRead("saved", saved);
  d.graph.createHostRead("during", during);
  Sequence again{Execute(d.cs)};
  Engine engine(d.graph, {prog, again}, {{"executableCache.enable", "false"}});
  engine.load(d.device);
  std::vector<float> av(kTiles * kPerTile, 1.0f), bv(kTiles * kPerTile, 1.0f);
  bv[3] = 0.0f;
  engine.writeTensor("a", av.data(), av.data() + av.size());
  engine.writeTensor("b", bv.data(), bv.data() + bv.size());
  engine.run(0); // div0 cleared while dividing: no exception
  std::vector<std::uint32_t> savedBits(kTiles), duringBits(kTiles);
  engine.readTensor("saved", savedBits.data(), savedBits.data() + kTiles);
  engine.readTensor("during", duringBits.data(), duringBits.data() + kTiles);
  for (unsigned t = 0; t < kTiles; ++t) {
    EXPECT_EQ(savedBits[t], 2u | 8u) << "tile " << t;   // div0 and esr
    EXPECT_EQ(duringBits[t], 8u | 16u) << "tile " << t; // esr and nanoo
  }
  // The restored mode (div0 on) stays for the next run.
  expectThrowWithMessage<application_runtime_error>([&] { engine.run(1); },
                                                    {"on tile 0 ", "division by zero"});
}

TEST(FloatingPointBehaviourErrors, RestoringFromAnythingButUnsignedIntIsRefused) {
  Division d;
  Sequence prog;
  expectThrowWithMessage<type_error>([&] { setFloatingPointBehaviour(d.graph, prog, d.a); },
                                     {"setFloatingPointBehaviour", "'a'", "UNSIGNED_INT"});
  expectThrowWithMessage<type_error>([&] { setFloatingPointBehaviour(d.graph, prog, Tensor()); },
                                     {"setFloatingPointBehaviour", "(invalid)", "UNSIGNED_INT"});
  EXPECT_TRUE(prog.isEmpty());
}

namespace {
/// Runs data *= factor in HALF on tile 1 (data = 60000, 1, 2, 3) after `behaviour`.
std::vector<float> halfScale(const FloatingPointBehaviour &behaviour, float factor) {
  registerDivide();
  Device device = enginetest::smallDevice(2, 6);
  Graph graph(device.getTarget());
  Tensor data = graph.addVariable(HALF, {4}, "data");
  graph.setTileMapping(data, 1);
  ComputeSet cs = graph.addComputeSet("halfScale");
  VertexRef v = graph.addVertex(cs, "FpTestHalfScale", {{"data", data}});
  graph.setInitialValue(v["factor"], factor);
  graph.setTileMapping(v, 1);
  const std::vector<float> initial{60000.0f, 1.0f, 2.0f, 3.0f};
  std::vector<half> initialHalf(initial.begin(), initial.end());
  graph.setInitialValue(data, ArrayRef<half>(initialHalf));
  Sequence prog;
  setFloatingPointBehaviour(graph, prog, behaviour);
  prog.add(Execute(cs));
  graph.createHostRead("data", data);
  Engine engine(graph, prog, {{"executableCache.enable", "false"}});
  engine.load(device);
  engine.run(0);
  std::vector<half> out(4);
  engine.readTensor("data", out.data(), out.data() + out.size());
  return {out.begin(), out.end()};
}
} // namespace

TEST(FloatingPointBehaviour, HalfOverflowWithOfloOnStops) {
  expectThrowWithMessage<application_runtime_error>(
      [] { halfScale(only(false, false, true), 2.0f); },
      {"'FpTestHalfScale'", "compute set 'halfScale'", "on tile 1 ", "overflow"});
}

TEST(FloatingPointBehaviour, HalfOverflowWithOfloOffGivesInfinity) {
  const auto out = halfScale(only(true, true, false), 2.0f);
  EXPECT_EQ(out[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(out[3], 6.0f);
  // No overflow, no exception, with every trap on.
  EXPECT_EQ(halfScale(FloatingPointBehaviour(), 0.5f)[0], 30000.0f);
}
