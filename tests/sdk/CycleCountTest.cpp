// cycleCount and cycleStamp (<poplar/CycleCount.hpp>): the cost model's cycles of the steps the
// engine runs, added up as it runs them. References: Engine::estimateProgramCycles (the static
// walk of the compiled steps, a separate code path), loop trip counts, and other thread counts.
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <poplar/CycleCount.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Executable.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;
using enginetest::expectThrowWithMessage;

namespace {

constexpr unsigned kTiles = 4;

std::uint64_t asCount(const std::uint32_t words[2]) {
  return std::uint64_t(words[0]) | (std::uint64_t(words[1]) << 32);
}

std::uint64_t readCount(Engine &engine, const std::string &handle) {
  std::uint32_t words[2] = {~0u, ~0u};
  engine.readTensor(handle, words, words + 2);
  return asCount(words);
}

/// A body with work on every tile and an exchange: x[t] *= 2 on each tile, then a copy from
/// tile 0's row to tile 1's.
struct Body {
  Device device = enginetest::smallDevice(kTiles, 6);
  Graph graph{device.getTarget()};
  Tensor x;
  Sequence body;

  Body() {
    testvertices::registerTestVertices();
    x = graph.addVariable(FLOAT, {kTiles, 16}, "x");
    ComputeSet cs = graph.addComputeSet("scale");
    for (unsigned t = 0; t < kTiles; ++t) {
      graph.setTileMapping(x[t], t);
      VertexRef v = graph.addVertex(cs, "Scale", {{"data", x[t]}});
      graph.setInitialValue(v["factor"], 2.0f);
      graph.setTileMapping(v, t);
    }
    body.add(Execute(cs));
    body.add(Copy(x[0], x[1]));
  }
};

OptionFlags threads(unsigned n) {
  return {{"target.hostThreads", std::to_string(n)}, {"executableCache.enable", "false"}};
}

} // namespace

TEST(CycleCount, RepeatCountsItsBodyOncePerIteration) {
  Body b;
  constexpr unsigned kTrips = 7;
  Sequence timed{Repeat(kTrips, b.body)};
  Tensor cycles = cycleCount(b.graph, timed, 0, SyncType::INTERNAL, "loop");
  EXPECT_EQ(cycles.elementType(), UNSIGNED_INT);
  EXPECT_EQ(cycles.shape(), std::vector<std::size_t>{2});
  b.graph.createHostRead("cycles", cycles);
  Engine engine(b.graph, {b.body, timed}, threads(2));
  engine.load(b.device);
  engine.run(1);
  const std::uint64_t bodyCycles = engine.estimateProgramCycles(0);
  ASSERT_GT(bodyCycles, 0u);
  EXPECT_EQ(readCount(engine, "cycles"), kTrips * bodyCycles);
  EXPECT_EQ(readCount(engine, "cycles"), engine.estimateProgramCycles(1));
}

TEST(CycleCount, DataDependentLoopGrowsWithItsTripCount) {
  // RepeatWhileTrue(counter < 10) { counter += 1 }, the counter starting at 10 - trips: the
  // static estimate counts one pass; the run counts every pass, so consecutive trip counts
  // differ by the same amount.
  testvertices::registerTestVertices();
  Device device = enginetest::smallDevice(kTiles, 6);
  Graph graph(device.getTarget());
  Tensor counter = graph.addVariable(INT, {}, "counter");
  Tensor flag = graph.addVariable(BOOL, {}, "flag");
  graph.setTileMapping(counter, 0);
  graph.setTileMapping(flag, 0);
  ComputeSet check = graph.addComputeSet("check");
  VertexRef lt = graph.addVertex(check, "LessThan", {{"value", counter}, {"flag", flag}});
  graph.setInitialValue(lt["limit"], 10);
  graph.setTileMapping(lt, 0);
  ComputeSet inc = graph.addComputeSet("inc");
  graph.setTileMapping(graph.addVertex(inc, "Increment", {{"counter", counter}}), 0);
  Sequence loop{RepeatWhileTrue(Execute(check), flag, Execute(inc))};
  Tensor cycles = cycleCount(graph, loop, 0, SyncType::EXTERNAL);
  graph.createHostRead("cycles", cycles);
  graph.createHostWrite("counter", counter);
  Engine engine(graph, loop, threads(1));
  engine.load(device);
  std::vector<std::uint64_t> counts;
  for (int trips = 1; trips <= 4; ++trips) {
    const int start = 10 - trips;
    engine.writeTensor("counter", &start, &start + 1);
    engine.run(0);
    counts.push_back(readCount(engine, "cycles"));
  }
  const std::uint64_t perPass = counts[1] - counts[0];
  EXPECT_GT(perPass, 0u);
  EXPECT_EQ(counts[2] - counts[1], perPass);
  EXPECT_EQ(counts[3] - counts[2], perPass);
  // One pass of condition + body is what the static estimate prices; the final check adds
  // one more condition: counts[0] (one trip) = one pass + one condition.
  EXPECT_EQ(perPass, engine.estimateProgramCycles(0));
  EXPECT_GT(counts[0], perPass);
}

TEST(CycleCount, ProgramsAddedAfterwardsAreNotTimed) {
  Body b;
  Sequence prog{b.body};
  Tensor cycles = cycleCount(b.graph, prog, 1, SyncType::INTERNAL);
  prog.add(b.body); // runs after the timed part
  b.graph.createHostRead("cycles", cycles);
  Engine engine(b.graph, {b.body, prog}, threads(1));
  engine.load(b.device);
  engine.run(1);
  EXPECT_EQ(readCount(engine, "cycles"), engine.estimateProgramCycles(0));
  EXPECT_EQ(engine.estimateProgramCycles(1), 2 * engine.estimateProgramCycles(0));
}

