// Where a trainer's data-parallel replicas run: how many the run has (--replicas, or
// tessera-run's --num-replicas when the flag is 0) and which of them this instance holds.
#pragma once

namespace tessera::apps {

struct ReplicaPlacement {
  unsigned total = 1;  ///< replicas in the whole run
  unsigned local = 1;  ///< replicas this instance runs
  unsigned offset = 0; ///< global index of this instance's first replica
};

/// The replicas a run asks for: `replicasFlag`, or with 0 tessera-run's --num-replicas (1
/// outside tessera-run).
unsigned requestedReplicas(unsigned replicasFlag);

/// This instance's share of `replicasFlag` (see requestedReplicas) replicas. Throws cli_error
/// naming both numbers when tessera-run started another number of replicas.
ReplicaPlacement placeReplicas(unsigned replicasFlag);

} // namespace tessera::apps
