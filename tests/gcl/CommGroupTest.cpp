// gcl::CommGroup sub-groups and gcl::allToAllCrossReplica in one process: every replica's result
// is checked against a naive host reference that lists each group's members from GCL's
// definitions (CONSECUTIVE k: {0…k-1}, {k…2k-1}, …; ORTHOGONAL k: {i, i+R/k, i+2R/k, …}) and
// combines them in ascending replica order. Also the operators' names, serialized executables,
// host-thread independence and every error path of a bad group.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
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

using namespace poplar;
using namespace poplar::program;
using gcl::CollectiveOperator;
using gcl::CommGroup;
using gcl::CommGroupType;

namespace {

Device device(unsigned tiles = 8) {
  IPUModel model;
  model.tilesPerIPU = tiles;
  return model.createDevice();
}

/// Replica r's data: fractional values, so the order of a sum shows in its bits.
std::vector<float> replicaData(unsigned r, std::size_t n) {
  std::mt19937 gen(77 + r);
  std::uniform_int_distribution<int> dist(-9, 9);
  std::vector<float> v(n);
  for (auto &x : v)
    x = float(dist(gen)) + 0.1f * float(r + 1);
  return v;
}

/// The members of replica r's group, ascending, written out from GCL's definitions.
std::vector<unsigned> membersOf(unsigned r, unsigned R, CommGroupType type, unsigned size,
                                unsigned stride = 1) {
  std::vector<unsigned> m;
  if (type == CommGroupType::ALL || size == 0) {
    for (unsigned i = 0; i < R; ++i)
      m.push_back(i);
  } else if (type == CommGroupType::CONSECUTIVE) {
    // Blocks of size·stride replicas; inside a block, the replicas with r's offset mod stride.
    const unsigned block = r / (size * stride) * (size * stride);
    for (unsigned i = block; i < block + size * stride; ++i)
      if (i % stride == r % stride)
        m.push_back(i);
  } else {
    const unsigned apart = R / size;
    for (unsigned i = r % apart; i < R; i += apart)
      m.push_back(i);
  }
  return m;
}

/// The reduction over `in` of the listed replicas, in the listed order, in float.
std::vector<float> reduce(CollectiveOperator op, const std::vector<std::vector<float>> &in,
                          const std::vector<unsigned> &members) {
  std::vector<float> acc = in[members[0]];
  if (op == CollectiveOperator::SQUARE_ADD)
    for (auto &x : acc)
      x *= x;
  for (std::size_t j = 1; j < members.size(); ++j)
    for (std::size_t i = 0; i < acc.size(); ++i) {
      const float v = in[members[j]][i];
      switch (op) {
      case CollectiveOperator::ADD:
      case CollectiveOperator::MEAN:
        acc[i] += v;
        break;
      case CollectiveOperator::SQUARE_ADD:
        acc[i] += v * v;
        break;
      case CollectiveOperator::MUL:
        acc[i] *= v;
        break;
      case CollectiveOperator::MIN:
        acc[i] = std::min(acc[i], v);
        break;
      case CollectiveOperator::MAX:
        acc[i] = std::max(acc[i], v);
        break;
      default:
        break;
      }
    }
  if (op == CollectiveOperator::MEAN)
    for (auto &x : acc)
      x /= float(members.size());
  return acc;
}

/// Builds a replicated graph with float[shape] `data` per replica, appends `collective`, runs it
/// with `in` and returns each replica's result (resultElements floats).
using Build = std::function<Tensor(Graph &, const Tensor &, Sequence &)>;
std::vector<std::vector<float>> run(unsigned R, const std::vector<std::size_t> &shape,
                                    const std::vector<std::vector<float>> &in,
                                    const Build &collective, unsigned hostThreads = 0,
                                    bool serialize = false) {
  Device d = device();
  Graph graph(d.getTarget(), replication_factor(R));
  Tensor data = graph.addVariable(FLOAT, shape, "data");
  poputil::mapTensorLinearly(graph, data);
  graph.createHostWrite("data", data);
  Sequence prog;
  Tensor result = collective(graph, data, prog);
  graph.createHostRead("result", result);
  OptionFlags options;
  if (hostThreads)
    options.set("target.hostThreads", std::to_string(hostThreads));
  std::optional<Engine> engine;
  if (serialize) {
    std::stringstream bytes;
    compileGraph(graph, {prog}).serialize(bytes);
    engine.emplace(Executable::deserialize(bytes), options);
  } else {
    engine.emplace(graph, prog, options);
  }
  engine->load(d);
  for (unsigned r = 0; r < R; ++r)
    engine->writeTensor("data", r, in[r].data(), in[r].data() + in[r].size());
  engine->run();
  std::vector<std::vector<float>> out(R, std::vector<float>(result.numElements()));
  for (unsigned r = 0; r < R; ++r)
    engine->readTensor("result", r, out[r].data(), out[r].data() + out[r].size());
  return out;
}

std::vector<std::vector<float>> inputs(unsigned R, std::size_t n) {
  std::vector<std::vector<float>> in;
  for (unsigned r = 0; r < R; ++r)
    in.push_back(replicaData(r, n));
  return in;
}

std::string name(CommGroupType t) {
  return t == CommGroupType::ALL           ? "All"
         : t == CommGroupType::CONSECUTIVE ? "Consecutive"
                                           : "Orthogonal";
}

struct GroupCase {
  unsigned replicas;
  CommGroupType type;
  unsigned size;
  CollectiveOperator op;
};

std::string caseName(const ::testing::TestParamInfo<GroupCase> &info) {
  std::ostringstream os;
  os << "R" << info.param.replicas << name(info.param.type) << info.param.size << info.param.op;
  return os.str();
}

} // namespace

