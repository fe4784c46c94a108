// poplin::distributedNormStatistics / distributedNormStatisticsGradients on a replicated graph:
// a batch split over replicas, with a gcl all-reduce as the callback, gives every replica the
// statistics (and its slice of the gradient) of the whole batch as reference/Norms.hpp computes
// them. Also when the callback is not called, thread-count independence and the error paths.
#include <gtest/gtest.h>

#include <poplin/Norms.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Norms.hpp>

#include "ReplicatedHarness.hpp"

using namespace tessera_testing;

namespace {

constexpr std::size_t B = 4, C = 3, H = 3, W = 2, F = H * W;
constexpr float eps = 1e-3f;

struct DistributedRun {
  unsigned replicas = 2;
  std::vector<double> x, gamma, grads; // the whole batch
  std::map<std::string, std::vector<std::vector<double>>> out;
};

/// Each of `replicas` replicas holds B / replicas samples; statistics over `normSize` samples.
DistributedRun runDistributed(poplar::Type type, bool unbiased, bool stable, unsigned replicas = 2,
                              unsigned normSize = B,
                              ReplicaMapping mapping = ReplicaMapping::Linear,
                              unsigned hostThreads = 0, unsigned *calls = nullptr) {
  ReplicatedHarness h(replicas);
  DistributedRun r;
  r.replicas = replicas;
  r.x = reference::roundTo(type, reference::randomValues(B * C * F, 41, -2.0, 3.0));
  r.gamma = reference::roundTo(type, reference::randomValues(C, 42, 0.5, 1.5));
  r.grads = reference::roundTo(type, reference::randomValues(B * C * F, 43));
  std::vector<std::vector<double>> xs, gs, gammas;
  for (unsigned i = 0; i < replicas; ++i) {
    xs.push_back(replicaSlice(r.x, i, replicas));
    gs.push_back(replicaSlice(r.grads, i, replicas));
    gammas.push_back(r.gamma);
  }
  const std::size_t b = B / replicas;
  auto acts = h.input("x", type, {b, C, H, W}, xs, mapping);
  auto grads = h.input("g", type, {b, C, H, W}, gs, mapping);
  auto gamma = h.input("gamma", type, {C}, gammas, mapping);
  auto &g = h.graph();
  auto &prog = h.prog();
  auto callback = allReduceCallback(calls);
  auto [mean, iStdDev] =
      poplin::distributedNormStatistics(g, acts, eps, prog, unbiased, callback, normSize, stable);
  auto whitened = poplin::normWhiten(g, acts, mean, iStdDev, prog);
  auto dx = poplin::distributedNormStatisticsGradients(
      g, whitened, poplin::normGradients(g, grads, gamma, prog), iStdDev, prog, callback, normSize);
  h.output("mean", mean);
  h.output("iStdDev", iStdDev);
  h.output("dx", dx);
  r.out = h.run(hostThreads);
  return r;
}

/// Every replica has the whole batch's statistics and its own slice of the whole batch's
/// input gradient.
void expectWholeBatch(const DistributedRun &r, bool unbiased, double tol) {
  const auto shape = reference::NormShape::batchNorm(B, C, F);
  const auto st = reference::normStatistics(shape, r.x, eps, unbiased);
  const auto [y, w] = reference::normalise(shape, r.x, st, r.gamma, r.gamma);
  const auto dx = reference::normGradients(shape, w, r.grads, st.invStdDev, r.gamma);
  for (unsigned i = 0; i < r.replicas; ++i) {
    SCOPED_TRACE("replica " + std::to_string(i));
    EXPECT_LT(reference::relativeError(r.out.at("mean")[i], st.mean), tol);
    EXPECT_LT(reference::relativeError(r.out.at("iStdDev")[i], st.invStdDev), tol);
    EXPECT_LT(reference::relativeError(r.out.at("dx")[i], replicaSlice(dx, i, r.replicas)), tol);
  }
}

} // namespace

TEST(DistributedNorms, SplitBatchStatisticsAndGradientsEqualTheWholeBatch) {
  for (bool unbiased : {false, true})
    for (bool stable : {false, true}) {
      SCOPED_TRACE("unbiased " + std::to_string(unbiased) + " stable " + std::to_string(stable));
      expectWholeBatch(runDistributed(poplar::FLOAT, unbiased, stable), unbiased, 1e-5);
    }
}

TEST(DistributedNorms, FourReplicasOfOneSampleEqualTheWholeBatch) {
  expectWholeBatch(runDistributed(poplar::FLOAT, true, false, 4), true, 1e-5);
}

TEST(DistributedNorms, HalfActivationsAreCloseToTheWholeBatch) {
  for (bool stable : {false, true}) {
    SCOPED_TRACE("stable " + std::to_string(stable));
    expectWholeBatch(runDistributed(poplar::HALF, false, stable), false, 1e-2);
  }
}

