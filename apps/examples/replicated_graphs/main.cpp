// Data parallelism in one Engine: a graph replicated 4 times over an 8-tile IPU Model. Each
// replica receives its own "gradients" through its own stream, gcl sums them across replicas
// (as a data-parallel optimiser step does), and every replica streams the same sum back.
#include <cstdio>
#include <vector>

#include <gcl/Collectives.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poputil/TileMapping.hpp>

using namespace poplar;
using namespace poplar::program;

int main() {
  constexpr unsigned kReplicas = 4;
  constexpr std::size_t kValues = 6;
  IPUModel model;
  model.tilesPerIPU = 8;
  Device device = model.createDevice();
  // Each replica's graph gets 8 / 4 = 2 tiles.
  Graph graph(device.getTarget(), replication_factor(kReplicas));
  std::printf("replicas: %u, tiles per replica: %u\n", graph.getReplicationFactor(),
              graph.getTarget().getNumTiles());

  Tensor gradients = graph.addVariable(FLOAT, {kValues}, "gradients");
  poputil::mapTensorLinearly(graph, gradients);
  Tensor index = graph.addReplicationIndexConstant("replicaIndex");
  graph.setTileMapping(index, 0);
  graph.createHostRead("replicaIndex", index);
  auto in = graph.addHostToDeviceFIFO("gradientsIn", FLOAT, kValues);
  auto out = graph.addDeviceToHostFIFO("sumOut", FLOAT, kValues);

  Sequence step;
  step.add(Copy(in, gradients));
  Tensor mean =
      gcl::allReduceCrossReplica(graph, gradients, gcl::CollectiveOperator::MEAN, step, "mean");
  step.add(Copy(mean, out));

  Engine engine(graph, step);
  engine.load(device);
  // Replica r's gradients are r + 1 times 1, 2, 3, …: their mean is 2.5 times 1, 2, 3, …
  std::vector<std::vector<float>> perReplica(kReplicas), results(kReplicas);
  for (unsigned r = 0; r < kReplicas; ++r) {
    for (std::size_t i = 0; i < kValues; ++i)
      perReplica[r].push_back(float((r + 1) * (i + 1)));
    results[r].resize(kValues);
    engine.connectStream("gradientsIn", r, perReplica[r].data(), perReplica[r].data() + kValues);
    engine.connectStream("sumOut", r, results[r].data(), results[r].data() + kValues);
  }
  engine.run();
  for (unsigned r = 0; r < kReplicas; ++r) {
    unsigned replicaIndex = 0;
    engine.readTensor("replicaIndex", r, &replicaIndex, &replicaIndex + 1);
    std::printf("replica %u (index %u) mean:", r, replicaIndex);
    for (float v : results[r])
      std::printf(" %g", v);
    std::printf("\n");
  }
  return 0;
}
