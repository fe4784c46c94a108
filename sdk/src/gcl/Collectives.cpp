// gcl: each collective checks its operands, makes the tensor the result lands in, and appends a
// CrossReplica program node (core/CrossReplica.hpp) that the compiler plans and the engine runs.
#include <gcl/Collectives.hpp>

#include <sstream>
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
/// The library's window on a CommGroup's protected fields.
struct CommGroupAccess {
  static CommGroupType type(const CommGroup &g) { return g.mReplicaGroupType; }
  static unsigned size(const CommGroup &g) { return g.mReplicaGroupSize; }
  static unsigned stride(const CommGroup &g) { return g.mReplicaGroupStride; }
};

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
  std::string method = "auto", syncless, allToAll;
  using H = poputil::OptionHandler;
  poputil::OptionSpec(
      "gcl",
      {{"method", H::createWithChoice(method, {"auto", "clockwise_ring", "anticlockwise_ring",
                                               "bidirectional_ring_pair", "meet_in_middle_ring",
                                               "quad_directional_ring"})},
       {"useSynclessCollectives", H::createWithString(syncless)},
       {"syncful.allToAll", H::createWithString(allToAll)}})
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

std::string describe(const CommGroup &group) {
  std::ostringstream os;
  os << group;
  return os.str();
}

/// `group` laid over the run's replicas, checked: the groups must tile them.
poplar::core::ReplicaGroups resolve(const poplar::Graph &graph, const CommGroup &group,
                                    const char *fn) {
  const std::size_t R = totalReplicas(graph);
  const auto fail = [&](const std::string &why) {
    return poputil::poplibs_error(std::string("gcl::") + fn + ": " + describe(group) + " " + why);
  };
  const CommGroupType type = CommGroupAccess::type(group);
  std::size_t size = CommGroupAccess::size(group), stride = CommGroupAccess::stride(group);
  switch (type) {
  case CommGroupType::ALL:
    return {}; // size and stride are ignored
  case CommGroupType::CONSECUTIVE:
  case CommGroupType::ORTHOGONAL:
    break;
  default:
    throw fail("has an unknown CommGroupType (" + std::to_string(int(type)) +
               "); expected ALL, CONSECUTIVE or ORTHOGONAL");
  }
  if (size == 0 || size == R) { // every replica, one group
    if (stride > 1)
      throw fail("has a replica stride of " + std::to_string(stride) +
                 " with a group of every replica (" + std::to_string(R) + ")");
    return {};
  }
  if (size > R || R % size != 0)
    throw fail("does not divide the " + std::to_string(R) +
               " replicas into groups: the group "
               "size " +
               std::to_string(size) + " must divide the replication factor");
  if (stride == 0)
    stride = 1;
  if (type == CommGroupType::ORTHOGONAL) {
    if (stride != 1)
      throw fail("has a replica stride of " + std::to_string(stride) +
                 "; only CONSECUTIVE groups take a stride (ORTHOGONAL members are R / size = " +
                 std::to_string(R / size) + " apart)");
    stride = R / size;
  } else if (R % (size * stride) != 0) {
    throw fail("does not tile the " + std::to_string(R) + " replicas: group size " +
               std::to_string(size) + " times replica stride " + std::to_string(stride) +
               " must divide the replication factor");
  }
  if (size > poplar::core::kMaxGroupField || stride > poplar::core::kMaxGroupField)
    throw fail("is too large: at most " + std::to_string(poplar::core::kMaxGroupField) +
               " replicas per group and apart");
  return {static_cast<std::uint16_t>(size), static_cast<std::uint16_t>(stride)};
}

/// Replicas in each group.
std::size_t groupSize(const poplar::Graph &graph, poplar::core::ReplicaGroups groups) {
  return groups.size ? groups.size : totalReplicas(graph);
}

std::size_t scatteredElements(const Tensor &data, std::size_t G) {
  return (data.numElements() + G - 1) / G;
}

void append(poplar::program::Sequence &prog, CrossReplicaKind kind, CollectiveOperator op,
            poplar::core::ReplicaGroups groups, const Tensor &src, const Tensor &dst,
            const poplar::DebugContext &dc, const char *what) {
  auto node = std::make_shared<poplar::core::ProgramNode>();
  node->kind = poplar::core::ProgramNode::Kind::CrossReplica;
  node->name = poplar::DebugContext(dc, what).getPathName();
  node->src = src;
  node->dst = dst;
  node->count = poplar::core::encode(
      {kind, static_cast<poplar::core::CrossReplicaOperator>(static_cast<int>(op)), groups});
  prog.add(poplar::program::Program(std::move(node)));
}

} // namespace

