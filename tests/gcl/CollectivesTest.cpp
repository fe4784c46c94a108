// Replicated graphs and gcl's collectives in one process: each replica gets its own data
// (per-replica writeTensor and streams), and every collective's result on every replica is
// checked against a host reference that combines the replicas in replica order. Also the
// replication index, collectives inside loops, serialized executables, and every error path.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gcl/Collectives.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Executable.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "engine/CrossInstance.hpp"
#include "gcl/MpiByteCount.hpp"

using namespace poplar;
using namespace poplar::program;
using gcl::CollectiveOperator;

namespace {

Device device(unsigned tiles = 8) {
  IPUModel model;
  model.tilesPerIPU = tiles;
  return model.createDevice();
}

/// Values for replica `r`: small integers as floats, so sums are exact in any order and the
/// reference can be compared bit for bit; plus a fraction where order would matter.
std::vector<float> replicaData(unsigned r, std::size_t n, bool fractional = false) {
  std::mt19937 gen(1000 + r);
  std::uniform_int_distribution<int> dist(-20, 20);
  std::vector<float> v(n);
  for (auto &x : v)
    x = float(dist(gen)) + (fractional ? 0.1f * float(r + 1) : 0.0f);
  return v;
}

/// The reduction the engine must give, combining replicas in order 0, 1, … in float.
float reference(CollectiveOperator op, const std::vector<std::vector<float>> &in, std::size_t i) {
  float acc = op == CollectiveOperator::SQUARE_ADD ? in[0][i] * in[0][i] : in[0][i];
  for (std::size_t r = 1; r < in.size(); ++r) {
    const float v = in[r][i];
    switch (op) {
    case CollectiveOperator::ADD:
    case CollectiveOperator::MEAN:
      acc += v;
      break;
    case CollectiveOperator::SQUARE_ADD:
      acc += v * v;
      break;
    case CollectiveOperator::MUL:
      acc *= v;
      break;
    case CollectiveOperator::MIN:
      acc = std::min(acc, v);
      break;
    case CollectiveOperator::MAX:
      acc = std::max(acc, v);
      break;
    default:
      break;
    }
  }
  if (op == CollectiveOperator::MEAN)
    acc /= float(in.size());
  return acc;
}

struct AllReduceCase {
  unsigned replicas;
  CollectiveOperator op;
};

/// data (float[n], per replica from the host) → allReduce(op) → read on every replica.
std::vector<std::vector<float>> runAllReduce(unsigned replicas, CollectiveOperator op,
                                             const std::vector<std::vector<float>> &in,
                                             unsigned hostThreads = 0) {
  Device d = device();
  Graph graph(d.getTarget(), replication_factor(replicas));
  const std::size_t n = in[0].size();
  Tensor data = graph.addVariable(FLOAT, {n}, "data");
  poputil::mapTensorLinearly(graph, data);
  graph.createHostWrite("data", data);
  Sequence prog;
  Tensor result = gcl::allReduceCrossReplica(graph, data, op, prog, "sum");
  graph.createHostRead("result", result);
  OptionFlags options;
  if (hostThreads)
    options.set("target.hostThreads", std::to_string(hostThreads));
  Engine engine(graph, prog, options);
  engine.load(d);
  EXPECT_EQ(engine.getNumReplicas(), replicas);
  for (unsigned r = 0; r < replicas; ++r)
    engine.writeTensor("data", r, in[r].data(), in[r].data() + n);
  engine.run();
  std::vector<std::vector<float>> out(replicas, std::vector<float>(n));
  for (unsigned r = 0; r < replicas; ++r)
    engine.readTensor("result", r, out[r].data(), out[r].data() + n);
  return out;
}

} // namespace

class AllReduce : public ::testing::TestWithParam<AllReduceCase> {};

TEST_P(AllReduce, EveryReplicaGetsTheReductionInReplicaOrder) {
  const auto [replicas, op] = GetParam();
  const std::size_t n = 37;
  std::vector<std::vector<float>> in;
  for (unsigned r = 0; r < replicas; ++r)
    in.push_back(replicaData(r, n, /*fractional=*/true));
  const auto out = runAllReduce(replicas, op, in);
  for (unsigned r = 0; r < replicas; ++r)
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(out[r][i], reference(op, in, i)) << "replica " << r << " element " << i;
}