// ---- all-reduce within groups ---------------------------------------------------------------

class GroupedAllReduce : public ::testing::TestWithParam<GroupCase> {};

TEST_P(GroupedAllReduce, EachReplicaGetsItsGroupsReductionInAscendingOrder) {
  const auto [R, type, size, op] = GetParam();
  const std::size_t n = 29;
  const auto in = inputs(R, n);
  const auto out = run(R, {n}, in, [&](Graph &g, const Tensor &data, Sequence &prog) {
    return gcl::allReduceCrossReplica(g, data, op, prog, CommGroup(type, size), "grouped");
  });
  for (unsigned r = 0; r < R; ++r)
    EXPECT_EQ(out[r], reduce(op, in, membersOf(r, R, type, size))) << "replica " << r;
}

INSTANTIATE_TEST_SUITE_P(
    Groups, GroupedAllReduce,
    ::testing::Values(GroupCase{4, CommGroupType::CONSECUTIVE, 2, CollectiveOperator::ADD},
                      GroupCase{4, CommGroupType::ORTHOGONAL, 2, CollectiveOperator::ADD},
                      GroupCase{4, CommGroupType::CONSECUTIVE, 2, CollectiveOperator::MEAN},
                      GroupCase{4, CommGroupType::ORTHOGONAL, 2, CollectiveOperator::MEAN},
                      GroupCase{8, CommGroupType::CONSECUTIVE, 2, CollectiveOperator::MAX},
                      GroupCase{8, CommGroupType::ORTHOGONAL, 2, CollectiveOperator::MIN},
                      GroupCase{8, CommGroupType::CONSECUTIVE, 4, CollectiveOperator::MEAN},
                      GroupCase{8, CommGroupType::ORTHOGONAL, 4, CollectiveOperator::MEAN},
                      GroupCase{8, CommGroupType::CONSECUTIVE, 4, CollectiveOperator::ADD},
                      GroupCase{8, CommGroupType::ORTHOGONAL, 4, CollectiveOperator::SQUARE_ADD},
                      GroupCase{8, CommGroupType::ORTHOGONAL, 2, CollectiveOperator::MUL},
                      GroupCase{4, CommGroupType::CONSECUTIVE, 4, CollectiveOperator::MEAN},
                      GroupCase{4, CommGroupType::ORTHOGONAL, 0, CollectiveOperator::ADD},
                      GroupCase{4, CommGroupType::ALL, 2, CollectiveOperator::MEAN},
                      GroupCase{4, CommGroupType::CONSECUTIVE, 1, CollectiveOperator::ADD}),
    caseName);

TEST(CommGroups, GroupsMatchGclsDefinitionsSpelledOut) {
  // The reference's member lists themselves, for R = 8: what the tests above compare against.
  using V = std::vector<unsigned>;
  EXPECT_EQ(membersOf(5, 8, CommGroupType::CONSECUTIVE, 4), (V{4, 5, 6, 7}));
  EXPECT_EQ(membersOf(5, 8, CommGroupType::CONSECUTIVE, 2), (V{4, 5}));
  EXPECT_EQ(membersOf(5, 8, CommGroupType::ORTHOGONAL, 4), (V{1, 3, 5, 7}));
  EXPECT_EQ(membersOf(5, 8, CommGroupType::ORTHOGONAL, 2), (V{1, 5}));
  EXPECT_EQ(membersOf(5, 8, CommGroupType::CONSECUTIVE, 2, 2), (V{5, 7}));
}