// --- all-reduce -------------------------------------------------------------------------------

Tensor allReduceCrossReplica(poplar::Graph &graph, const Tensor &data, CollectiveOperator op,
                             poplar::program::Sequence &prog, const CommGroup &group,
                             const poplar::DebugContext &dc, const poplar::OptionFlags &options) {
  Tensor result = graph.clone(data, {dc, "allReduce/result"});
  allReduceToDestinationCrossReplica(graph, data, result, op, prog, group, dc, options);
  return result;
}

Tensor allReduceCrossReplica(poplar::Graph &graph, const Tensor &data, CollectiveOperator op,
                             poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                             const poplar::OptionFlags &options) {
  return allReduceCrossReplica(graph, data, op, prog, CommGroup(), dc, options);
}

void allReduceInPlaceCrossReplica(poplar::Graph &graph, Tensor &data, CollectiveOperator op,
                                  poplar::program::Sequence &prog, const CommGroup &group,
                                  const poplar::DebugContext &dc,
                                  const poplar::OptionFlags &options) {
  allReduceToDestinationCrossReplica(graph, data, data, op, prog, group, dc, options);
}

void allReduceInPlaceCrossReplica(poplar::Graph &graph, Tensor &data, CollectiveOperator op,
                                  poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                                  const poplar::OptionFlags &options) {
  allReduceToDestinationCrossReplica(graph, data, data, op, prog, CommGroup(), dc, options);
}

void allReduceToDestinationCrossReplica(poplar::Graph &graph, const Tensor &data,
                                        Tensor &destination, CollectiveOperator op,
                                        poplar::program::Sequence &prog, const CommGroup &group,
                                        const poplar::DebugContext &dc,
                                        const poplar::OptionFlags &options) {
  parseOptions(options);
  requireReplicated(graph, "allReduceCrossReplica");
  const auto groups = resolve(graph, group, "allReduceCrossReplica");
  requireDestination("allReduceCrossReplica", data, destination, data.numElements());
  if (destination.shape() != data.shape())
    throw poputil::poplibs_error("gcl::allReduceCrossReplica: destination " +
                                 poputil::describe(destination) + " must have the shape of data " +
                                 poputil::describe(data));
  append(prog, CrossReplicaKind::AllReduce, op, groups, data, destination, dc, "allReduce");
}

void allReduceToDestinationCrossReplica(poplar::Graph &graph, const Tensor &data,
                                        Tensor &destination, CollectiveOperator op,
                                        poplar::program::Sequence &prog,
                                        const poplar::DebugContext &dc,
                                        const poplar::OptionFlags &options) {
  allReduceToDestinationCrossReplica(graph, data, destination, op, prog, CommGroup(), dc, options);
}

// --- reduce-scatter ---------------------------------------------------------------------------

Tensor reduceScatterCrossReplica(poplar::Graph &graph, const Tensor &data, CollectiveOperator op,
                                 poplar::program::Sequence &prog, const CommGroup &group,
                                 const poplar::DebugContext &dc,
                                 const poplar::OptionFlags &options) {
  requireReplicated(graph, "reduceScatterCrossReplica");
  const auto groups = resolve(graph, group, "reduceScatterCrossReplica");
  Tensor result =
      graph.addVariable(data.elementType(), {scatteredElements(data, groupSize(graph, groups))},
                        {dc, "reduceScatter/result"});
  poputil::mapTensorLinearly(graph, result);
  reduceScatterToDestinationCrossReplica(graph, data, result, op, prog, group, dc, options);
  return result;
}

Tensor reduceScatterCrossReplica(poplar::Graph &graph, const Tensor &data, CollectiveOperator op,
                                 poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                                 const poplar::OptionFlags &options) {
  return reduceScatterCrossReplica(graph, data, op, prog, CommGroup(), dc, options);
}