INSTANTIATE_TEST_SUITE_P(Operators, AllReduce,
                         ::testing::Values(AllReduceCase{2, CollectiveOperator::ADD},
                                           AllReduceCase{4, CollectiveOperator::ADD},
                                           AllReduceCase{4, CollectiveOperator::MEAN},
                                           AllReduceCase{2, CollectiveOperator::MUL},
                                           AllReduceCase{4, CollectiveOperator::MIN},
                                           AllReduceCase{4, CollectiveOperator::MAX},
                                           AllReduceCase{2, CollectiveOperator::SQUARE_ADD}));

TEST(Collectives, LocalLeavesEachReplicaItsOwnData) {
  std::vector<std::vector<float>> in = {replicaData(0, 5), replicaData(1, 5)};
  const auto out = runAllReduce(2, CollectiveOperator::LOCAL, in);
  EXPECT_EQ(out, in);
}

TEST(Collectives, ResultsAreTheSameBitsForAnyHostThreadCount) {
  std::vector<std::vector<float>> in;
  for (unsigned r = 0; r < 4; ++r)
    in.push_back(replicaData(r, 101, true));
  EXPECT_EQ(runAllReduce(4, CollectiveOperator::ADD, in, 1),
            runAllReduce(4, CollectiveOperator::ADD, in, 3));
}