TEST(CommGroups, ConsecutiveGroupsWithAReplicaStride) {
  // R = 8, groups of 2 replicas 2 apart: {0,2}, {1,3}, {4,6}, {5,7}.
  const std::size_t n = 11;
  const auto in = inputs(8, n);
  const auto out = run(8, {n}, in, [](Graph &g, const Tensor &data, Sequence &prog) {
    return gcl::allReduceCrossReplica(g, data, CollectiveOperator::ADD, prog,
                                      CommGroup(CommGroupType::CONSECUTIVE, 2, 2));
  });
  for (unsigned r = 0; r < 8; ++r)
    EXPECT_EQ(out[r], reduce(CollectiveOperator::ADD, in,
                             membersOf(r, 8, CommGroupType::CONSECUTIVE, 2, 2)))
        << "replica " << r;
}

TEST(CommGroups, InPlaceAndToDestinationTakeTheGroupToo) {
  const std::size_t n = 9;
  const auto in = inputs(4, n);
  const CommGroup group(CommGroupType::ORTHOGONAL, 2);
  const auto inPlace = run(4, {n}, in, [&](Graph &g, const Tensor &data, Sequence &prog) {
    Tensor t = data;
    gcl::allReduceInPlaceCrossReplica(g, t, CollectiveOperator::MAX, prog, group, "max");
    return t;
  });
  const auto toDestination = run(4, {n}, in, [&](Graph &g, const Tensor &data, Sequence &prog) {
    Tensor dst = g.clone(data, "dst");
    gcl::allReduceToDestinationCrossReplica(g, data, dst, CollectiveOperator::MAX, prog, group);
    return dst;
  });
  for (unsigned r = 0; r < 4; ++r) {
    const auto want =
        reduce(CollectiveOperator::MAX, in, membersOf(r, 4, CommGroupType::ORTHOGONAL, 2));
    EXPECT_EQ(inPlace[r], want) << "replica " << r;
    EXPECT_EQ(toDestination[r], want) << "replica " << r;
  }
}

TEST(CommGroups, SameBitsForOneAndTwoHostThreads) {
  const std::size_t n = 3001;
  const auto in = inputs(8, n);
  for (const CommGroup &group :
       {CommGroup(CommGroupType::ORTHOGONAL, 4), CommGroup(CommGroupType::CONSECUTIVE, 2)}) {
    const Build build = [&](Graph &g, const Tensor &data, Sequence &prog) {
      Tensor mean = gcl::allReduceCrossReplica(g, data, CollectiveOperator::MEAN, prog, group);
      Tensor slice = gcl::reduceScatterCrossReplica(g, data, CollectiveOperator::ADD, prog, group);
      return concat(mean, slice);
    };
    const auto one = run(8, {n}, in, build, 1), two = run(8, {n}, in, build, 2);
    for (unsigned r = 0; r < 8; ++r)
      ASSERT_EQ(0, std::memcmp(one[r].data(), two[r].data(), one[r].size() * sizeof(float)))
          << group << " replica " << r;
  }
}

TEST(CommGroups, SerializedExecutableKeepsTheGroups) {
  const std::size_t n = 6;
  const auto in = inputs(4, n);
  const auto out = run(
      4, {n}, in,
      [](Graph &g, const Tensor &data, Sequence &prog) {
        return gcl::allReduceCrossReplica(g, data, CollectiveOperator::ADD, prog,
                                          CommGroup(CommGroupType::CONSECUTIVE, 2));
      },
      0, /*serialize=*/true);
  for (unsigned r = 0; r < 4; ++r)
    EXPECT_EQ(out[r],
              reduce(CollectiveOperator::ADD, in, membersOf(r, 4, CommGroupType::CONSECUTIVE, 2)));
}

// ---- reduce-scatter and all-gather within groups --------------------------------------------

