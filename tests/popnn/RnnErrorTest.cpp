// The remaining argument checks of popnn's recurrent layers (Lstm.hpp, Gru.hpp, Recurrent.hpp,
// Rnn.hpp): each throws poputil::poplibs_error naming the argument at fault.
#include <functional>

#include <popnn/Gru.hpp>
#include <popnn/Lstm.hpp>
#include <popnn/Recurrent.hpp>
#include <popnn/Rnn.hpp>
#include <poputil/exceptions.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;
using poplar::Tensor;

namespace {

void expectNamed(const std::function<void()> &fn, const std::string &needle) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected one naming " << needle;
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(RnnErrors, LstmLayerShapeAndBackwardArgumentsAreCheckedByName) {
  namespace lstm = popnn::lstm;
  Harness h(Layout::SINGLE_TILE);
  auto &g = h.graph();
  expectNamed([&] { lstm::createInput(g, lstm::LstmParams(poplar::FLOAT, 2, 3, {4}), "in"); },
              "layerSizes");
  expectNamed(
      [&] {
        lstm::createWeights(g, lstm::LstmParams(poplar::FLOAT, 0, 3, {4, 5}), "w");
      },
      "batchSize");
  lstm::LstmParams params(poplar::FLOAT, 2, 3, {4, 5});
  auto w = lstm::createWeights(g, params, "w");
  auto init = lstm::createInitialState(g, params, "init");
  Tensor in = lstm::createInput(g, params, "in");
  Tensor inter;
  Tensor out = lstm::lstmFwd(g, params, h.prog(), init, w, in, &inter);
  Tensor badCell = g.addVariable(poplar::FLOAT, {2, 4}, "badCell");
  expectNamed(
      [&] {
        lstm::lstmBwd(g, params, h.prog(), init, inter, w, in, out, out, &badCell, nullptr,
                      nullptr);
      },
      "'lastCellStateGrad'");
  expectNamed(
      [&] {
        lstm::lstmBwd(g, params, h.prog(), init, inter.slice(0, 6, 1), w, in, out, out, nullptr,
                      nullptr, nullptr);
      },
      "'fwdIntermediates'");
  Tensor bwdInter;
  lstm::lstmBwd(g, params, h.prog(), init, inter, w, in, out, out, nullptr, nullptr, &bwdInter);
  expectNamed(
      [&] { lstm::lstmWU(g, params, h.prog(), init, inter, bwdInter.slice(0, 2, 0), w, in, out); },
      "'bwdIntermediates'");
  expectNamed([&] { lstm::lstmWU(g, params, h.prog(), init, inter, bwdInter, w, out, out); },
              "'input'");
}

TEST(RnnErrors, GruBackwardAndAttentionArgumentsAreCheckedByName) {
  namespace gru = popnn::gru;
  Harness h(Layout::SINGLE_TILE);
  auto &g = h.graph();
  gru::GruParams params(poplar::FLOAT, 2, 3, {4, 5});
  auto w = gru::createWeights(g, params, "w");
  Tensor init = gru::createInitialState(g, params, "init", {}, nullptr);
  Tensor in = gru::createInput(g, params, "in");
  Tensor att = gru::createAttention(g, params, "att");
  Tensor inter;
  Tensor out = gru::gruFwd(g, params, init, in, w, &inter, h.prog());
  expectNamed([&] { gru::auGruFwd(g, params, init, in, w, nullptr, att.transpose(), h.prog()); },
              "'attScores'");
  expectNamed(
      [&] {
        gru::gruBwd(g, params, h.prog(), init, inter, w, in, out, init, nullptr, nullptr, {}, {},
                    nullptr);
      },
      "'gradLayerNext'");
  expectNamed(
      [&] {
        gru::auGruBwd(g, params, h.prog(), init, inter, w, in, out, out, nullptr, nullptr,
                      att.transpose(), nullptr, {}, {}, nullptr);
      },
      "'attentions'");
  Tensor bwdInter;
  gru::gruBwd(g, params, h.prog(), init, inter, w, in, out, out, nullptr, &bwdInter, {}, {},
              nullptr);
  expectNamed(
      [&] {
        gru::gruWU(g, params, h.prog(), init, inter, bwdInter.slice(0, 1, 0), w, in, out, {}, {},
                   nullptr);
      },
      "'bwdIntermediates'");
}

TEST(RnnErrors, RecurrentStepAndShardArgumentsAreCheckedByName) {
  namespace rnn = popnn::rnn;
  Harness h(Layout::SINGLE_TILE);
  auto &g = h.graph();
  const auto nl = popnn::NonLinearityType::TANH;
  Tensor state = rnn::createBwdState(g, poplar::FLOAT, 2, 5, h.prog());
  Tensor Wfb = rnn::createWeightsFeedback(g, 2, 5, poplar::FLOAT);
  Tensor Wff = rnn::createWeightsInput(g, 3, 2, 4, 5, poplar::FLOAT);
  Tensor wrong = g.addVariable(poplar::FLOAT, {2, 4}, "wrong");
  expectNamed([&] { rnn::backwardGradientStep(g, wrong, state, state, Wfb, h.prog(), nl); },
              "'nextLayerGrad'");
  expectNamed([&] { rnn::backwardGradientStep(g, state, state, wrong, Wfb, h.prog(), nl); },
              "'actOut'");
  Tensor accIn = g.clone(Wff), accFb = g.clone(Wfb), accB = g.addVariable(poplar::FLOAT, {4});
  expectNamed([&] { rnn::paramDeltaUpdate(g, state, wrong, state, accIn, accFb, accB, h.prog()); },
              "'biasDeltasAcc'");
  rnn::RnnParams params(poplar::FLOAT, 2, 3, {4, 5});
  expectNamed([&] { rnn::createInputTensor(g, params, 4); }, "numShards"); // > timeSteps
  Tensor base = rnn::createOutputTensor(g, params, 1);
  expectNamed([&] { rnn::shiftRnnTensor(g, params, base, wrong, h.prog(), 1); }, "'tSingle'");
  expectNamed([&] { rnn::shiftRnnTensor(g, params, wrong, base[0], h.prog(), 1); }, "'tBase'");
}

} // namespace
