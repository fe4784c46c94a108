// Shared by the poprand tests: building a generator call on a small IPU Model with a chosen
// reference layout and host thread count, running it and reading the result back.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poprand/RandomGen.hpp>
#include <poprand/codelets.hpp>
#include <poputil/TileMapping.hpp>

namespace poprandtest {

/// How the reference tensor is laid out (results must not depend on it).
enum class Layout {
  Linear,     ///< mapTensorLinearly over the tiles.
  Scrambled,  ///< chunks of 7 elements dealt to tiles in a shuffled order.
  Transposed, ///< the transpose of a linearly mapped variable (every run is one element).
};

struct RunSpec {
  unsigned tiles = 4;
  unsigned hostThreads = 1;
  std::vector<std::size_t> shape{64};
  Layout layout = Layout::Linear;
  std::array<unsigned, 2> seed{0x12345678u, 0x9abcdef0u};
  bool seedless = false; ///< Pass nullptr as the seed.
};

/// Builds the generator given the graph, seed (maybe null), reference and program.
using Builder = std::function<poplar::Tensor(poplar::Graph &, const poplar::Tensor *,
                                             const poplar::Tensor &, poplar::program::Sequence &)>;

inline poplar::Tensor makeReference(poplar::Graph &graph, const RunSpec &spec) {
  using poplar::FLOAT;
  const unsigned tiles = spec.tiles;
  if (spec.layout == Layout::Transposed) {
    std::vector<std::size_t> reversed(spec.shape.rbegin(), spec.shape.rend());
    poplar::Tensor v = graph.addVariable(FLOAT, reversed, "referenceT");
    poputil::mapTensorLinearly(graph, v, 1, 1);
    std::vector<unsigned> perm;
    for (unsigned d = v.rank(); d-- > 0;)
      perm.push_back(d);
    return v.dimShuffle(perm);
  }
  poplar::Tensor ref = graph.addVariable(FLOAT, spec.shape, "reference");
  if (spec.layout == Layout::Linear) {
    poputil::mapTensorLinearly(graph, ref, 1, 1);
    return ref;
  }
  const poplar::Tensor flat = ref.flatten();
  const std::size_t n = flat.numElements();
  for (std::size_t b = 0, k = 0; b < n; b += 7, ++k)
    graph.setTileMapping(flat.slice(b, std::min(n, b + 7)),
                         static_cast<unsigned>((k * 5 + 3) % tiles));
  return ref;
}

/// Runs the generator once (`runs` times in one engine) and returns the last output, read as T.
template <class T>
std::vector<T> run(const RunSpec &spec, const Builder &build, unsigned runs = 1) {
  poplar::IPUModel model;
  model.tilesPerIPU = spec.tiles;
  poplar::Device device = model.createDevice();
  poplar::Graph graph(device.getTarget());
  poprand::addCodelets(graph);
  poplar::Tensor seed = graph.addVariable(poplar::UNSIGNED_INT, {2}, "seed");
  graph.setTileMapping(seed, spec.tiles - 1);
  graph.createHostWrite("seed", seed);
  const poplar::Tensor reference = makeReference(graph, spec);
  poplar::program::Sequence prog;
  poplar::Tensor out = build(graph, spec.seedless ? nullptr : &seed, reference, prog);
  graph.createHostRead("out", out);
  poplar::Engine engine(graph, prog, {{"target.hostThreads", std::to_string(spec.hostThreads)}});
  engine.load(device);
  engine.writeTensor("seed", spec.seed.data(), spec.seed.data() + 2);
  for (unsigned r = 0; r < runs; ++r)
    engine.run();
  std::vector<T> host(out.numElements());
  engine.readTensor("out", host.data(), host.data() + host.size());
  return host;
}

} // namespace poprandtest