TEST(CommGroups, ReduceScatterGivesEachGroupMemberItsSliceOfTheGroupsReduction) {
  const std::size_t n = 7; // slices of ceil(7 / G), zero padded
  for (const auto &[R, type, size] : {std::tuple{4u, CommGroupType::CONSECUTIVE, 2u},
                                      std::tuple{4u, CommGroupType::ORTHOGONAL, 2u},
                                      std::tuple{8u, CommGroupType::ORTHOGONAL, 4u},
                                      std::tuple{8u, CommGroupType::CONSECUTIVE, 4u}}) {
    const auto in = inputs(R, n);
    const std::size_t slice = (n + size - 1) / size;
    const auto out = run(R, {n}, in, [&](Graph &g, const Tensor &data, Sequence &prog) {
      Tensor t = gcl::reduceScatterCrossReplica(g, data, CollectiveOperator::MEAN, prog,
                                                CommGroup(type, size));
      EXPECT_EQ(t.numElements(), slice);
      return t;
    });
    for (unsigned r = 0; r < R; ++r) {
      const auto members = membersOf(r, R, type, size);
      const auto full = reduce(CollectiveOperator::MEAN, in, members);
      const std::size_t rank = std::find(members.begin(), members.end(), r) - members.begin();
      std::vector<float> want(slice, 0.0f);
      for (std::size_t k = 0; k < slice && rank * slice + k < n; ++k)
        want[k] = full[rank * slice + k];
      EXPECT_EQ(out[r], want) << name(type) << size << " R" << R << " replica " << r;
    }
  }
}

TEST(CommGroups, AllGatherStacksTheGroupsMembersInOrder) {
  const std::size_t n = 5;
  for (const auto &[R, type, size] : {std::tuple{4u, CommGroupType::CONSECUTIVE, 2u},
                                      std::tuple{8u, CommGroupType::ORTHOGONAL, 4u},
                                      std::tuple{8u, CommGroupType::ORTHOGONAL, 2u}}) {
    const auto in = inputs(R, n);
    const auto out = run(R, {n}, in, [&](Graph &g, const Tensor &data, Sequence &prog) {
      Tensor t = gcl::allGatherCrossReplica(g, data, prog, CommGroup(type, size), "gather");
      EXPECT_EQ(t.shape(), (std::vector<std::size_t>{size, n}));
      return t;
    });
    for (unsigned r = 0; r < R; ++r) {
      std::vector<float> want;
      for (unsigned m : membersOf(r, R, type, size))
        want.insert(want.end(), in[m].begin(), in[m].end());
      EXPECT_EQ(out[r], want) << name(type) << size << " R" << R << " replica " << r;
    }
  }
}

// ---- all-to-all -----------------------------------------------------------------------------

TEST(AllToAll, EveryReplicaSendsSliceJToTheJthAndStoresWhatItGetsAtTheSendersIndex) {
  // R = 3 replicas of [3][2]: replica i's result[j] = replica j's data[i].
  const std::size_t block = 2;
  for (unsigned R : {2u, 4u}) {
    const auto in = inputs(R, R * block);
    const auto out = run(R, {R, block}, in, [](Graph &g, const Tensor &data, Sequence &prog) {
      return gcl::allToAllCrossReplica(g, data, prog, "a2a");
    });
    for (unsigned i = 0; i < R; ++i)
      for (unsigned j = 0; j < R; ++j)
        for (std::size_t k = 0; k < block; ++k)
          EXPECT_EQ(out[i][j * block + k], in[j][i * block + k])
              << "R" << R << " replica " << i << " block " << j;
  }
}

TEST(AllToAll, WithinGroupsBlocksGoToTheGroupsMembers) {
  const std::size_t block = 3;
  for (const auto &[R, type, size] : {std::tuple{4u, CommGroupType::ORTHOGONAL, 2u},
                                      std::tuple{8u, CommGroupType::CONSECUTIVE, 4u},
                                      std::tuple{8u, CommGroupType::ORTHOGONAL, 4u}}) {
    const auto in = inputs(R, size * block);
    const auto out = run(R, {size, block}, in, [&](Graph &g, const Tensor &data, Sequence &prog) {
      return gcl::allToAllCrossReplica(g, data, prog, CommGroup(type, size));
    });
    for (unsigned r = 0; r < R; ++r) {
      const auto members = membersOf(r, R, type, size);
      const std::size_t rank = std::find(members.begin(), members.end(), r) - members.begin();
      std::vector<float> want;
      for (unsigned m : members)
        want.insert(want.end(), in[m].begin() + rank * block, in[m].begin() + (rank + 1) * block);
      EXPECT_EQ(out[r], want) << name(type) << size << " R" << R << " replica " << r;
    }
  }
}

// ---- names ----------------------------------------------------------------------------------

