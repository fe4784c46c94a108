// Builds a small graph with the installed SDK, runs it on an IPU Model and checks the result.
#include <cstdio>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Program.hpp>
#include <poplar/Version.hpp>
#include <poputil/TileMapping.hpp>

int main() {
  using namespace poplar;
  using namespace poplar::program;
  std::printf("%s\n", versionString().c_str());

  IPUModel model;
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  Graph graph(device.getTarget());

  const std::vector<float> weights = {1.5f, -2.0f, 3.25f, 0.0f, 8.0f, -0.5f, 7.0f, 42.0f};
  Tensor constant = graph.addConstant(FLOAT, {weights.size()}, weights.data(), "weights");
  Tensor input = graph.addVariable(FLOAT, {weights.size()}, "input");
  Tensor result = graph.addVariable(FLOAT, {2 * weights.size()}, "result");
  poputil::mapTensorLinearly(graph, constant, 1, 1);
  poputil::mapTensorLinearly(graph, input, 1, 1);
  graph.setTileMapping(result, 3);
  graph.createHostWrite("input", input);
  graph.createHostRead("result", result);

  // result = concat(weights, input), element by element across tiles.
  Sequence prog({Copy(constant, result.slice(0, weights.size())),
                 Copy(input, result.slice(weights.size(), 2 * weights.size()))});
  Engine engine(graph, prog);
  engine.load(device);

  std::vector<float> host(weights.size());
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = 10.0f * static_cast<float>(i);
  engine.writeTensor("input", host.data(), host.data() + host.size());
  engine.run();
  std::vector<float> out(2 * weights.size(), -1.0f);
  engine.readTensor("result", out.data(), out.data() + out.size());

  int mismatches = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const float expect = i < weights.size() ? weights[i] : host[i - weights.size()];
    if (out[i] != expect) {
      std::fprintf(stderr, "result[%zu] = %g, expected %g\n", i, out[i], expect);
      ++mismatches;
    }
  }
  if (mismatches != 0) {
    std::fprintf(stderr, "install consumer: %d mismatches\n", mismatches);
    return 1;
  }
  std::printf("install consumer: %zu elements correct\n", out.size());
  return 0;
}