TEST(DistributedNorms, GroupsOfTwoReplicasNormaliseTheirOwnHalfOfTheRun) {
  // 4 replicas of one sample, norms over 2 samples: replicas {0,1} and {2,3} are two batches.
  const auto r = runDistributed(poplar::FLOAT, false, false, 4, 2);
  const auto shape = reference::NormShape::batchNorm(2, C, F);
  for (unsigned group = 0; group < 2; ++group) {
    const auto x = replicaSlice(r.x, group, 2);
    const auto st = reference::normStatistics(shape, x, eps, false);
    for (unsigned i = 2 * group; i < 2 * group + 2; ++i) {
      SCOPED_TRACE("replica " + std::to_string(i));
      EXPECT_LT(reference::relativeError(r.out.at("mean")[i], st.mean), 1e-5);
      EXPECT_LT(reference::relativeError(r.out.at("iStdDev")[i], st.invStdDev), 1e-5);
    }
  }
}

TEST(DistributedNorms, NormSizeOfOneReplicaBatchNeverCallsTheCallback) {
  unsigned calls = 0;
  const auto r =
      runDistributed(poplar::FLOAT, false, true, 2, B / 2, ReplicaMapping::Linear, 0, &calls);
  EXPECT_EQ(calls, 0u);
  const auto shape = reference::NormShape::batchNorm(B / 2, C, F);
  for (unsigned i = 0; i < 2; ++i) {
    const auto st = reference::normStatistics(shape, replicaSlice(r.x, i, 2), eps, false);
    EXPECT_LT(reference::relativeError(r.out.at("mean")[i], st.mean), 1e-5);
    EXPECT_LT(reference::relativeError(r.out.at("iStdDev")[i], st.invStdDev), 1e-5);
  }
}

TEST(DistributedNorms, StatisticsAndGradientsEachCallTheCallbackOnce) {
  unsigned calls = 0;
  runDistributed(poplar::FLOAT, false, false, 2, B, ReplicaMapping::Linear, 0, &calls);
  EXPECT_EQ(calls, 2u);
  calls = 0;
  runDistributed(poplar::FLOAT, false, true, 2, B, ReplicaMapping::Linear, 0, &calls);
  EXPECT_EQ(calls, 3u); // stable: the mean, then the centred power
}

TEST(DistributedNorms, OneTileAndSpreadGiveTheSameResults) {
  for (auto type : {poplar::FLOAT, poplar::HALF}) {
    const auto one = runDistributed(type, false, false, 2, B, ReplicaMapping::OneTile);
    const auto spread = runDistributed(type, false, false, 2, B, ReplicaMapping::Linear);
    expectWholeBatch(one, false, type == poplar::FLOAT ? 1e-5 : 1e-2);
    expectWholeBatch(spread, false, type == poplar::FLOAT ? 1e-5 : 1e-2);
  }
}

TEST(DistributedNorms, OneAndTwoHostThreadsGiveIdenticalBits) {
  for (auto type : {poplar::FLOAT, poplar::HALF}) {
    const auto one = runDistributed(type, true, true, 2, B, ReplicaMapping::Linear, 1);
    const auto two = runDistributed(type, true, true, 2, B, ReplicaMapping::Linear, 2);
    EXPECT_EQ(one.out, two.out);
  }
}

namespace {

template <class F> std::string poplibsErrorOf(F &&f) {
  try {
    f();
  } catch (const poputil::poplibs_error &e) {
    return e.what();
  }
  return "(no poplibs_error)";
}

} // namespace

TEST(DistributedNorms, BadArgumentsThrowNamingTheCulprit) {
  ReplicatedHarness h(2);
  auto &g = h.graph();
  auto &prog = h.prog();
  auto acts = g.addVariable(poplar::FLOAT, {2, C, F}, "acts");
  poputil::mapTensorLinearly(g, acts);
  auto iStdDev = g.addVariable(poplar::FLOAT, {C}, "iStdDev");
  g.setTileMapping(iStdDev, 0);
  auto cb = allReduceCallback();
  EXPECT_NE(poplibsErrorOf([&] {
              poplin::distributedNormStatistics(g, acts, eps, prog, false, cb, 5);
            }).find("normSize 5"),
            std::string::npos);
  EXPECT_NE(poplibsErrorOf([&] {
              poplin::distributedNormStatisticsGradients(g, acts, acts, iStdDev, prog, cb, 3);
            }).find("normSize 3"),
            std::string::npos);
  auto ints = g.addVariable(poplar::INT, {2, C}, "ints");
  g.setTileMapping(ints, 0);
  EXPECT_NE(poplibsErrorOf([&] {
              poplin::distributedNormStatistics(g, ints, eps, prog, false, cb, 4);
            }).find("actsUngrouped"),
            std::string::npos);
  auto wrongStat = g.addVariable(poplar::FLOAT, {C + 1}, "wrong");
  g.setTileMapping(wrongStat, 0);
  EXPECT_NE(poplibsErrorOf([&] {
              poplin::distributedNormStatisticsGradients(g, acts, acts, wrongStat, prog, cb, 4);
            }).find("invStdDev"),
            std::string::npos);
  poplin::DistributedNormReduceCallback dropsOne =
      [](poplar::Graph &, const std::vector<poplar::Tensor> &in, poplar::program::Sequence &,
         unsigned, const poplar::DebugContext &, const poplar::OptionFlags &) {
        return std::vector<poplar::Tensor>(in.begin(), in.end() - 1);
      };
  EXPECT_NE(poplibsErrorOf([&] {
              poplin::distributedNormStatistics(g, acts, eps, prog, false, dropsOne, 4);
            }).find("reduce callback returned 1 tensors for 2 inputs"),
            std::string::npos);
}
