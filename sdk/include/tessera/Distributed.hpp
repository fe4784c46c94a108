// Tessera extension, PopDist's role: where this process stands in a multi-instance run started
// by `tessera-run` (which launches the instances with mpirun). A program builds its graph with
// `replication_factor(numLocalReplicas())`; the Engine then runs those replicas as replicas
// replicaIndexOffset() … + numLocalReplicas() - 1 of numTotalReplicas(), and gcl's collectives
// span every instance. Outside tessera-run: one instance, index 0, no replicas across processes.
//
// The values come from the environment tessera-run sets: TESSERA_NUM_INSTANCES and
// TESSERA_NUM_REPLICAS, and the instance index from TESSERA_INSTANCE_INDEX or else the MPI rank
// mpirun gives each process (OMPI_COMM_WORLD_RANK). Inconsistent values throw
// poplar::runtime_error naming the variable.
#pragma once

namespace tessera {
namespace distributed {

/// True inside a tessera-run launch of more than one instance.
bool isDistributed();
unsigned numInstances();
unsigned instanceIndex();
/// Replicas of the whole run (every instance's together); 1 without tessera-run.
unsigned numTotalReplicas();
/// Replicas this instance runs: numTotalReplicas() / numInstances().
unsigned numLocalReplicas();
/// The global index of this instance's first replica.
unsigned replicaIndexOffset();

} // namespace distributed
} // namespace tessera