TEST(Collectives, IntegerAndBooleanReductions) {
  Device d = device();
  Graph graph(d.getTarget(), replication_factor(2));
  Tensor ints = graph.addVariable(INT, {3}, "ints");
  Tensor flags = graph.addVariable(BOOL, {4}, "flags");
  graph.setTileMapping(ints, 0);
  graph.setTileMapping(flags, 1);
  graph.createHostWrite("ints", ints);
  graph.createHostWrite("flags", flags);
  Sequence prog;
  Tensor sum = gcl::allReduceCrossReplica(graph, ints, CollectiveOperator::ADD, prog);
  Tensor any = gcl::allReduceCrossReplica(graph, flags, CollectiveOperator::LOGICAL_OR, prog);
  Tensor all = gcl::allReduceCrossReplica(graph, flags, CollectiveOperator::LOGICAL_AND, prog);
  graph.createHostRead("sum", sum);
  graph.createHostRead("any", any);
  graph.createHostRead("all", all);
  Engine engine(graph, prog);
  engine.load(d);
  const std::int32_t i0[3] = {1, -5, 7}, i1[3] = {10, 5, -100};
  const bool f0[4] = {false, true, false, true}, f1[4] = {false, false, true, true};
  engine.writeTensor("ints", 0, i0, i0 + 3);
  engine.writeTensor("ints", 1, i1, i1 + 3);
  engine.writeTensor("flags", 0, f0, f0 + 4);
  engine.writeTensor("flags", 1, f1, f1 + 4);
  engine.run();
  std::int32_t s[3];
  bool a[4], b[4];
  engine.readTensor("sum", 1, s, s + 3);
  engine.readTensor("any", 1, a, a + 4);
  engine.readTensor("all", 0, b, b + 4);
  EXPECT_EQ(std::vector<std::int32_t>(s, s + 3), (std::vector<std::int32_t>{11, 0, -93}));
  EXPECT_EQ(std::vector<bool>(a, a + 4), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(std::vector<bool>(b, b + 4), (std::vector<bool>{false, false, false, true}));
}

TEST(Collectives, ReduceScatterGivesEachReplicaItsSliceZeroPadded) {
  const unsigned R = 4;
  const std::size_t n = 10, chunk = 3; // ceil(10 / 4)
  Device d = device();
  Graph graph(d.getTarget(), replication_factor(R));
  Tensor data = graph.addVariable(FLOAT, {2, 5}, "data");
  poputil::mapTensorLinearly(graph, data);
  graph.createHostWrite("data", data);
  Sequence prog;
  Tensor slice = gcl::reduceScatterCrossReplica(graph, data, CollectiveOperator::ADD, prog);
  ASSERT_EQ(slice.shape(), std::vector<std::size_t>{chunk});
  graph.createHostRead("slice", slice);
  Engine engine(graph, prog);
  engine.load(d);
  std::vector<std::vector<float>> in;
  for (unsigned r = 0; r < R; ++r) {
    in.push_back(replicaData(r, n));
    engine.writeTensor("data", r, in[r].data(), in[r].data() + n);
  }
  engine.run();
  for (unsigned r = 0; r < R; ++r) {
    std::vector<float> got(chunk);
    engine.readTensor("slice", r, got.data(), got.data() + chunk);
    for (std::size_t k = 0; k < chunk; ++k) {
      const std::size_t i = r * chunk + k;
      EXPECT_EQ(got[k], i < n ? reference(CollectiveOperator::ADD, in, i) : 0.0f)
          << "replica " << r << " element " << k;
    }
  }
}

TEST(Collectives, AllGatherStacksTheReplicasInOrder) {
  const unsigned R = 2;
  Device d = device();
  Graph graph(d.getTarget(), replication_factor(R));
  Tensor data = graph.addVariable(FLOAT, {2, 3}, "data");
  poputil::mapTensorLinearly(graph, data);
  graph.createHostWrite("data", data);
  Sequence prog;
  Tensor gathered = gcl::allGatherCrossReplica(graph, data, prog);
  ASSERT_EQ(gathered.shape(), (std::vector<std::size_t>{R, 2, 3}));
  graph.createHostRead("gathered", gathered);
  Engine engine(graph, prog);
  engine.load(d);
  std::vector<float> expected;
  for (unsigned r = 0; r < R; ++r) {
    const auto v = replicaData(r, 6);
    engine.writeTensor("data", r, v.data(), v.data() + 6);
    expected.insert(expected.end(), v.begin(), v.end());
  }
  engine.run();
  for (unsigned r = 0; r < R; ++r) {
    std::vector<float> got(R * 6);
    engine.readTensor("gathered", r, got.data(), got.data() + got.size());
    EXPECT_EQ(got, expected) << "replica " << r;
  }
}

TEST(Collectives, InPlaceInsideALoopAndTheReplicationIndex) {
  // x starts as the replica index (0 and 1); three in-place sums over the 2 replicas give
  // 0 + 1 = 1, then 2, then 4 on both. A constant 1 summed over the replicas gives 2.
  Device d = device();
  Graph graph(d.getTarget(), replication_factor(2));
  Tensor index = graph.addReplicationIndexConstant("index");
  graph.setTileMapping(index, 1);
  graph.createHostRead("index", index);
  Tensor x = graph.addVariable(UNSIGNED_INT, {}, "x");
  graph.setTileMapping(x, 2);
  graph.createHostRead("x", x);
  Tensor one = graph.addConstant(UNSIGNED_INT, {}, 1u, "one");
  graph.setTileMapping(one, 2);
  Sequence start;
  start.add(Copy(index, x));
  Tensor two = gcl::allReduceCrossReplica(graph, one, CollectiveOperator::ADD, start);
  graph.createHostRead("two", two);
  Sequence body;
  gcl::allReduceInPlaceCrossReplica(graph, x, CollectiveOperator::ADD, body);
  Engine engine(graph, Sequence{start, Repeat(3, body)});
  engine.load(d);
  engine.run();
  for (unsigned r = 0; r < 2; ++r) {
    std::uint32_t got = 0, idx = 99, sum = 0;
    engine.readTensor("x", r, &got, &got + 1);
    engine.readTensor("index", r, &idx, &idx + 1);
    engine.readTensor("two", r, &sum, &sum + 1);
    EXPECT_EQ(idx, r);
    EXPECT_EQ(sum, 2u);
    EXPECT_EQ(got, 4u) << "replica " << r;
  }
}

TEST(Collectives, PerReplicaStreamsFeedEachReplicaItsOwnData) {
  const unsigned R = 2;
  const std::size_t n = 4;
  Device d = device();
  Graph graph(d.getTarget(), replication_factor(R));
  Tensor data = graph.addVariable(FLOAT, {n}, "data");
  poputil::mapTensorLinearly(graph, data);
  auto in = graph.addHostToDeviceFIFO("in", FLOAT, n);
  auto out = graph.addDeviceToHostFIFO("out", FLOAT, n);
  Sequence prog;
  prog.add(Copy(in, data));
  gcl::allReduceInPlaceCrossReplica(graph, data, CollectiveOperator::MAX, prog);
  prog.add(Copy(data, out));
  Engine engine(graph, Repeat(2, prog));
  engine.load(d);
  // Two transfers per replica (the loop runs twice), each replica its own ring.
  std::vector<float> in0 = {1, 9, 3, 4, 10, 0, 0, 0}, in1 = {5, 2, 8, 4, 0, 20, 0, -1};
  std::vector<float> out0(2 * n), out1(2 * n);
  engine.connectStream("in", 0, in0.data(), in0.data() + in0.size());
  engine.connectStream("in", 1, in1.data(), in1.data() + in1.size());
  engine.connectStream("out", 0, out0.data(), out0.data() + out0.size());
  engine.connectStream("out", 1, out1.data(), out1.data() + out1.size());
  engine.run();
  const std::vector<float> expected = {5, 9, 8, 4, 10, 20, 0, 0};
  EXPECT_EQ(out0, expected);
  EXPECT_EQ(out1, expected);
}

TEST(Collectives, SerializedExecutableKeepsReplicationAndCollectives) {
  Device d = device();
  Graph graph(d.getTarget(), replication_factor(2));
  Tensor data = graph.addVariable(FLOAT, {6}, "data");
  poputil::mapTensorLinearly(graph, data);
  graph.createHostWrite("data", data);
  Sequence prog;
  Tensor sum = gcl::allReduceCrossReplica(graph, data, CollectiveOperator::ADD, prog);
  graph.createHostRead("sum", sum);
  std::stringstream bytes;
  compileGraph(graph, {prog}).serialize(bytes);
  Engine engine(Executable::deserialize(bytes));
  engine.load(d);
  ASSERT_EQ(engine.getNumReplicas(), 2u);
  const auto a = replicaData(0, 6), b = replicaData(1, 6);
  engine.writeTensor("data", 0, a.data(), a.data() + 6);
  engine.writeTensor("data", 1, b.data(), b.data() + 6);
  engine.run();
  std::vector<float> got(6);
  engine.readTensor("sum", 1, got.data(), got.data() + 6);
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_EQ(got[i], a[i] + b[i]);
  EXPECT_GT(engine.estimateProgramCycles(), 0u);
}

// ---- errors ---------------------------------------------------------------------------------

TEST(CollectivesErrors, ReplicationFactorMustDivideTheDevice) {
  Device d = device(8);
  try {
    Graph graph(d.getTarget(), replication_factor(3));
    FAIL() << "expected invalid_machine_model";
  } catch (const invalid_machine_model &e) {
    EXPECT_NE(std::string(e.what()).find("replication factor 3 does not divide"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("8 tiles"), std::string::npos) << e.what();
  }
  Graph two(d.getTarget(), replication_factor(2));
  EXPECT_EQ(two.getTarget().getNumTiles(), 4u);
  EXPECT_EQ(two.getReplicationFactor(), 2u);
}

TEST(CollectivesErrors, CollectiveOnAnUnreplicatedGraphIsNamed) {
  Device d = device();
  Graph graph(d.getTarget());
  Tensor data = graph.addVariable(FLOAT, {4}, "data");
  poputil::mapTensorLinearly(graph, data);
  Sequence prog;
  try {
    gcl::allReduceCrossReplica(graph, data, CollectiveOperator::ADD, prog);
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("gcl::allReduceCrossReplica"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("not replicated"), std::string::npos) << e.what();
  }
}

TEST(CollectivesErrors, DestinationOfTheWrongShapeOrTypeIsNamed) {
  Device d = device();
  Graph graph(d.getTarget(), replication_factor(2));
  Tensor data = graph.addVariable(FLOAT, {4}, "data");
  Tensor wrong = graph.addVariable(HALF, {4}, "wrongType");
  Tensor small = graph.addVariable(FLOAT, {3}, "tooSmall");
  Sequence prog;
  for (Tensor *dst : {&wrong, &small}) {
    try {
      gcl::allReduceToDestinationCrossReplica(graph, data, *dst, CollectiveOperator::ADD, prog);
      FAIL() << "expected poplibs_error";
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find(dst == &wrong ? "wrongType" : "tooSmall"),
                std::string::npos)
          << e.what();
    }
  }
  try {
    gcl::allGatherToDestinationCrossReplica(graph, data, small, prog);
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("must hold 8 float elements"), std::string::npos)
        << e.what();
  }
}

