// Engine calls of Poplar 3.x beside load/run: loadAndRun, readTensor/writeTensor without an
// end pointer, execution profiling switched on and off; and the program types' conversions.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <poplar/Engine.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;
using enginetest::expectThrowWithMessage;

namespace {

constexpr unsigned kTiles = 2, kN = 6;

/// x *= 3 on two tiles; x readable and writable from the host.
struct Tripler {
  Device device;
  Graph graph;
  ComputeSet cs;
  Tensor x;
  explicit Tripler(unsigned replicas = 1)
      : device(enginetest::smallDevice(kTiles * replicas, 6)),
        graph(device.getTarget(), replication_factor(replicas)) {
    testvertices::registerTestVertices();
    x = graph.addVariable(FLOAT, {kTiles, kN}, "x");
    cs = graph.addComputeSet("triple");
    for (unsigned t = 0; t < kTiles; ++t) {
      graph.setTileMapping(x[t], t);
      VertexRef v = graph.addVertex(cs, "Scale", {{"data", x[t]}});
      graph.setInitialValue(v["factor"], 3.0f);
      graph.setTileMapping(v, t);
    }
    graph.createHostWrite("x", x);
    graph.createHostRead("x", x);
  }
};

std::vector<float> iota(float from) {
  std::vector<float> v(kTiles * kN);
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = from + float(i);
  return v;
}

const OptionFlags kNoCache{{"executableCache.enable", "false"}};

} // namespace

// Every program type is a Program, and a Sequence can be made from any of them.
static_assert(std::is_convertible_v<Sequence, Program> && std::is_convertible_v<Execute, Program> &&
              std::is_convertible_v<Copy, Program> && std::is_convertible_v<Repeat, Program> &&
              std::is_convertible_v<RepeatWhileTrue, Program> &&
              std::is_convertible_v<RepeatWhileFalse, Program> &&
              std::is_convertible_v<If, Program> && std::is_convertible_v<Switch, Program> &&
              std::is_convertible_v<Call, Program> && std::is_convertible_v<PrintTensor, Program> &&
              std::is_convertible_v<WriteUndef, Program> && std::is_convertible_v<Sync, Program> &&
              std::is_convertible_v<Abort, Program> &&
              std::is_convertible_v<AbortOnCondition, Program>);
static_assert(std::is_convertible_v<Repeat, Sequence> && std::is_convertible_v<Execute, Sequence>);
static_assert(std::is_same_v<poplar::SyncType, poplar::program::SyncType>);

TEST(EngineApi, SequenceInitialisedFromARepeatRunsIt) {
  Tripler p;
  Sequence s = Repeat(2, Execute(p.cs));
  Sync(SyncType::NONE); // every SyncType, NONE included, is a program
  Engine engine(p.graph, s, kNoCache);
  engine.load(p.device);
  const auto in = iota(1.0f);
  engine.writeTensor("x", in.data(), in.data() + in.size());
  engine.run(0);
  std::vector<float> out(in.size());
  engine.readTensor("x", out.data(), out.data() + out.size());
  for (std::size_t i = 0; i < in.size(); ++i)
    EXPECT_EQ(out[i], 9.0f * in[i]);
}

TEST(EngineApi, LoadAndRunEqualsLoadThenRun) {
  Tripler p;
  const auto in = iota(0.5f);
  // initial value via setInitialValue so that the first run needs no host write
  p.graph.setInitialValue(p.x, ArrayRef<float>(in));
  Engine a(p.graph, {Sequence{}, Execute(p.cs)}, kNoCache);
  a.loadAndRun(p.device, 1);
  Engine b(p.graph, {Sequence{}, Execute(p.cs)}, kNoCache);
  b.load(p.device);
  b.run(1);
  std::vector<float> outA(in.size()), outB(in.size());
  a.readTensor("x", outA.data(), outA.data() + outA.size());
  b.readTensor("x", outB.data(), outB.data() + outB.size());
  EXPECT_EQ(outA, outB);
  EXPECT_EQ(outA[1], 3.0f * in[1]);
  // Program 0 by default.
  Engine c(p.graph, Execute(p.cs), kNoCache);
  c.loadAndRun(p.device);
  std::vector<float> outC(in.size());
  c.readTensor("x", outC.data());
  EXPECT_EQ(outC, outA);
}

