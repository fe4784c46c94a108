#include "tessera/apps/ReplicaPlacement.hpp"

#include <string>

#include <tessera/Distributed.hpp>

#include "tessera/apps/Errors.hpp"

namespace tessera::apps {

unsigned requestedReplicas(unsigned replicasFlag) {
  return replicasFlag ? replicasFlag : tessera::distributed::numTotalReplicas();
}

ReplicaPlacement placeReplicas(unsigned replicasFlag) {
  ReplicaPlacement p;
  p.total = requestedReplicas(replicasFlag);
  // Under tessera-run the environment's total is a multiple of the instances, so matching it
  // is all there is to check.
  if (tessera::distributed::isDistributed() && tessera::distributed::numTotalReplicas() != p.total)
    throw cli_error("--replicas " + std::to_string(p.total) + " but tessera-run started " +
                    std::to_string(tessera::distributed::numTotalReplicas()) +
                    " replicas; give both the same number");
  p.local = p.total / tessera::distributed::numInstances();
  p.offset = tessera::distributed::isDistributed() ? tessera::distributed::replicaIndexOffset() : 0;
  return p;
}

} // namespace tessera::apps
