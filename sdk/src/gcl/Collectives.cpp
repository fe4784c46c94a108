// gcl: each collective checks its operands, makes the tensor the result lands in, and appends a
// CrossReplica program node (core/CrossReplica.hpp) that the compiler plans and the engine runs.
#include <gcl/Collectives.hpp>

#include <string>
#include <vector>

#include <poputil/Describe.hpp>
#include <poputil/OptionParsing.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>
#include <tessera/Distributed.hpp>

#include "core/CrossReplica.hpp"
#include "core/ProgramNode.hpp"

namespace gcl {
namespace {

// The public operator is handed to the engine by value: the two enumerations keep one order.
static_assert(int(CollectiveOperator::ADD) == int(poplar::core::CrossReplicaOperator::ADD) &&
              int(CollectiveOperator::SQUARE_ADD) ==
                  int(poplar::core::CrossReplicaOperator::SQUARE_ADD) &&
              int(CollectiveOperator::LOCAL) == int(poplar::core::CrossReplicaOperator::LOCAL));

using poplar::Tensor;
using poplar::core::CrossReplicaKind;

/// Checks `options` (GCL's tuning options are accepted and change nothing here).
void parseOptions(const poplar::OptionFlags &options) {
  std::string method = "auto", syncless;
  using H = poputil::OptionHandler;
  poputil::OptionSpec(
      "gcl",
      {{"method", H::createWithChoice(method, {"auto", "clockwise_ring", "anticlockwise_ring",
                                               "bidirectional_ring_pair", "meet_in_middle_ring",
                                               "quad_directional_ring"})},
       {"useSynclessCollectives", H::createWithString(syncless)}})
      .parse(options);
}

void requireReplicated(const poplar::Graph &graph, const char *fn) {
  // Under tessera-run the replicas of other instances count too.
  if (graph.getReplicationFactor() * tessera::distributed::numInstances() < 2)
    throw poputil::poplibs_error(
        std::string("gcl::") + fn +
        ": the graph is not replicated (replication factor 1); build it with "
        "Graph(target, replication_factor(R)), R >= 2, to combine replicas");
}

void requireDestination(const char *fn, const Tensor &data, const Tensor &destination,
                        std::size_t elements) {
  if (destination.elementType() != data.elementType() || destination.numElements() != elements)
    throw poputil::poplibs_error(std::string("gcl::") + fn + ": destination " +
                                 poputil::describe(destination) + " must hold " +
                                 std::to_string(elements) + " " + data.elementType().toString() +
                                 " elements for data " + poputil::describe(data));
}

/// Replicas the collectives combine: this graph's, times the instances under tessera-run.
std::size_t totalReplicas(const poplar::Graph &graph) {
  return std::size_t(graph.getReplicationFactor()) * tessera::distributed::numInstances();
}

std::size_t scatteredElements(const poplar::Graph &graph, const Tensor &data) {
  const std::size_t R = totalReplicas(graph);
  return (data.numElements() + R - 1) / R;
}

void append(poplar::program::Sequence &prog, CrossReplicaKind kind, CollectiveOperator op,
            const Tensor &src, const Tensor &dst, const poplar::DebugContext &dc,
            const char *what) {
  auto node = std::make_shared<poplar::core::ProgramNode>();
  node->kind = poplar::core::ProgramNode::Kind::CrossReplica;
  node->name = poplar::DebugContext(dc, what).getPathName();
  node->src = src;
  node->dst = dst;
  node->count = poplar::core::encode(
      {kind, static_cast<poplar::core::CrossReplicaOperator>(static_cast<int>(op))});
  prog.add(poplar::program::Program(std::move(node)));
}

} // namespace

Tensor allReduceCrossReplica(poplar::Graph &graph, const Tensor &data, CollectiveOperator op,
                             poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                             const poplar::OptionFlags &options) {
  Tensor result = graph.clone(data, {dc, "allReduce/result"});
  allReduceToDestinationCrossReplica(graph, data, result, op, prog, dc, options);
  return result;
}

void allReduceInPlaceCrossReplica(poplar::Graph &graph, Tensor &data, CollectiveOperator op,
                                  poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                                  const poplar::OptionFlags &options) {
  allReduceToDestinationCrossReplica(graph, data, data, op, prog, dc, options);
}

void allReduceToDestinationCrossReplica(poplar::Graph &graph, const Tensor &data,
                                        Tensor &destination, CollectiveOperator op,
                                        poplar::program::Sequence &prog,
                                        const poplar::DebugContext &dc,
                                        const poplar::OptionFlags &options) {
  parseOptions(options);
  requireReplicated(graph, "allReduceCrossReplica");
  requireDestination("allReduceCrossReplica", data, destination, data.numElements());
  if (destination.shape() != data.shape())
    throw poputil::poplibs_error("gcl::allReduceCrossReplica: destination " +
                                 poputil::describe(destination) + " must have the shape of data " +
                                 poputil::describe(data));
  append(prog, CrossReplicaKind::AllReduce, op, data, destination, dc, "allReduce");
}

Tensor reduceScatterCrossReplica(poplar::Graph &graph, const Tensor &data, CollectiveOperator op,
                                 poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                                 const poplar::OptionFlags &options) {
  requireReplicated(graph, "reduceScatterCrossReplica");
  Tensor result = graph.addVariable(data.elementType(), {scatteredElements(graph, data)},
                                    {dc, "reduceScatter/result"});
  poputil::mapTensorLinearly(graph, result);
  reduceScatterToDestinationCrossReplica(graph, data, result, op, prog, dc, options);
  return result;
}

void reduceScatterToDestinationCrossReplica(poplar::Graph &graph, const Tensor &data,
                                            Tensor &destination, CollectiveOperator op,
                                            poplar::program::Sequence &prog,
                                            const poplar::DebugContext &dc,
                                            const poplar::OptionFlags &options) {
  parseOptions(options);
  requireReplicated(graph, "reduceScatterCrossReplica");
  requireDestination("reduceScatterCrossReplica", data, destination,
                     scatteredElements(graph, data));
  append(prog, CrossReplicaKind::ReduceScatter, op, data.flatten(), destination.flatten(), dc,
         "reduceScatter");
}

Tensor allGatherCrossReplica(poplar::Graph &graph, const Tensor &data,
                             poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                             const poplar::OptionFlags &options) {
  requireReplicated(graph, "allGatherCrossReplica");
  std::vector<Tensor> parts;
  for (std::size_t r = 0; r < totalReplicas(graph); ++r)
    parts.push_back(graph.clone(data, {dc, "allGather/result"}).expand({0}));
  Tensor result = poplar::concat(parts, 0);
  allGatherToDestinationCrossReplica(graph, data, result, prog, dc, options);
  return result;
}

void allGatherToDestinationCrossReplica(poplar::Graph &graph, const Tensor &data,
                                        Tensor &destination, poplar::program::Sequence &prog,
                                        const poplar::DebugContext &dc,
                                        const poplar::OptionFlags &options) {
  parseOptions(options);
  requireReplicated(graph, "allGatherCrossReplica");
  requireDestination("allGatherCrossReplica", data, destination,
                     data.numElements() * totalReplicas(graph));
  append(prog, CrossReplicaKind::AllGather, CollectiveOperator::LOCAL, data.flatten(),
         destination.flatten(), dc, "allGather");
}

} // namespace gcl