TEST(CollectivesErrors, UnknownOptionSuggestsTheNearest) {
  Device d = device();
  Graph graph(d.getTarget(), replication_factor(2));
  Tensor data = graph.addVariable(FLOAT, {4}, "data");
  poputil::mapTensorLinearly(graph, data);
  Sequence prog;
  try {
    gcl::allReduceCrossReplica(graph, data, CollectiveOperator::ADD, prog, "sum",
                               {{"methd", "auto"}});
    FAIL() << "expected invalid_option";
  } catch (const invalid_option &e) {
    EXPECT_NE(std::string(e.what()).find("methd"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("method"), std::string::npos) << e.what();
  }
}

TEST(CollectivesErrors, ReplicaThatDoesNotExistAndTheWrongDevice) {
  Device d = device();
  Graph graph(d.getTarget(), replication_factor(2));
  Tensor data = graph.addVariable(FLOAT, {4}, "data");
  poputil::mapTensorLinearly(graph, data);
  graph.createHostRead("data", data);
  Engine engine(graph, Sequence{});
  // A device of one replica's tiles is not the device the replicated graph runs on.
  Device small = device(4);
  EXPECT_THROW(engine.load(small), poplar::runtime_error);
  engine.load(d);
  float buf[4];
  try {
    engine.readTensor("data", 2, buf, buf + 4);
    FAIL() << "expected index_error";
  } catch (const index_error &e) {
    EXPECT_NE(std::string(e.what()).find("replica 2 does not exist"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("'data'"), std::string::npos) << e.what();
  }
  std::vector<float> ring(4);
  EXPECT_THROW(engine.connectStream("data", 5, ring.data(), ring.data() + 4), index_error);
}

namespace {

/// As tessera-run sets it: 2 instances, 4 replicas, this process instance 0 (so its graph must
/// hold 2 replicas). The message of the runtime_error building an Engine for a graph of
/// `replicas` replicas with one all-reduce throws ("" when none does).
std::string engineErrorAsInstanceZeroOfTwo(unsigned replicas) {
  ::setenv("TESSERA_NUM_INSTANCES", "2", 1);
  ::setenv("TESSERA_NUM_REPLICAS", "4", 1);
  ::setenv("TESSERA_INSTANCE_INDEX", "0", 1);
  Device d = device();
  Graph graph(d.getTarget(), replication_factor(replicas));
  Tensor data = graph.addVariable(FLOAT, {4}, "data");
  poputil::mapTensorLinearly(graph, data);
  Sequence prog;
  gcl::allReduceInPlaceCrossReplica(graph, data, CollectiveOperator::ADD, prog);
  std::string message;
  try {
    Engine engine(graph, prog);
  } catch (const poplar::runtime_error &e) {
    message = e.what();
  }
  for (const char *name :
       {"TESSERA_NUM_INSTANCES", "TESSERA_NUM_REPLICAS", "TESSERA_INSTANCE_INDEX"})
    ::unsetenv(name);
  return message;
}

} // namespace

TEST(CollectivesErrors, GraphThatIsNotThisInstancesShareOfATesseraRunIsNamed) {
  // One replica: 1 × 2 instances makes the collective legal, but tessera-run gives each 2.
  const std::string message = engineErrorAsInstanceZeroOfTwo(1);
  EXPECT_NE(message.find("replication factor 1 but tessera-run gives each instance 2"),
            std::string::npos)
      << message;
}

TEST(CollectivesErrors, ReplicasThatSkipACollectiveAreNamedNotHung) {
  // Replica 0 (index 0: the If's else branch) reaches the collective; replica 1 skips it.
  Device d = device();
  Graph graph(d.getTarget(), replication_factor(2));
  Tensor index = graph.addReplicationIndexConstant();
  graph.setTileMapping(index, 0);
  Tensor data = graph.addVariable(FLOAT, {4}, "data");
  poputil::mapTensorLinearly(graph, data);
  Sequence onFirst;
  gcl::allReduceInPlaceCrossReplica(graph, data, CollectiveOperator::ADD, onFirst, "gradSum");
  Engine engine(graph, If(index, Sequence{}, onFirst));
  engine.load(d);
  try {
    engine.run();
    FAIL() << "expected runtime_error";
  } catch (const poplar::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("replicas took different paths"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("gradSum"), std::string::npos) << e.what();
  }
}

TEST(CollectivesErrors, ATesseraRunInstanceWithoutTheTransportSaysToLinkGcl) {
  // A program run by tessera-run whose collectives span instances, in a process where no
  // transport was registered (libgcl not linked): simulated by taking gcl's registration away.
  const auto gclTransport = poplar::engine::registerCrossInstance(nullptr);
  const std::string message = engineErrorAsInstanceZeroOfTwo(2);
  poplar::engine::registerCrossInstance(gclTransport);
  EXPECT_NE(message.find("no transport between them is loaded: link the program with "
                         "Tessera::gcl"),
            std::string::npos)
      << message;
}

TEST(CollectivesErrors, AnExchangeBetweenInstancesOverTwoGiBIsNamed) {
  EXPECT_EQ(gcl::detail::mpiByteCount(std::size_t(INT_MAX)), INT_MAX);
  try {
    gcl::detail::mpiByteCount(std::size_t(INT_MAX) + 1);
    FAIL() << "no error for 2 GiB";
  } catch (const poplar::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("2147483648 bytes in one exchange between instances; "
                                         "at most 2 GiB"),
              std::string::npos)
        << e.what();
  }
}
