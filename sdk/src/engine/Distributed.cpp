#include <tessera/Distributed.hpp>

#include <cstdlib>
#include <string>

#include <poplar/exceptions.hpp>

namespace tessera::distributed {
namespace {

/// The unsigned value of environment variable `name`, or `fallback` when it is unset.
unsigned fromEnvironment(const char *name, unsigned fallback) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return fallback;
  char *end = nullptr;
  const unsigned long value = std::strtoul(v, &end, 10);
  if (*end != '\0' || value > 1u << 20)
    throw poplar::runtime_error(std::string("environment variable ") + name + "='" + v +
                                "' is not a count");
  return static_cast<unsigned>(value);
}

} // namespace

unsigned numInstances() {
  const unsigned n = fromEnvironment("TESSERA_NUM_INSTANCES", 1);
  if (n == 0)
    throw poplar::runtime_error("environment variable TESSERA_NUM_INSTANCES must be at least 1");
  return n;
}

bool isDistributed() { return numInstances() > 1; }

unsigned instanceIndex() {
  const unsigned fromMpi = fromEnvironment("OMPI_COMM_WORLD_RANK", 0);
  const unsigned index = fromEnvironment("TESSERA_INSTANCE_INDEX", fromMpi);
  if (index >= numInstances())
    throw poplar::runtime_error(
        "instance index " + std::to_string(index) + " (from " +
        (std::getenv("TESSERA_INSTANCE_INDEX") ? "TESSERA_INSTANCE_INDEX"
                                               : "OMPI_COMM_WORLD_RANK") +
        ") is not below TESSERA_NUM_INSTANCES=" + std::to_string(numInstances()));
  return index;
}

unsigned numTotalReplicas() {
  const unsigned total = fromEnvironment("TESSERA_NUM_REPLICAS", numInstances());
  if (total == 0 || total % numInstances() != 0)
    throw poplar::runtime_error(
        "TESSERA_NUM_REPLICAS=" + std::to_string(total) +
        " is not a positive multiple of TESSERA_NUM_INSTANCES=" + std::to_string(numInstances()));
  return total;
}

unsigned numLocalReplicas() { return numTotalReplicas() / numInstances(); }

unsigned replicaIndexOffset() { return instanceIndex() * numLocalReplicas(); }

} // namespace tessera::distributed
