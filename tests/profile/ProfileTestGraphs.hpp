// Vertices and graphs the profile tests share: a dense-layer row vertex (with its own cycle
// estimate), one without an estimate, and a 2-layer MLP-like training step on 4 tiles.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <tessera/VertexType.hpp>

namespace profiletest {

using namespace poplar;
using namespace poplar::program;

/// out = dot(in, weights); costs 2 worker cycles per weight.
class DenseRow : public Vertex {
public:
  Input<Vector<float>> in;
  Input<Vector<float>> weights;
  Output<float> out;
  bool compute() {
    float s = 0;
    for (std::size_t i = 0; i < weights.size(); ++i)
      s += in[i] * weights[i];
    *out = s;
    return true;
  }
  std::uint64_t cycleEstimate() const { return 2 * weights.size(); }
};

/// data *= 0.5 with no estimate of its own (the cost model's default applies).
class HalveNoEstimate : public Vertex {
public:
  InOut<Vector<float>> data;
  bool compute() {
    for (auto &x : data)
      x *= 0.5f;
    return true;
  }
};

inline void registerVertices() {
  static const bool once = [] {
    tessera::VertexTypeBuilder<DenseRow>("profiletest::DenseRow")
        .field("in", &DenseRow::in)
        .field("weights", &DenseRow::weights)
        .field("out", &DenseRow::out)
        .add();
    tessera::VertexTypeBuilder<HalveNoEstimate>("profiletest::HalveNoEstimate")
        .field("data", &HalveNoEstimate::data)
        .add();
    return true;
  }();
  (void)once;
}

inline Device smallDevice(unsigned tiles = 4) {
  IPUModel model;
  model.tilesPerIPU = tiles;
  return model.createDevice();
}

/// x[8] on tile 0 → h = W1·x (16 rows, row r on tile r % 4) → y = W2·h (4 rows, row r on
/// tile r) → "update": W2 *= 0.5 in place (local). Exchange by hand: layer1 brings x (32 B) once
/// to each of the 3 tiles off tile 0, which all their rows share = 96 B; layer2 gathers h (64 B,
/// spread) for each of the 4 rows, one a tile = 256 B.
struct Mlp {
  Graph graph;
  Sequence program;
  static constexpr std::uint64_t kLayer1ExchangeBytes = 3 * 8 * 4;
  static constexpr std::uint64_t kLayer2ExchangeBytes = 4 * 16 * 4;
  static constexpr std::uint64_t kVariableBytes = (8 + 16 * 8 + 16 + 4 * 16 + 4) * 4;

  explicit Mlp(const Target &target) : graph(target) {
    registerVertices();
    Tensor x = graph.addVariable(FLOAT, {8}, "x");
    Tensor w1 = graph.addVariable(FLOAT, {16, 8}, "layer1/weights");
    Tensor h = graph.addVariable(FLOAT, {16}, "layer1/activations");
    Tensor w2 = graph.addVariable(FLOAT, {4, 16}, "layer2/weights");
    Tensor y = graph.addVariable(FLOAT, {4}, "layer2/out");
    graph.setTileMapping(x, 0);
    ComputeSet l1 = graph.addComputeSet("layer1/fwd");
    for (unsigned r = 0; r < 16; ++r) {
      graph.setTileMapping(w1[r], r % 4);
      graph.setTileMapping(h[r], r % 4);
      auto v = graph.addVertex(l1, "profiletest::DenseRow",
                               {{"in", x}, {"weights", w1[r]}, {"out", h[r]}});
      graph.setTileMapping(v, r % 4);
    }
    ComputeSet l2 = graph.addComputeSet("layer2/fwd");
    ComputeSet update = graph.addComputeSet("layer2/update");
    for (unsigned r = 0; r < 4; ++r) {
      graph.setTileMapping(w2[r], r);
      graph.setTileMapping(y[r], r);
      auto v = graph.addVertex(l2, "profiletest::DenseRow",
                               {{"in", h}, {"weights", w2[r]}, {"out", y[r]}});
      graph.setTileMapping(v, r);
      auto u = graph.addVertex(update, "profiletest::HalveNoEstimate", {{"data", w2[r]}});
      graph.setTileMapping(u, r);
    }
    graph.createHostWrite("x", x);
    graph.createHostRead("y", y);
    program = Sequence{Execute(l1), Execute(l2), Execute(update)};
  }
};

/// A fresh empty directory under the system temp directory.
inline std::string freshDirectory(const std::string &name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("tessera-profile-test-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

} // namespace profiletest