TEST(EngineApi, LoadAndRunReportsABadProgramIndex) {
  Tripler p;
  Engine e(p.graph, Execute(p.cs), kNoCache);
  expectThrowWithMessage<index_error>([&] { e.loadAndRun(p.device, 3); },
                                      {"Engine::run", "program 3 does not exist"});
}

TEST(EngineApi, TwoArgumentReadAndWriteRoundTrip) {
  Tripler p;
  Engine engine(p.graph, Execute(p.cs), kNoCache);
  engine.load(p.device);
  const auto in = iota(2.0f);
  engine.writeTensor("x", in.data());
  std::vector<float> out(in.size(), -1.0f);
  engine.readTensor("x", out.data());
  EXPECT_EQ(out, in);
  engine.run(0);
  engine.readTensor("x", out.data());
  EXPECT_EQ(out[kN + 1], 3.0f * in[kN + 1]);
}

TEST(EngineApi, TwoArgumentReplicaFormsActOnOneReplica) {
  Tripler p(2);
  Engine engine(p.graph, Execute(p.cs), kNoCache);
  engine.load(p.device);
  const auto zeros = std::vector<float>(kTiles * kN, 0.0f), in = iota(1.0f);
  engine.writeTensor("x", zeros.data()); // every replica
  engine.writeTensor("x", 1u, in.data());
  std::vector<float> r0(in.size(), -1.0f), r1(in.size(), -1.0f);
  engine.readTensor("x", 0u, r0.data());
  engine.readTensor("x", 1u, r1.data());
  EXPECT_EQ(r0, zeros);
  EXPECT_EQ(r1, in);
  expectThrowWithMessage<index_error>([&] { engine.readTensor("x", 2u, r0.data()); },
                                      {"readTensor 'x'", "replica 2 does not exist"});
  expectThrowWithMessage<index_error>([&] { engine.writeTensor("x", 5u, in.data()); },
                                      {"writeTensor 'x'", "replica 5 does not exist"});
}

TEST(EngineApiErrors, TwoArgumentFormsNameUnknownHandlesAndNullBuffers) {
  Tripler p;
  Engine engine(p.graph, Execute(p.cs), kNoCache);
  engine.load(p.device);
  std::vector<float> buf(kTiles * kN);
  expectThrowWithMessage<stream_connection_error>([&] { engine.readTensor("y", buf.data()); },
                                                  {"readTensor", "no tensor has handle 'y'"});
  expectThrowWithMessage<stream_connection_error>([&] { engine.writeTensor("y", buf.data()); },
                                                  {"writeTensor", "no tensor has handle 'y'"});
  expectThrowWithMessage<stream_connection_error>(
      [&] { engine.readTensor("x", static_cast<void *>(nullptr)); },
      {"readTensor 'x'", "holds 0 bytes", "needs 48"});
  expectThrowWithMessage<stream_connection_error>(
      [&] { engine.writeTensor("x", static_cast<const void *>(nullptr)); },
      {"writeTensor 'x'", "holds 0 bytes", "needs 48"});
}

TEST(EngineApi, ExecutionProfilingCanBeSwitchedOffAndReset) {
  Tripler p;
  Engine engine(p.graph, Execute(p.cs),
                {{"debug.instrument", "true"}, {"executableCache.enable", "false"}});
  engine.load(p.device);
  engine.run(0);
  EXPECT_EQ(engine.getExecutionProfile()->runs, 1u);
  engine.disableExecutionProfiling();
  engine.run(0);
  engine.run(0);
  EXPECT_EQ(engine.getExecutionProfile()->runs, 1u);
  engine.enableExecutionProfiling();
  engine.run(0);
  EXPECT_EQ(engine.getExecutionProfile()->runs, 2u);
  engine.resetExecutionProfile();
  EXPECT_EQ(engine.getExecutionProfile()->runs, 0u);
  engine.run(0);
  EXPECT_EQ(engine.getExecutionProfile()->runs, 1u);
  // Without profiling options there is nothing to switch: the calls change nothing.
  Engine plain(p.graph, Execute(p.cs), kNoCache);
  plain.enableExecutionProfiling();
  plain.disableExecutionProfiling();
  plain.resetExecutionProfile();
  plain.load(p.device);
  plain.run(0);
  EXPECT_FALSE(plain.getExecutionProfile().has_value());
}