TEST(CollectiveOperatorNames, PrintAndParseEveryOperator) {
  const std::vector<std::pair<CollectiveOperator, std::string>> all = {
      {CollectiveOperator::ADD, "ADD"},
      {CollectiveOperator::MEAN, "MEAN"},
      {CollectiveOperator::MUL, "MUL"},
      {CollectiveOperator::MIN, "MIN"},
      {CollectiveOperator::MAX, "MAX"},
      {CollectiveOperator::LOGICAL_AND, "LOGICAL_AND"},
      {CollectiveOperator::LOGICAL_OR, "LOGICAL_OR"},
      {CollectiveOperator::SQUARE_ADD, "SQUARE_ADD"},
      {CollectiveOperator::LOCAL, "LOCAL"}};
  for (const auto &[op, text] : all) {
    std::ostringstream os;
    os << op;
    EXPECT_EQ(os.str(), text);
    std::istringstream is(text);
    CollectiveOperator back = CollectiveOperator::LOCAL;
    is >> back;
    EXPECT_EQ(back, op) << text;
  }
}

TEST(CollectiveOperatorNames, AnUnknownNameIsNamedWithTheValidOnes) {
  std::istringstream is("SUM");
  CollectiveOperator op;
  try {
    is >> op;
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'SUM' is not a collective operator"), std::string::npos) << what;
    EXPECT_NE(what.find("ADD, MEAN, MUL"), std::string::npos) << what;
  }
}

TEST(CommGroups, PrintsTypeSizeAndStride) {
  std::ostringstream os;
  os << CommGroup(CommGroupType::ORTHOGONAL, 4) << " " << CommGroup() << " "
     << CommGroup(CommGroupType::CONSECUTIVE, 2, 2);
  EXPECT_EQ(os.str(), "CommGroup(type=ORTHOGONAL, size=4, stride=1) "
                      "CommGroup(type=ALL, size=0, stride=1) "
                      "CommGroup(type=CONSECUTIVE, size=2, stride=2)");
}

// ---- errors ---------------------------------------------------------------------------------

namespace {

/// Runs `f` on a fresh 4-replica graph with float[4] data and returns the poplibs_error's text.
std::string errorOf(const std::function<void(Graph &, Tensor &, Sequence &)> &f, unsigned R = 4) {
  Device d = device();
  Graph graph(d.getTarget(), replication_factor(R));
  Tensor data = graph.addVariable(FLOAT, {4}, "data");
  poputil::mapTensorLinearly(graph, data);
  Sequence prog;
  try {
    f(graph, data, prog);
  } catch (const poputil::poplibs_error &e) {
    return e.what();
  }
  ADD_FAILURE() << "expected poputil::poplibs_error";
  return {};
}

void expectMentions(const std::string &what, std::initializer_list<const char *> parts) {
  for (const char *p : parts)
    EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' not in: " << what;
}

} // namespace

TEST(CommGroupErrors, AGroupSizeThatDoesNotDivideTheReplicasIsNamedByEveryCollective) {
  const CommGroup three(CommGroupType::CONSECUTIVE, 3);
  const auto op = CollectiveOperator::ADD;
  expectMentions(errorOf([&](Graph &g, Tensor &t, Sequence &p) {
                   gcl::allReduceCrossReplica(g, t, op, p, three);
                 }),
                 {"gcl::allReduceCrossReplica", "CommGroup(type=CONSECUTIVE, size=3",
                  "does not divide the 4 replicas", "group size 3"});
  expectMentions(errorOf([&](Graph &g, Tensor &t, Sequence &p) {
                   gcl::allReduceInPlaceCrossReplica(g, t, op, p, three);
                 }),
                 {"gcl::allReduceCrossReplica", "size=3"});
  expectMentions(errorOf([&](Graph &g, Tensor &t, Sequence &p) {
                   gcl::reduceScatterCrossReplica(g, t, op, p, three);
                 }),
                 {"gcl::reduceScatterCrossReplica", "size=3", "does not divide"});
  expectMentions(errorOf([&](Graph &g, Tensor &t, Sequence &p) {
                   gcl::allGatherCrossReplica(g, t, p, three);
                 }),
                 {"gcl::allGatherCrossReplica", "size=3", "does not divide"});
  expectMentions(
      errorOf([&](Graph &g, Tensor &t, Sequence &p) {
        gcl::allToAllCrossReplica(g, t.reshape({4, 1}), p, CommGroup(CommGroupType::ORTHOGONAL, 3));
      }),
      {"gcl::allToAllCrossReplica", "type=ORTHOGONAL, size=3", "does not divide"});
}