TEST(CycleCount, FormWithoutSyncTypeCountsTheSame) {
  Body b;
  Sequence prog{b.body};
  Tensor cycles = cycleCount(b.graph, prog, 0, "timer");
  b.graph.createHostRead("cycles", cycles);
  Engine engine(b.graph, {b.body, prog}, threads(1));
  engine.load(b.device);
  engine.run(1);
  EXPECT_EQ(readCount(engine, "cycles"), engine.estimateProgramCycles(0));
}

TEST(CycleStamp, StampsMoveForwardByWhatRanBetweenThem) {
  Body b;
  Sequence prog;
  Tensor first = cycleStamp(b.graph, prog, 0, SyncType::INTERNAL, "first");
  prog.add(b.body);
  Tensor second = cycleStamp(b.graph, prog, 2, SyncType::INTERNAL, "second");
  b.graph.createHostRead("first", first);
  b.graph.createHostRead("second", second);
  Engine engine(b.graph, {b.body, prog}, threads(1));
  engine.load(b.device);
  const std::uint64_t body = engine.estimateProgramCycles(0);
  engine.run(1);
  const std::uint64_t a1 = readCount(engine, "first"), b1 = readCount(engine, "second");
  EXPECT_EQ(a1, 0u); // nothing ran before it since load
  EXPECT_EQ(b1 - a1, body);
  engine.run(0); // the clock runs on through other programs
  engine.run(1);
  const std::uint64_t a2 = readCount(engine, "first"), b2 = readCount(engine, "second");
  EXPECT_EQ(a2, b1 + body);
  EXPECT_EQ(b2, a2 + body);
  // Loading again starts the clock again.
  engine.load(b.device);
  engine.run(1);
  EXPECT_EQ(readCount(engine, "first"), 0u);
}

TEST(CycleStamp, ManyTilesGetOneStampEachAtTheSamePoint) {
  Body b;
  Sequence prog{b.body};
  const std::vector<unsigned> tiles{3, 1};
  std::vector<Tensor> stamps = cycleStamp(b.graph, prog, tiles, SyncType::GLOBAL, "stamps");
  ASSERT_EQ(stamps.size(), 2u);
  for (std::size_t i = 0; i < stamps.size(); ++i) {
    const auto mapping = b.graph.getTileMapping(stamps[i]);
    ASSERT_GT(mapping.size(), tiles[i]);
    EXPECT_EQ(mapping[tiles[i]].size(), 1u) << "stamp " << i << " is not on tile " << tiles[i];
    b.graph.createHostRead("stamp" + std::to_string(i), stamps[i]);
  }
  Engine engine(b.graph, {b.body, prog}, threads(2));
  engine.load(b.device);
  engine.run(1);
  EXPECT_EQ(readCount(engine, "stamp0"), engine.estimateProgramCycles(0));
  EXPECT_EQ(readCount(engine, "stamp1"), engine.estimateProgramCycles(0));
  EXPECT_TRUE(cycleStamp(b.graph, prog, std::vector<unsigned>{}, SyncType::NONE).empty());
}

TEST(CycleCount, SameValuesForOneAndTwoHostThreads) {
  std::vector<std::vector<std::uint64_t>> results;
  for (unsigned n : {1u, 2u}) {
    Body b;
    Sequence prog;
    Tensor before = cycleStamp(b.graph, prog, 0, SyncType::INTERNAL);
    Sequence loop{Repeat(5, b.body)};
    Tensor count = cycleCount(b.graph, loop, 3, SyncType::INTERNAL);
    prog.add(loop);
    Tensor after = cycleStamp(b.graph, prog, 1, SyncType::INTERNAL);
    b.graph.createHostRead("before", before);
    b.graph.createHostRead("count", count);
    b.graph.createHostRead("after", after);
    Engine engine(b.graph, prog, threads(n));
    engine.load(b.device);
    engine.run(0);
    engine.run(0);
    results.push_back(
        {readCount(engine, "before"), readCount(engine, "count"), readCount(engine, "after")});
    EXPECT_EQ(results.back()[2] - results.back()[0], results.back()[1]);
  }
  EXPECT_EQ(results[0], results[1]);
}

TEST(CycleCount, SurvivesSerialization) {
  Body b;
  Sequence prog{Repeat(3, b.body)};
  Tensor cycles = cycleCount(b.graph, prog, 0, SyncType::INTERNAL);
  b.graph.createHostRead("cycles", cycles);
  std::stringstream bytes;
  compileGraph(b.graph, {b.body, prog}).serialize(bytes);
  Engine engine(Executable::deserialize(bytes), threads(1));
  engine.load(b.device);
  engine.run(1);
  EXPECT_EQ(readCount(engine, "cycles"), 3 * engine.estimateProgramCycles(0));
}

TEST(CycleCountErrors, TileOutOfRangeIsNamed) {
  Body b;
  Sequence prog;
  expectThrowWithMessage<invalid_tile_mapping>(
      [&] { cycleCount(b.graph, prog, kTiles, SyncType::INTERNAL); },
      {"cycleCount", "tile 4 is out of range", "4 tiles"});
  expectThrowWithMessage<invalid_tile_mapping>(
      [&] { cycleStamp(b.graph, prog, 99, SyncType::INTERNAL); },
      {"cycleStamp", "tile 99 is out of range"});
  expectThrowWithMessage<invalid_tile_mapping>(
      [&] {
        cycleStamp(b.graph, prog, std::vector<unsigned>{0, 7}, SyncType::INTERNAL);
      },
      {"cycleStamp", "tile 7 is out of range"});
  EXPECT_TRUE(prog.isEmpty()); // nothing was added by the failed calls
}
