// popnn::bn::distributedBatchNormStatistics / distributedBatchNormGradients on a replicated
// graph with a gcl all-reduce as the callback: each replica holds part of the batch and gets the
// whole batch's statistics and its slice of the whole batch's input gradient (reference/Norms.hpp),
// which also matches central finite differences of the whole batch's forward pass. FLOAT and
// HALF, one tile and spread, 1 and 2 host threads, and the error paths.
#include <gtest/gtest.h>

#include <popnn/BatchNorm.hpp>
#include <popnn/codelets.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Norms.hpp>

#include "../poplin/ReplicatedHarness.hpp"

using namespace tessera_testing;

namespace {

constexpr std::size_t B = 4, C = 3, F = 5;
constexpr float eps = 1e-3f;

struct BnRun {
  unsigned replicas = 2;
  std::vector<double> x, gamma, grads;
  std::map<std::string, std::vector<std::vector<double>>> out;
};

BnRun runBn(poplar::Type type, bool unbiased, bool stable, unsigned replicas = 2,
            ReplicaMapping mapping = ReplicaMapping::Linear, unsigned hostThreads = 0) {
  ReplicatedHarness h(replicas);
  popnn::addCodelets(h.graph());
  BnRun r;
  r.replicas = replicas;
  r.x = reference::roundTo(type, reference::randomValues(B * C * F, 51, -2.0, 3.0));
  r.gamma = reference::roundTo(type, reference::randomValues(C, 52, 0.5, 1.5));
  r.grads = reference::roundTo(type, reference::randomValues(B * C * F, 53));
  std::vector<std::vector<double>> xs, gs, gammas;
  for (unsigned i = 0; i < replicas; ++i) {
    xs.push_back(replicaSlice(r.x, i, replicas));
    gs.push_back(replicaSlice(r.grads, i, replicas));
    gammas.push_back(r.gamma);
  }
  const std::size_t b = B / replicas;
  auto acts = h.input("x", type, {b, C, F}, xs, mapping);
  auto grads = h.input("g", type, {b, C, F}, gs, mapping);
  auto gamma = h.input("gamma", type, {C}, gammas, mapping);
  auto &g = h.graph();
  auto &prog = h.prog();
  const auto cb = allReduceCallback();
  auto [mean, iStdDev] =
      popnn::bn::distributedBatchNormStatistics(g, acts, eps, prog, unbiased, cb, B, stable);
  auto dxFromActs =
      popnn::bn::distributedBatchNormGradients(g, acts, grads, mean, iStdDev, gamma, prog, cb, B);
  auto whitened = popnn::bn::batchNormWhiten(g, acts, mean, iStdDev, prog);
  auto dxFromWhitened =
      popnn::bn::distributedBatchNormGradients(g, whitened, grads, iStdDev, gamma, prog, cb, B);
  h.output("mean", mean);
  h.output("iStdDev", iStdDev);
  h.output("dxFromActs", dxFromActs);
  h.output("dxFromWhitened", dxFromWhitened);
  r.out = h.run(hostThreads);
  return r;
}

void expectWholeBatch(const BnRun &r, bool unbiased, double tol) {
  const auto shape = reference::NormShape::batchNorm(B, C, F);
  const auto st = reference::normStatistics(shape, r.x, eps, unbiased);
  const auto [y, w] = reference::normalise(shape, r.x, st, r.gamma, r.gamma);
  const auto dx = reference::normGradients(shape, w, r.grads, st.invStdDev, r.gamma);
  for (unsigned i = 0; i < r.replicas; ++i) {
    SCOPED_TRACE("replica " + std::to_string(i));
    EXPECT_LT(reference::relativeError(r.out.at("mean")[i], st.mean), tol);
    EXPECT_LT(reference::relativeError(r.out.at("iStdDev")[i], st.invStdDev), tol);
    if (!unbiased) { // the gradients are those of the biased (training) statistics
      const auto slice = replicaSlice(dx, i, r.replicas);
      EXPECT_LT(reference::relativeError(r.out.at("dxFromActs")[i], slice), tol);
      EXPECT_LT(reference::relativeError(r.out.at("dxFromWhitened")[i], slice), tol);
    }
  }
}

template <class Fn> std::string poplibsErrorOf(Fn &&f) {
  try {
    f();
  } catch (const poputil::poplibs_error &e) {
    return e.what();
  }
  return "(no poplibs_error)";
}

} // namespace

TEST(DistributedBatchNorm, SplitBatchStatisticsAndGradientsEqualTheWholeBatch) {
  for (bool unbiased : {false, true})
    for (bool stable : {false, true}) {
      SCOPED_TRACE("unbiased " + std::to_string(unbiased) + " stable " + std::to_string(stable));
      expectWholeBatch(runBn(poplar::FLOAT, unbiased, stable), unbiased, 1e-5);
    }
  expectWholeBatch(runBn(poplar::FLOAT, false, false, 4), false, 1e-5);
}

