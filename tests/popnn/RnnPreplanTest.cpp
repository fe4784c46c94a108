// getMatMulPrePlanParameters of popnn::lstm and popnn::rnn: the multiplies they list are exactly
// the ones the layers plan, so preplanning them into a PlanningCache leaves nothing for the
// layer to plan when it is built with that cache.
#include <list>
#include <set>

#include <poplin/MatMul.hpp>
#include <popnn/Lstm.hpp>
#include <popnn/Recurrent.hpp>
#include <poputil/exceptions.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;
using poplar::Tensor;
namespace lstm = popnn::lstm;
namespace rnn = popnn::rnn;

namespace {

using PrePlan = std::vector<std::pair<poplin::MatMulParams, poplar::OptionFlags>>;

/// Plans every entry of `list` for `target` into `cache`; returns the cache size afterwards.
std::size_t preplan(const poplar::Target &target, const PrePlan &list,
                    poplin::PlanningCache &cache) {
  std::list<poplar::OptionFlags> options; // kept alive while planning
  std::set<poplin::MatMulPlanParams> plans;
  for (const auto &[params, opts] : list) {
    options.push_back(opts);
    plans.emplace(&target, params, &options.back());
  }
  poplin::preplanMatMuls(plans, cache);
  return cache.size();
}

lstm::LstmWeights lstmWeights(poplar::Graph &graph, const lstm::LstmParams &params) {
  return lstm::createWeights(graph, params, "w");
}

} // namespace

TEST(RnnPreplan, LstmListsEveryMultiplyOfForwardBackwardAndWeightUpdate) {
  for (const auto type : {poplar::FLOAT, poplar::HALF}) {
    for (const bool inferenceOnly : {false, true}) {
      Harness h(Layout::MULTI_TILE);
      lstm::LstmParams params(type, 3, 5, {4, 6});
      poplar::OptionFlags opts{{"inferenceOnly", inferenceOnly ? "true" : "false"},
                               {"weightAccumulatorsType", "float"}};
      poplin::PlanningCache cache;
      const auto list = lstm::getMatMulPrePlanParameters(params, opts);
      EXPECT_EQ(list.size(), inferenceOnly ? 2u : 6u);
      const std::size_t planned = preplan(h.graph().getTarget(), list, cache);
      EXPECT_GT(planned, 0u);
      auto &g = h.graph();
      Tensor x = lstm::createInput(g, params, "x", opts, &cache);
      auto init = lstm::createInitialState(g, params, "init", opts, &cache);
      auto w = lstmWeights(g, params);
      Tensor inter;
      Tensor out = lstm::lstmFwd(g, params, h.prog(), init, w, x, inferenceOnly ? nullptr : &inter,
                                 "fwd", opts, &cache);
      if (!inferenceOnly) {
        Tensor inputGrad;
        lstm::LstmWeights wGrad;
        lstm::lstmBwdWithWU(g, params, h.prog(), init, inter, w, x, out, out, nullptr, &inputGrad,
                            wGrad, "bwd", opts, &cache);
      }
      EXPECT_EQ(cache.size(), planned) << (type == poplar::HALF ? "half" : "float")
                                       << (inferenceOnly ? " inference" : " training");
      // And nothing listed is superfluous: the layer alone plans as many multiplies.
      Harness fresh(Layout::MULTI_TILE);
      poplin::PlanningCache own;
      auto &f = fresh.graph();
      Tensor fx = lstm::createInput(f, params, "x", opts, &own);
      auto finit = lstm::createInitialState(f, params, "init", opts, &own);
      auto fw = lstmWeights(f, params);
      Tensor finter;
      Tensor fout = lstm::lstmFwd(f, params, fresh.prog(), finit, fw, fx,
                                  inferenceOnly ? nullptr : &finter, "fwd", opts, &own);
      if (!inferenceOnly) {
        Tensor inputGrad;
        lstm::LstmWeights wGrad;
        lstm::lstmBwdWithWU(f, params, fresh.prog(), finit, finter, fw, fx, fout, fout, nullptr,
                            &inputGrad, wGrad, "bwd", opts, &own);
      }
      EXPECT_EQ(own.size(), planned);
    }
  }
}

TEST(RnnPreplan, LstmWithoutInputWeightsOrInputGradientsListsFewerMultiplies) {
  lstm::LstmParams params(poplar::FLOAT, 2, 3, {4, 5});
  params.doInputWeightCalc = false;
  params.calcInputGradients = false;
  EXPECT_EQ(lstm::getMatMulPrePlanParameters(params, {}).size(), 4u);
  params.rnn.layerSizes = {4};
  EXPECT_THROW(lstm::getMatMulPrePlanParameters(params, {}), poputil::poplibs_error);
  lstm::LstmParams ok(poplar::FLOAT, 2, 3, {4, 5});
  EXPECT_THROW(lstm::getMatMulPrePlanParameters(ok, {{"noSuchOption", "1"}}),
               poplar::invalid_option);
}

TEST(RnnPreplan, VanillaRnnListsEveryMultiplyOfTheSequenceFunctions) {
  const unsigned T = 4, B = 3, I = 5, O = 6;
  for (const auto type : {poplar::FLOAT, poplar::HALF}) {
    Harness h(Layout::MULTI_TILE);
    auto &g = h.graph();
    poplin::PlanningCache cache;
    const auto list = rnn::getMatMulPrePlanParameters(T, B, I, O, type, poplar::FLOAT, false, true);
    const std::size_t planned = preplan(g.getTarget(), list, cache);
    EXPECT_GT(planned, 0u);
    Tensor x = rnn::createInput(g, T, B, I, O, type, poplar::FLOAT, false, "x", &cache);
    Tensor init = rnn::createFwdState(g, type, B, O, h.prog(), true, false, "s", &cache);
    Tensor wff = rnn::createWeightsInput(g, T, B, I, O, type, poplar::FLOAT, false, "wff", &cache);
    Tensor wfb = rnn::createWeightsFeedback(g, B, O, type, poplar::FLOAT, false, "wfb", &cache);
    Tensor b = g.addVariable(type, {O}, "b");
    g.setTileMapping(b, 0);
    Tensor ff = rnn::forwardWeightInput(g, x, wff, h.prog(), poplar::FLOAT, false, "ff", &cache);
    Tensor y =
        rnn::rnnFwdSequence(g, h.prog(), init, nullptr, b, wff, wfb, x,
                            popnn::NonLinearityType::TANH, poplar::FLOAT, false, "fwd", &cache);
    Tensor y2 = rnn::forwardIterate(g, ff, init, wfb, b, h.prog(), popnn::NonLinearityType::TANH,
                                    poplar::FLOAT, false, "it", &cache);
    rnn::rnnBwdSequence(g, true, false, h.prog(), init, y, b, wff, wfb, y.dimShuffle({1, 0, 2}), x,
                        popnn::NonLinearityType::TANH, poplar::FLOAT, "bwd", &cache);
    EXPECT_EQ(cache.size(), planned) << (type == poplar::HALF ? "half" : "float");
  }
  // Inference without feed-forward weights needs the feedback product only.
  EXPECT_EQ(
      rnn::getMatMulPrePlanParameters(T, B, I, O, poplar::FLOAT, poplar::FLOAT, true, false).size(),
      1u);
  EXPECT_THROW(rnn::getMatMulPrePlanParameters(T, B, I, O, poplar::INT), poputil::poplibs_error);
}
