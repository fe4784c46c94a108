// Runs of compute sets the engine executes tile by tile (each tile all of its compute sets in
// turn, when every set of the run works on the same tiles): results must equal separate
// supersteps — also when a later set reads, through the exchange, what an earlier set wrote on
// another tile, or an earlier set reads what a later one overwrites (the run must then be
// split), when a branch jumps into the middle of a run, and when vertices fail.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {

struct Fixture {
  Device device;
  Graph graph;
  explicit Fixture(unsigned tiles)
      : device(enginetest::smallDevice(tiles)), graph(device.getTarget()) {
    testvertices::registerTestVertices();
  }
  /// A [n] variable with element i on tile (i + shift) % tiles, host-readable and writable.
  Tensor spread(std::size_t n, unsigned shift, const std::string &name) {
    Tensor t = graph.addVariable(FLOAT, {n}, name);
    for (std::size_t i = 0; i < n; ++i)
      graph.setTileMapping(t[i],
                           static_cast<unsigned>((i + shift) % graph.getTarget().getNumTiles()));
    graph.createHostRead(name, t);
    graph.createHostWrite(name + "In", t);
    return t;
  }
  static std::vector<float> read(Engine &e, const std::string &name, std::size_t n) {
    std::vector<float> v(n);
    e.readTensor(name, v.data(), v.data() + n);
    return v;
  }
  static void write(Engine &e, const std::string &name, const std::vector<float> &v) {
    e.writeTensor(name + "In", v.data(), v.data() + v.size());
  }
};

std::vector<float> values(std::size_t n, float scale) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = scale * static_cast<float>(i + 1);
  return v;
}

} // namespace

TEST(TileByTile, LaterSetReadingAnEarlierSetsRemoteWriteSeesTheNewValue) {
  // Set 1: tile t adds 1 to x[t] in place. Set 2: tile t copies x[t+1] (another tile's, through
  // the exchange) into y[t]. Run tile by tile on one host thread, tile t would read x[t+1]
  // before tile t+1 updated it; the compiler must keep the two sets apart.
  constexpr unsigned kTiles = 32;
  for (unsigned threads : {1u, 3u}) {
    Fixture f(kTiles);
    Tensor x = f.spread(kTiles, 0, "x"), y = f.spread(kTiles, 0, "y"),
           one = f.spread(kTiles, 0, "one");
    ComputeSet add = f.graph.addComputeSet("add"), shift = f.graph.addComputeSet("shift");
    for (unsigned t = 0; t < kTiles; ++t) {
      auto a = f.graph.addVertex(add, "AccumulateScalar", {{"in", one[t]}, {"acc", x[t]}});
      auto c = f.graph.addVertex(shift, "CopyScalar", {{"in", x[(t + 1) % kTiles]}, {"out", y[t]}});
      f.graph.setTileMapping(a, t);
      f.graph.setTileMapping(c, t);
    }
    Engine e(f.graph, Sequence{Execute(add), Execute(shift)},
             {{"target.hostThreads", std::to_string(threads)}});
    e.load(f.device);
    const auto x0 = values(kTiles, 1.0f);
    f.write(e, "x", x0);
    f.write(e, "one", std::vector<float>(kTiles, 1.0f));
    e.run();
    const auto got = f.read(e, "y", kTiles);
    for (unsigned t = 0; t < kTiles; ++t)
      ASSERT_EQ(got[t], x0[(t + 1) % kTiles] + 1.0f) << "tile " << t << ", threads " << threads;
  }
}

TEST(TileByTile, EarlierSetReadingWhatALaterSetOverwritesSeesTheOldValue) {
  // The reverse order: set 1 copies x[t+1] (read where it lies on tile t+1) into y[t], set 2
  // adds 1 to x[t] in place. Tile by tile, tile 31 would read x[0] after tile 0 had updated it.
  constexpr unsigned kTiles = 32;
  for (unsigned threads : {1u, 3u}) {
    Fixture f(kTiles);
    Tensor x = f.spread(kTiles, 0, "x"), y = f.spread(kTiles, 0, "y"),
           one = f.spread(kTiles, 0, "one");
    ComputeSet shift = f.graph.addComputeSet("shift"), add = f.graph.addComputeSet("add");
    for (unsigned t = 0; t < kTiles; ++t) {
      auto c = f.graph.addVertex(shift, "CopyScalar", {{"in", x[(t + 1) % kTiles]}, {"out", y[t]}});
      auto a = f.graph.addVertex(add, "AccumulateScalar", {{"in", one[t]}, {"acc", x[t]}});
      f.graph.setTileMapping(c, t);
      f.graph.setTileMapping(a, t);
    }
    Engine e(f.graph, Sequence{Execute(shift), Execute(add)},
             {{"target.hostThreads", std::to_string(threads)}});
    e.load(f.device);
    const auto x0 = values(kTiles, 1.0f);
    f.write(e, "x", x0);
    f.write(e, "one", std::vector<float>(kTiles, 1.0f));
    e.run();
    const auto got = f.read(e, "y", kTiles), x1 = f.read(e, "x", kTiles);
    for (unsigned t = 0; t < kTiles; ++t) {
      ASSERT_EQ(got[t], x0[(t + 1) % kTiles]) << "tile " << t << ", threads " << threads;
      ASSERT_EQ(x1[t], x0[t] + 1.0f) << "tile " << t << ", threads " << threads;
    }
  }
}

