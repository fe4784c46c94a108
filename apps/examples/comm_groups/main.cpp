// Collectives within sub-groups of the replicas: 8 replicas of a graph on an 8-tile IPU Model,
// and gcl::CommGroup saying which replicas combine. Each replica all-gathers the replication
// index within its group (so it learns its group's members) and reduces its own value — its
// index — within the group; then the replicas of each CONSECUTIVE group of 4 swap blocks with
// an all-to-all.
#include <cstdio>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <gcl/Collectives.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poputil/TileMapping.hpp>

using namespace poplar;
using namespace poplar::program;
using gcl::CollectiveOperator;
using gcl::CommGroup;
using gcl::CommGroupType;

int main() {
  constexpr unsigned kReplicas = 8;
  IPUModel model;
  model.tilesPerIPU = 8;
  Device device = model.createDevice();
  Graph graph(device.getTarget(), replication_factor(kReplicas));
  std::printf("%u replicas, %u tile each\n", graph.getReplicationFactor(),
              graph.getTarget().getNumTiles());

  Tensor index = graph.addReplicationIndexConstant("replicaIndex");
  graph.setTileMapping(index, 0);
  Tensor value = graph.addVariable(FLOAT, {1}, "value");
  graph.setTileMapping(value, 0);
  graph.createHostWrite("value", value);

  // Each case: the group, the operator, and the tensors its results land in.
  struct Case {
    CommGroup group;
    CollectiveOperator op;
    unsigned size; // replicas per group
    std::string members, reduced;
  };
  std::vector<Case> cases = {
      {CommGroup(), CollectiveOperator::ADD, kReplicas, "", ""},
      {CommGroup(CommGroupType::CONSECUTIVE, 4), CollectiveOperator::ADD, 4, "", ""},
      {CommGroup(CommGroupType::ORTHOGONAL, 4), CollectiveOperator::ADD, 4, "", ""},
      {CommGroup(CommGroupType::CONSECUTIVE, 2), CollectiveOperator::MEAN, 2, "", ""},
      {CommGroup(CommGroupType::ORTHOGONAL, 2), CollectiveOperator::MAX, 2, "", ""},
  };
  Sequence prog;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    Case &k = cases[c];
    k.members = "members" + std::to_string(c);
    k.reduced = "reduced" + std::to_string(c);
    Tensor members = gcl::allGatherCrossReplica(graph, index, prog, k.group, k.members);
    graph.createHostRead(k.members, members);
    Tensor reduced = gcl::allReduceCrossReplica(graph, value, k.op, prog, k.group, k.reduced);
    graph.createHostRead(k.reduced, reduced);
  }

  // All-to-all within CONSECUTIVE groups of 4: replica r's blocks are 10·r + j, j = 0 … 3;
  // block j goes to the group's j-th replica, which keeps it at the sender's position.
  const CommGroup quads(CommGroupType::CONSECUTIVE, 4);
  Tensor blocks = graph.addVariable(FLOAT, {4, 1}, "blocks");
  poputil::mapTensorLinearly(graph, blocks);
  graph.createHostWrite("blocks", blocks);
  Tensor swapped = gcl::allToAllCrossReplica(graph, blocks, prog, quads, "swap");
  graph.createHostRead("swapped", swapped);

  Engine engine(graph, prog);
  engine.load(device);
  for (unsigned r = 0; r < kReplicas; ++r) {
    const float v = float(r);
    engine.writeTensor("value", r, &v, &v + 1);
    std::vector<float> b;
    for (unsigned j = 0; j < 4; ++j)
      b.push_back(float(10 * r + j));
    engine.writeTensor("blocks", r, b.data(), b.data() + b.size());
  }
  engine.run();

  for (const Case &k : cases) {
    // Every replica's gathered indices are its group's members; print each group once.
    std::cout << k.group << ", " << k.op << "\n  groups:";
    std::set<std::vector<unsigned>> printed;
    for (unsigned r = 0; r < kReplicas; ++r) {
      std::vector<unsigned> members(k.size);
      engine.readTensor(k.members, r, members.data(), members.data() + k.size);
      if (!printed.insert(members).second)
        continue;
      std::cout << " {";
      for (std::size_t j = 0; j < members.size(); ++j)
        std::cout << (j ? " " : "") << members[j];
      std::cout << "}";
    }
    std::cout << "\n  result per replica:";
    for (unsigned r = 0; r < kReplicas; ++r) {
      float reduced = 0;
      engine.readTensor(k.reduced, r, &reduced, &reduced + 1);
      std::cout << " " << reduced;
    }
    std::cout << "\n";
  }
  std::cout << "all-to-all within " << quads << ":\n";
  for (unsigned r = 0; r < kReplicas; ++r) {
    std::vector<float> got(4);
    engine.readTensor("swapped", r, got.data(), got.data() + 4);
    std::cout << "  replica " << r << " holds";
    for (float v : got)
      std::cout << " " << v;
    std::cout << "\n";
  }
  return 0;
}
