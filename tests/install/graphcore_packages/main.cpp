// Adds two vectors with popops on an IPU Model and checks the sum on the host, and converts a
// float to half with popfloat; prints "ok".
#include <cstdio>
#include <vector>

#include <popfloat/experimental/CastToHalf.hpp>
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

int main() {
  poplar::IPUModel model;
  model.tilesPerIPU = 4;
  poplar::Device device = model.createDevice();
  poplar::Graph graph(device.getTarget());
  popops::addCodelets(graph);
  const std::vector<float> a = {1, 2, 3, 4, 5, 6, 7, 8}, b = {8, 7, 6, 5, 4, 3, 2, 1};
  poplar::Tensor x = graph.addConstant<float>(poplar::FLOAT, {8}, a, "x");
  poplar::Tensor y = graph.addConstant<float>(poplar::FLOAT, {8}, b, "y");
  poputil::mapTensorLinearly(graph, x);
  poputil::mapTensorLinearly(graph, y);
  poplar::program::Sequence prog;
  poplar::Tensor sum = popops::add(graph, x, y, prog, "sum");
  graph.createHostRead("sum", sum);
  poplar::Engine engine(graph, prog);
  engine.load(device);
  engine.run();
  std::vector<float> host(8);
  engine.readTensor("sum", host.data(), host.data() + host.size());
  for (std::size_t i = 0; i < host.size(); ++i)
    if (host[i] != a[i] + b[i]) {
      std::printf("element %zu: %g, expected %g\n", i, host[i], a[i] + b[i]);
      return 1;
    }
  if (popfloat::experimental::singleToHalf(1e6f) != 0x7bff) { // saturates, as on the IPU
    std::printf("popfloat::experimental::singleToHalf(1e6) did not saturate\n");
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
