// Trains the replicated MLP (with batch norm) for a few steps with `replicas` replicas in all
// and prints a fingerprint of every weight and optimiser state bit. run_replica_layouts.sh runs
// it in one process and under tessera-run in several instances: the fingerprints must agree.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <tessera/Distributed.hpp>

#include "ReplicatedTraining.hpp"

int main(int argc, char **argv) {
  const unsigned replicas = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 2;
  const auto model = tessera::apps::testing::trainReplicated(replicas, 8, 4, true);
  std::printf("instance %u: fingerprint %016llx loss %.9g\n", tessera::distributed::instanceIndex(),
              static_cast<unsigned long long>(tessera::apps::testing::fingerprint(model)),
              model.losses.back());
  return 0;
}