TEST(TileByTile, SerialStepsOverRemoteSlicesAccumulateInOrder) {
  // Like a matrix multiply's serial inner steps: step k adds slice k (held on other tiles) into
  // each tile's accumulator; the steps form one tile-by-tile run. Repeated, and inside an If
  // whose branches jump into the middle of a run, the sums must match the reference.
  constexpr unsigned kTiles = 16, kUnits = 8, kSteps = 6;
  for (unsigned threads : {1u, 4u}) {
    Fixture f(kTiles);
    Tensor acc = f.spread(kUnits, 0, "acc");
    std::vector<Tensor> slices;
    std::vector<ComputeSet> steps;
    for (unsigned k = 0; k < kSteps; ++k) {
      slices.push_back(f.spread(kUnits, kUnits + k, "slice" + std::to_string(k)));
      steps.push_back(f.graph.addComputeSet("step" + std::to_string(k)));
      for (unsigned u = 0; u < kUnits; ++u) {
        auto v = f.graph.addVertex(steps[k], "AccumulateScalar",
                                   {{"in", slices[k][u]}, {"acc", acc[u]}});
        f.graph.setTileMapping(v, u);
      }
    }
    Tensor flag = f.graph.addVariable(INT, {}, "flag");
    f.graph.setTileMapping(flag, 0);
    f.graph.createHostWrite("flag", flag);
    // then: step0, step4, step5; else: step1, step2, step3, step4, step5 (a jump lands on step4).
    Sequence branchThen{Execute(steps[0])}, branchElse;
    for (unsigned k = 1; k < 4; ++k)
      branchElse.add(Execute(steps[k]));
    Sequence prog{Repeat(2, If(flag, branchThen, branchElse)), Execute(steps[4]),
                  Execute(steps[5])};
    Engine e(f.graph, prog, {{"target.hostThreads", std::to_string(threads)}});
    e.load(f.device);
    for (int flagValue : {0, 1}) {
      e.writeTensor("flag", &flagValue, &flagValue + 1);
      std::vector<std::vector<float>> slice;
      for (unsigned k = 0; k < kSteps; ++k) {
        slice.push_back(values(kUnits, 0.25f * float(k + 1)));
        f.write(e, "slice" + std::to_string(k), slice[k]);
      }
      const auto acc0 = values(kUnits, 3.0f);
      f.write(e, "acc", acc0);
      e.run();
      const auto got = f.read(e, "acc", kUnits);
      for (unsigned u = 0; u < kUnits; ++u) {
        float want = acc0[u];
        for (int r = 0; r < 2; ++r)
          for (unsigned k = flagValue ? 0 : 1; k < (flagValue ? 1u : 4u); ++k)
            want += slice[k][u];
        want += slice[4][u];
        want += slice[5][u];
        ASSERT_EQ(got[u], want) << "unit " << u << ", flag " << flagValue << ", threads "
                                << threads;
      }
    }
  }
}

TEST(TileByTile, FailureInTheEarliestComputeSetIsReported) {
  // Both sets may run tile by tile; the first superstep's failure (tile 5) is the one reported,
  // not the later set's failure on a lower tile.
  Fixture f(8);
  Tensor in = f.spread(8, 0, "in");
  ComputeSet first = f.graph.addComputeSet("first"), second = f.graph.addComputeSet("second");
  // Both sets work on tiles 2 and 5 (a run needs the same tiles in every set).
  for (auto [cs, failing, passing] : {std::tuple{first, 5u, 2u}, std::tuple{second, 2u, 5u}}) {
    auto bad = f.graph.addVertex(cs, "Fails", {{"in", in[failing]}});
    f.graph.setTileMapping(bad, failing);
    auto good = f.graph.addVertex(cs, "Empty");
    f.graph.setTileMapping(good, passing);
  }
  Engine e(f.graph, Sequence{Execute(first), Execute(second)}, {{"target.hostThreads", "2"}});
  e.load(f.device);
  enginetest::expectThrowWithMessage<application_runtime_error>([&] { e.run(); },
                                                                {"'first'", "on tile 5"});
}