TEST(CommGroupErrors, AGroupLargerThanTheRunIsNamed) {
  expectMentions(errorOf([](Graph &g, Tensor &t, Sequence &p) {
                   gcl::allReduceCrossReplica(g, t, CollectiveOperator::ADD, p,
                                              CommGroup(CommGroupType::ORTHOGONAL, 8));
                 }),
                 {"gcl::allReduceCrossReplica", "size=8", "does not divide the 4 replicas"});
}

TEST(CommGroupErrors, AStrideThatDoesNotTileOrDoesNotApplyIsNamed) {
  expectMentions(errorOf(
                     [](Graph &g, Tensor &t, Sequence &p) {
                       gcl::allReduceCrossReplica(g, t, CollectiveOperator::ADD, p,
                                                  CommGroup(CommGroupType::CONSECUTIVE, 2, 3));
                     },
                     8),
                 {"gcl::allReduceCrossReplica", "stride=3", "does not tile the 8 replicas",
                  "times replica stride 3"});
  expectMentions(errorOf([](Graph &g, Tensor &t, Sequence &p) {
                   gcl::allGatherCrossReplica(g, t, p, CommGroup(CommGroupType::ORTHOGONAL, 2, 2));
                 }),
                 {"gcl::allGatherCrossReplica", "replica stride of 2",
                  "only CONSECUTIVE groups take a stride"});
  expectMentions(
      errorOf([](Graph &g, Tensor &t, Sequence &p) {
        gcl::allReduceCrossReplica(g, t, CollectiveOperator::ADD, p,
                                   CommGroup(CommGroupType::CONSECUTIVE, 4, 2));
      }),
      {"gcl::allReduceCrossReplica", "replica stride of 2", "group of every replica (4)"});
}

TEST(CommGroupErrors, AnUnknownGroupTypeIsNamed) {
  expectMentions(errorOf([](Graph &g, Tensor &t, Sequence &p) {
                   gcl::reduceScatterCrossReplica(g, t, CollectiveOperator::ADD, p,
                                                  CommGroup(static_cast<CommGroupType>(7), 2));
                 }),
                 {"gcl::reduceScatterCrossReplica", "unknown CommGroupType (7)",
                  "ALL, CONSECUTIVE or ORTHOGONAL"});
}

TEST(CommGroupErrors, DestinationsSizedForAnotherGroupAreNamed) {
  const CommGroup two(CommGroupType::CONSECUTIVE, 2);
  expectMentions(errorOf([&](Graph &g, Tensor &t, Sequence &p) {
                   Tensor all = g.addVariable(FLOAT, {4, 4}, "gatheredForAll");
                   gcl::allGatherToDestinationCrossReplica(g, t, all, p, two);
                 }),
                 {"gcl::allGatherCrossReplica", "gatheredForAll", "must hold 8 float"});
  expectMentions(errorOf([&](Graph &g, Tensor &t, Sequence &p) {
                   Tensor slice = g.addVariable(FLOAT, {1}, "sliceForAll");
                   gcl::reduceScatterToDestinationCrossReplica(g, t, slice, CollectiveOperator::ADD,
                                                               p, two);
                 }),
                 {"gcl::reduceScatterCrossReplica", "sliceForAll", "must hold 2 float"});
}

TEST(CommGroupErrors, AllToAllDataWhoseFirstDimensionIsNotTheGroupSizeIsNamed) {
  expectMentions(errorOf([](Graph &g, Tensor &t, Sequence &p) {
                   gcl::allToAllCrossReplica(g, t.reshape({2, 2}), p);
                 }),
                 {"gcl::allToAllCrossReplica", "first dimension", "(4)"});
  expectMentions(errorOf([](Graph &g, Tensor &t, Sequence &p) {
                   gcl::allToAllCrossReplica(g, t, p, CommGroup(CommGroupType::CONSECUTIVE, 2));
                 }),
                 {"gcl::allToAllCrossReplica", "(2) as its first dimension"});
  expectMentions(
      errorOf([](Graph &g, Tensor &t, Sequence &p) { gcl::allToAllCrossReplica(g, t[0], p); }),
      {"gcl::allToAllCrossReplica", "first dimension"});
}

TEST(CommGroupErrors, AllToAllOnAnUnreplicatedGraphIsNamed) {
  Device d = device();
  Graph graph(d.getTarget());
  Tensor data = graph.addVariable(FLOAT, {1, 4}, "data");
  poputil::mapTensorLinearly(graph, data);
  Sequence prog;
  try {
    gcl::allToAllCrossReplica(graph, data, prog);
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    expectMentions(e.what(), {"gcl::allToAllCrossReplica", "not replicated"});
  }
}