void reduceScatterToDestinationCrossReplica(poplar::Graph &graph, const Tensor &data,
                                            Tensor &destination, CollectiveOperator op,
                                            poplar::program::Sequence &prog, const CommGroup &group,
                                            const poplar::DebugContext &dc,
                                            const poplar::OptionFlags &options) {
  parseOptions(options);
  requireReplicated(graph, "reduceScatterCrossReplica");
  const auto groups = resolve(graph, group, "reduceScatterCrossReplica");
  requireDestination("reduceScatterCrossReplica", data, destination,
                     scatteredElements(data, groupSize(graph, groups)));
  append(prog, CrossReplicaKind::ReduceScatter, op, groups, data.flatten(), destination.flatten(),
         dc, "reduceScatter");
}

void reduceScatterToDestinationCrossReplica(poplar::Graph &graph, const Tensor &data,
                                            Tensor &destination, CollectiveOperator op,
                                            poplar::program::Sequence &prog,
                                            const poplar::DebugContext &dc,
                                            const poplar::OptionFlags &options) {
  reduceScatterToDestinationCrossReplica(graph, data, destination, op, prog, CommGroup(), dc,
                                         options);
}

// --- all-gather -------------------------------------------------------------------------------

Tensor allGatherCrossReplica(poplar::Graph &graph, const Tensor &data,
                             poplar::program::Sequence &prog, const CommGroup &group,
                             const poplar::DebugContext &dc, const poplar::OptionFlags &options) {
  requireReplicated(graph, "allGatherCrossReplica");
  const auto groups = resolve(graph, group, "allGatherCrossReplica");
  std::vector<Tensor> parts;
  for (std::size_t r = 0; r < groupSize(graph, groups); ++r)
    parts.push_back(graph.clone(data, {dc, "allGather/result"}).expand({0}));
  Tensor result = poplar::concat(parts, 0);
  allGatherToDestinationCrossReplica(graph, data, result, prog, group, dc, options);
  return result;
}

Tensor allGatherCrossReplica(poplar::Graph &graph, const Tensor &data,
                             poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                             const poplar::OptionFlags &options) {
  return allGatherCrossReplica(graph, data, prog, CommGroup(), dc, options);
}

void allGatherToDestinationCrossReplica(poplar::Graph &graph, const Tensor &data,
                                        Tensor &destination, poplar::program::Sequence &prog,
                                        const CommGroup &group, const poplar::DebugContext &dc,
                                        const poplar::OptionFlags &options) {
  parseOptions(options);
  requireReplicated(graph, "allGatherCrossReplica");
  const auto groups = resolve(graph, group, "allGatherCrossReplica");
  requireDestination("allGatherCrossReplica", data, destination,
                     data.numElements() * groupSize(graph, groups));
  append(prog, CrossReplicaKind::AllGather, CollectiveOperator::LOCAL, groups, data.flatten(),
         destination.flatten(), dc, "allGather");
}

void allGatherToDestinationCrossReplica(poplar::Graph &graph, const Tensor &data,
                                        Tensor &destination, poplar::program::Sequence &prog,
                                        const poplar::DebugContext &dc,
                                        const poplar::OptionFlags &options) {
  allGatherToDestinationCrossReplica(graph, data, destination, prog, CommGroup(), dc, options);
}

// --- all-to-all -------------------------------------------------------------------------------

Tensor allToAllCrossReplica(poplar::Graph &graph, const Tensor &data,
                            poplar::program::Sequence &prog, const CommGroup &group,
                            const poplar::DebugContext &dc, const poplar::OptionFlags &options) {
  parseOptions(options);
  requireReplicated(graph, "allToAllCrossReplica");
  const auto groups = resolve(graph, group, "allToAllCrossReplica");
  const std::size_t G = groupSize(graph, groups);
  if (data.rank() == 0 || data.dim(0) != G)
    throw poputil::poplibs_error(
        "gcl::allToAllCrossReplica: data " + poputil::describe(data) +
        " must have the group's replica count (" + std::to_string(G) +
        ") as its first dimension: slice j goes to the group's j-th replica");
  Tensor result = graph.clone(data, {dc, "allToAll/result"});
  append(prog, CrossReplicaKind::AllToAll, CollectiveOperator::LOCAL, groups, data.flatten(),
         result.flatten(), dc, "allToAll");
  return result;
}

Tensor allToAllCrossReplica(poplar::Graph &graph, const Tensor &data,
                            poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                            const poplar::OptionFlags &options) {
  return allToAllCrossReplica(graph, data, prog, CommGroup(), dc, options);
}

} // namespace gcl
