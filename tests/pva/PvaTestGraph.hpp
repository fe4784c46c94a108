// The graph the pva tests profile: every kind of program pva exposes, in two Engine programs.
//   program 0: stream "x" in → Execute "dense" (4 DenseRow rows, row r on tile r) → Copy y to
//              tile 0 (an exchange) → stream "y" out
//   program 1: Execute "halve" (the weights, in place, one vertex per tile)
// run(0), run(1), run(0) with every report on, in `directory`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>

#include "ProfileTestGraphs.hpp"

namespace pvatest {

using namespace poplar;
using namespace poplar::program;

inline constexpr unsigned kTiles = 4;
inline constexpr unsigned kComputeSets = 2;
inline constexpr unsigned kVertices = 2 * kTiles;
inline constexpr unsigned kVariables = 4; // x, weights, y, yOnTile0
inline const std::vector<unsigned> kRunPrograms{0, 1, 0};

struct ProfiledGraph {
  Graph graph;
  std::vector<Program> programs;

  explicit ProfiledGraph(const Target &target) : graph(target) {
    profiletest::registerVertices();
    Tensor x = graph.addVariable(FLOAT, {8}, "x");
    Tensor w = graph.addVariable(FLOAT, {kTiles, 8}, "weights");
    Tensor y = graph.addVariable(FLOAT, {kTiles}, "y");
    Tensor yOnTile0 = graph.addVariable(FLOAT, {kTiles}, "yOnTile0");
    graph.setTileMapping(x, 0);
    graph.setTileMapping(yOnTile0, 0);
    ComputeSet dense = graph.addComputeSet("dense");
    ComputeSet halve = graph.addComputeSet("halve");
    for (unsigned r = 0; r < kTiles; ++r) {
      graph.setTileMapping(w[r], r);
      graph.setTileMapping(y[r], r);
      auto v = graph.addVertex(dense, "profiletest::DenseRow",
                               {{"in", x}, {"weights", w[r]}, {"out", y[r]}});
      graph.setTileMapping(v, r);
      auto u = graph.addVertex(halve, "profiletest::HalveNoEstimate", {{"data", w[r]}});
      graph.setTileMapping(u, r);
    }
    auto in = graph.addHostToDeviceFIFO("x", FLOAT, 8);
    auto out = graph.addDeviceToHostFIFO("y", FLOAT, kTiles);
    programs.push_back(
        Sequence{Copy(in, x), Execute(dense), Copy(y, yOnTile0), Copy(yOnTile0, out)});
    programs.push_back(Execute(halve));
  }
};

/// Builds, loads and runs the graph (runs kRunPrograms when `run`) with every report written to
/// `directory`; returns the engine's Engine::getTileMemoryUsed for each tile.
inline std::vector<std::uint64_t> profileGraph(const std::string &directory, bool run = true) {
  Device device = profiletest::smallDevice(kTiles);
  ProfiledGraph g(device.getTarget());
  Engine engine(g.graph, g.programs,
                {{"autoReport.all", "true"}, {"autoReport.directory", directory}});
  std::vector<float> x(8, 1.0f), y(kTiles);
  engine.connectStream("x", x.data());
  engine.connectStream("y", y.data());
  engine.load(device);
  if (run)
    for (unsigned p : kRunPrograms)
      engine.run(p);
  std::vector<std::uint64_t> used;
  for (unsigned t = 0; t < kTiles; ++t)
    used.push_back(engine.getTileMemoryUsed(t));
  return used;
}

} // namespace pvatest