TEST(DistributedBatchNorm, HalfActivationsAreCloseToTheWholeBatch) {
  for (bool stable : {false, true}) {
    SCOPED_TRACE("stable " + std::to_string(stable));
    expectWholeBatch(runBn(poplar::HALF, false, stable), false, 1e-2);
  }
}

TEST(DistributedBatchNorm, GradientsMatchFiniteDifferencesOfTheWholeBatch) {
  // L(x) = Σ gradsIn · batchNorm(x) over the whole batch; each replica's dx is its slice of dL/dx.
  const auto r = runBn(poplar::FLOAT, false, false);
  const auto shape = reference::NormShape::batchNorm(B, C, F);
  const std::vector<double> beta(C, 0.25);
  const auto loss = [&](const std::vector<double> &x) {
    const auto st = reference::normStatistics(shape, x, eps, false);
    return reference::dot(reference::normalise(shape, x, st, r.gamma, beta).first, r.grads);
  };
  const auto fd = reference::finiteDifference(loss, r.x);
  for (unsigned i = 0; i < r.replicas; ++i) {
    SCOPED_TRACE("replica " + std::to_string(i));
    EXPECT_LT(reference::relativeError(r.out.at("dxFromActs")[i], replicaSlice(fd, i, 2)), 1e-4);
    EXPECT_LT(reference::relativeError(r.out.at("dxFromWhitened")[i], replicaSlice(fd, i, 2)),
              1e-4);
  }
}

TEST(DistributedBatchNorm, OneTileAndSpreadBothGiveTheWholeBatch) {
  for (auto type : {poplar::FLOAT, poplar::HALF})
    for (auto mapping : {ReplicaMapping::OneTile, ReplicaMapping::Linear})
      expectWholeBatch(runBn(type, false, true, 2, mapping), false,
                       type == poplar::FLOAT ? 1e-5 : 1e-2);
}

TEST(DistributedBatchNorm, OneAndTwoHostThreadsGiveIdenticalBits) {
  for (auto type : {poplar::FLOAT, poplar::HALF})
    EXPECT_EQ(runBn(type, false, false, 2, ReplicaMapping::Linear, 1).out,
              runBn(type, false, false, 2, ReplicaMapping::Linear, 2).out);
}

TEST(DistributedBatchNorm, BadArgumentsThrowNamingTheCulprit) {
  ReplicatedHarness h(2);
  auto &g = h.graph();
  auto &prog = h.prog();
  auto acts = g.addVariable(poplar::FLOAT, {2, C, F}, "acts");
  poputil::mapTensorLinearly(g, acts);
  auto stat = g.addVariable(poplar::FLOAT, {C}, "stat");
  g.setTileMapping(stat, 0);
  auto wrong = g.addVariable(poplar::FLOAT, {C + 1}, "wrong");
  g.setTileMapping(wrong, 0);
  auto otherShape = g.addVariable(poplar::FLOAT, {2, C, F + 1}, "otherShape");
  g.setTileMapping(otherShape, 0);
  const auto cb = allReduceCallback();
  using namespace popnn::bn;
  EXPECT_NE(poplibsErrorOf([&] {
              distributedBatchNormStatistics(g, acts, eps, prog, false, cb, 3);
            }).find("normBatchSize 3"),
            std::string::npos);
  EXPECT_NE(poplibsErrorOf([&] {
              distributedBatchNormGradients(g, acts, acts, stat, stat, stat, prog, cb, 5);
            }).find("normBatchSize 5"),
            std::string::npos);
  EXPECT_NE(poplibsErrorOf([&] {
              distributedBatchNormGradients(g, acts, otherShape, stat, stat, prog, cb, 4);
            }).find("gradsIn"),
            std::string::npos);
  EXPECT_NE(poplibsErrorOf([&] {
              distributedBatchNormGradients(g, acts, acts, stat, wrong, prog, cb, 4);
            }).find("gamma"),
            std::string::npos);
  EXPECT_NE(poplibsErrorOf([&] {
              distributedBatchNormGradients(g, acts, acts, wrong, stat, prog, cb, 4);
            }).find("invStdDev"),
            std::string::npos);
  auto rank1 = g.addVariable(poplar::FLOAT, {4}, "rank1");
  g.setTileMapping(rank1, 0);
  EXPECT_NE(poplibsErrorOf([&] {
              distributedBatchNormStatistics(g, rank1, eps, prog, false, cb, 4);
            }).find("acts"),
            std::string::npos);
}
