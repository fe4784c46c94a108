// Where a trainer's replicas run, from --replicas and the environment tessera-run sets
// (<tessera/Distributed.hpp>): the share of each instance, and the inconsistent launches named
// — a --replicas other than tessera-run's, and environment values that are not counts or do
// not fit together.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>

#include <poplar/exceptions.hpp>
#include <tessera/Distributed.hpp>

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/ReplicaPlacement.hpp>

namespace tessera::apps {
namespace {

/// The tessera-run environment for the lifetime of the object (empty values unset it).
class LaunchEnvironment {
public:
  LaunchEnvironment(const std::string &instances, const std::string &replicas,
                    const std::string &index) {
    set("TESSERA_NUM_INSTANCES", instances);
    set("TESSERA_NUM_REPLICAS", replicas);
    set("TESSERA_INSTANCE_INDEX", index);
  }
  ~LaunchEnvironment() {
    for (const char *name :
         {"TESSERA_NUM_INSTANCES", "TESSERA_NUM_REPLICAS", "TESSERA_INSTANCE_INDEX"})
      ::unsetenv(name);
  }

private:
  static void set(const char *name, const std::string &value) {
    if (value.empty())
      ::unsetenv(name);
    else
      ::setenv(name, value.c_str(), 1);
  }
};

template <class E>
void expectThrowNaming(const std::function<void()> &fn, const std::string &part) {
  try {
    fn();
    ADD_FAILURE() << "expected an exception naming '" << part << "'";
  } catch (const E &e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(ReplicaPlacement, OutsideTesseraRunEveryReplicaIsLocal) {
  LaunchEnvironment env("", "", "");
  EXPECT_EQ(requestedReplicas(0), 1u);
  const ReplicaPlacement p = placeReplicas(4);
  EXPECT_EQ(p.total, 4u);
  EXPECT_EQ(p.local, 4u);
  EXPECT_EQ(p.offset, 0u);
}

TEST(ReplicaPlacement, EachInstanceHoldsItsShare) {
  LaunchEnvironment env("2", "4", "1");
  EXPECT_EQ(requestedReplicas(0), 4u) << "0 takes tessera-run's --num-replicas";
  const ReplicaPlacement p = placeReplicas(0);
  EXPECT_EQ(p.total, 4u);
  EXPECT_EQ(p.local, 2u);
  EXPECT_EQ(p.offset, 2u);
}

TEST(ReplicaPlacement, ReplicasOtherThanTesseraRunsAreNamed) {
  LaunchEnvironment env("2", "4", "0");
  expectThrowNaming<cli_error>([] { placeReplicas(6); },
                               "--replicas 6 but tessera-run started 4 replicas");
}

TEST(ReplicaPlacement, InconsistentEnvironmentIsNamed) {
  {
    LaunchEnvironment env("two", "", "");
    expectThrowNaming<poplar::runtime_error>([] { tessera::distributed::numInstances(); },
                                             "TESSERA_NUM_INSTANCES='two' is not a count");
  }
  {
    LaunchEnvironment env("0", "", "");
    expectThrowNaming<poplar::runtime_error>([] { tessera::distributed::numInstances(); },
                                             "TESSERA_NUM_INSTANCES must be at least 1");
  }
  {
    LaunchEnvironment env("2", "3", "0");
    expectThrowNaming<poplar::runtime_error>(
        [] { tessera::distributed::numLocalReplicas(); },
        "TESSERA_NUM_REPLICAS=3 is not a positive multiple of TESSERA_NUM_INSTANCES=2");
  }
  {
    LaunchEnvironment env("2", "2", "2");
    expectThrowNaming<poplar::runtime_error>([] { tessera::distributed::instanceIndex(); },
                                             "instance index 2 (from TESSERA_INSTANCE_INDEX)");
  }
}

} // namespace
} // namespace tessera::apps
