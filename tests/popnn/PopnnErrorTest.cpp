// popnn's argument errors: each throws poputil::poplibs_error whose message names the culprit.
#include <functional>

#include <popnn/BatchNorm.hpp>
#include <popnn/GroupNorm.hpp>
#include <popnn/LayerNorm.hpp>
#include <popnn/Loss.hpp>
#include <popnn/NonLinearity.hpp>
#include <popnn/Pooling.hpp>
#include <poputil/exceptions.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;
using popnn::PoolingType;
using popnn::pooling::PoolParams;

namespace {

/// Runs `fn` on a fresh graph and expects a poplibs_error whose message holds every `parts`.
template <class Error = poputil::poplibs_error>
void expectError(const std::function<void(poplar::Graph &, poplar::program::Sequence &)> &fn,
                 const std::vector<std::string> &parts) {
  poplar::Device d = makeDevice(Layout::MULTI_TILE);
  poplar::Graph g(d.getTarget());
  popnn::addCodelets(g);
  poplar::program::Sequence prog;
  try {
    fn(g, prog);
    FAIL() << "no exception; expected one naming " << parts.front();
  } catch (const Error &e) {
    for (const auto &p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << "message '" << e.what() << "' does not name '" << p << "'";
  }
}

poplar::Tensor var(poplar::Graph &g, const poplar::Type &t, std::vector<std::size_t> shape,
                   const std::string &name) {
  auto v = g.addVariable(t, shape, name);
  poputil::mapTensorLinearly(g, v);
  return v;
}

TEST(PopnnErrors, NonLinearityRejectsIntegerTensor) {
  expectError(
      [](auto &g, auto &prog) {
        popnn::nonLinearity(g, popnn::NonLinearityType::RELU, var(g, poplar::INT, {4}, "x"), prog);
      },
      {"popnn::nonLinearity", "'t'", "int", "FLOAT or HALF"});
}

TEST(PopnnErrors, NonLinearityGradientRejectsMismatchedShapes) {
  expectError(
      [](auto &g, auto &prog) {
        popnn::nonLinearityInputGradient(g, popnn::NonLinearityType::TANH,
                                         var(g, poplar::FLOAT, {4, 3}, "act"),
                                         var(g, poplar::FLOAT, {4, 2}, "grad"), prog);
      },
      {"outGradient", "[4,3]"});
}

PoolParams goodPool() {
  return PoolParams(PoolingType::MAX, {6, 6}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 2, 1, poplar::FLOAT);
}

TEST(PopnnErrors, PoolRejectsBadParams) {
  auto run = [](PoolParams p, std::vector<std::string> parts) {
    expectError(
        [&](auto &g, auto &prog) {
          popnn::pooling::pool(g, p, var(g, poplar::FLOAT, {1, 2, 6, 6}, "in"), prog);
        },
        parts);
  };
  auto p = goodPool();
  p.kernelShape = {9, 3};
  run(p, {"kernelShape[0] = 9", "padded field size 8"});
  p = goodPool();
  p.stride = {2, 0};
  run(p, {"stride[1] is 0"});
  p = goodPool();
  p.stride = {2};
  run(p, {"must each have 2 entries"});
  p = goodPool();
  p.dType = poplar::INT;
  run(p, {"dType", "int"});
  p = goodPool();
  p.inputFieldShape = {6, 6, 6, 6};
  run(p, {"4 dimensions"});
  p = goodPool();
  p.numChannels = 3;
  run(p, {"'in'", "[1,3,6,6]"});
}

TEST(PopnnErrors, MaxPoolGradientNeedsForwardTensors) {
  expectError(
      [](auto &g, auto &prog) {
        popnn::pooling::poolInputGradient(g, goodPool(), 1,
                                          var(g, poplar::FLOAT, {1, 2, 3, 3}, "gradOut"), prog);
      },
      {"MAX pooling needs the forward input"});
}

TEST(PopnnErrors, NormsNameTheirArguments) {
  expectError(
      [](auto &g, auto &prog) {
        popnn::bn::batchNormStatistics(g, var(g, poplar::FLOAT, {8}, "acts"), 1e-5f, prog, false);
      },
      {"popnn::bn::batchNormStatistics", "'acts'", "rank >= 2"});
  expectError(
      [](auto &g, auto &prog) {
        auto acts = var(g, poplar::FLOAT, {2, 4, 3}, "acts");
        auto [m, s] = popnn::bn::batchNormStatistics(g, acts, 1e-5f, prog, false);
        popnn::bn::batchNormalise(g, acts, var(g, poplar::FLOAT, {3}, "gamma"),
                                  var(g, poplar::FLOAT, {4}, "beta"), m, s, prog);
      },
      {"'gamma'", "[4]"});
  expectError(
      [](auto &g, auto &prog) {
        popnn::gn::groupNormStatistics(g, var(g, poplar::FLOAT, {2, 4, 3}, "acts"), 1e-5f, prog, 3,
                                       false);
      },
      {"4 channels", "numGroups = 3"});
  expectError<poplar::invalid_option>(
      [](auto &g, auto &prog) {
        popnn::gn::groupNormStatistics(g, var(g, poplar::FLOAT, {2, 4}, "acts"), 1e-5f, prog, 2,
                                       false, false, poplar::FLOAT, {},
                                       {{"groupNormStridedGrouping", "true"}});
      },
      {"popnn::gn::groupNormStatistics", "unknown option 'groupNormStridedGrouping'",
       "did you mean 'groupNormStridedChannelGrouping'"});
  expectError<poplar::invalid_option>(
      [](auto &g, auto &prog) {
        popnn::gn::groupNormStatistics(g, var(g, poplar::FLOAT, {2, 4}, "acts"), 1e-5f, prog, 2,
                                       false, false, poplar::FLOAT, {},
                                       {{"groupNormStridedChannelGrouping", "yes"}});
      },
      {"option 'groupNormStridedChannelGrouping'", "'yes'", "'true' or 'false'"});
  expectError(
      [](auto &g, auto &prog) {
        popnn::ln::layerNormStatistics(g, var(g, poplar::INT, {2, 4}, "acts"), 1e-5f, prog, false);
      },
      {"popnn::ln::layerNormStatistics", "'acts'", "FLOAT or HALF"});
}

TEST(PopnnErrors, LossNamesItsArguments) {
  auto run = [](std::vector<std::size_t> outShape, poplar::Type labelType,
                std::vector<std::size_t> deltaShape, std::vector<std::string> parts) {
    expectError(
        [&](auto &g, auto &) {
          popnn::calcLoss(g, var(g, poplar::FLOAT, outShape, "probs"),
                          var(g, labelType, {4}, "labels"), var(g, poplar::FLOAT, {4}, "loss"),
                          var(g, poplar::FLOAT, deltaShape, "deltas"), popnn::CROSS_ENTROPY_LOSS);
        },
        parts);
  };
  run({4, 3, 2}, poplar::UNSIGNED_INT, {4, 3}, {"'modelOutputs'", "2-D"});
  run({4, 3}, poplar::FLOAT, {4, 3}, {"'expected'", "UNSIGNED_INT or INT"});
  run({4, 3}, poplar::UNSIGNED_INT, {4, 2}, {"'deltas'", "[4,3]"});
  expectError(
      [](auto &g, auto &) {
        popnn::calcAccuracy(g, var(g, poplar::FLOAT, {4, 3}, "probs"),
                            var(g, poplar::INT, {4}, "labels"),
                            var(g, poplar::FLOAT, {1}, "numCorrect"));
      },
      {"'numCorrect'", "UNSIGNED_INT"});
  // calcLoss counting correct rows in its own pass checks the counter itself.
  expectError(
      [](auto &g, auto &) {
        popnn::calcLoss(g, var(g, poplar::FLOAT, {4, 3}, "probs"),
                        var(g, poplar::UNSIGNED_INT, {4}, "labels"),
                        var(g, poplar::FLOAT, {4}, "loss"), var(g, poplar::FLOAT, {4, 3}, "deltas"),
                        var(g, poplar::UNSIGNED_INT, {2}, "numCorrect"), popnn::CROSS_ENTROPY_LOSS);
      },
      {"popnn::calcLoss", "'numCorrect'", "one UNSIGNED_INT element"});
  expectError([](auto &g, auto &prog) { popnn::argMax(g, var(g, poplar::FLOAT, {4}, "x"), prog); },
              {"popnn::argMax", "'input'", "2-D"});
}

} // namespace
