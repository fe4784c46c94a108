#include <tessera/apps/layers/Conv2d.hpp>

#include <cmath>
#include <utility>

#include <poplin/ConvUtil.hpp>
#include <poplin/Convolution.hpp>
#include <popops/Reduce.hpp>
#include <poprand/RandomGen.hpp>
#include <poputil/TileMapping.hpp>

#include <tessera/apps/Errors.hpp>

namespace tessera::apps {
namespace {

/// Each convolution pass may use this share of a tile for its temporaries. A tile serves several
/// layers' passes whose windows overlap, but liveness lets passes that never run at once share
/// their temporaries, so a pass can have more than the tenth it got before liveness existed:
/// with a tenth, the width-0.125 ResNet-50's 3x3 plans split too finely to use Winograd and
/// trained at a median 256 img/s against 348 with 0.3 (5 alternating rounds, 2-core EPYC;
/// 0.4 and 0.6 were no faster).
constexpr const char *kConvMemoryProportion = "0.3";

/// `t` [B][C][H][W] itself when its channel-major view is mapped in a few long runs per tile
/// over enough of `graph`'s tiles, else a copy in a fresh channel-major tensor spread over them
/// in whole images: the norms and element-wise ops that follow make one vertex per run (a plan
/// that splits output rows leaves runs of one image row).
poplar::Tensor withChannelMajorRuns(poplar::Graph &graph, const poplar::Tensor &t,
                                    poplar::program::Sequence &prog, const std::string &name) {
  const poplar::Tensor cm = t.dimShuffle({1, 0, 2, 3});
  const auto mapping = graph.getTileMapping(cm);
  std::size_t runs = 0, tiles = 0;
  for (const auto &intervals : mapping) {
    runs += intervals.size();
    tiles += !intervals.empty();
  }
  // Also spread a result the plan left on few tiles: the norms, activations and gradients that
  // follow inherit its mapping, and would overflow those tiles.
  const std::size_t wanted =
      std::min<std::size_t>(graph.getTarget().getNumTiles(), t.numElements() / 1024 + 1);
  if (runs <= 4 * tiles && 2 * tiles >= wanted)
    return t;
  const auto s = t.shape();
  poplar::Tensor copy = graph.addVariable(t.elementType(), {s[1], s[0], s[2], s[3]}, name);
  const unsigned image = static_cast<unsigned>(s[2] * s[3]);
  poputil::mapTensorLinearly(graph, copy, std::max(image, 1024u), image);
  poplar::Tensor view = copy.dimShuffle({1, 0, 2, 3});
  prog.add(poplar::program::Copy(t, view, false, name));
  return view;
}

/// A pass's options: the host's plans keep each pass to a small share of tile memory; an IPU's
/// plans get Poplar's default share and its cycle objective.
poplar::OptionFlags passOptions(const BuildContext &ctx, const char *pass) {
  poplar::OptionFlags o{{"pass", pass}};
  if (ctx.plansForIpu())
    o.set("planObjective", "ipuCycles");
  else
    o.set("availableMemoryProportion", kConvMemoryProportion);
  return o;
}

} // namespace

Conv2d::Conv2d(std::string name, Conv2dOptions options)
    : Layer(std::move(name)), options_(options) {
  // Checked here, not at forward(): a model is assembled before any graph exists, so a bad
  // configuration is reported before minutes of graph building.
  const std::size_t g = options_.groups;
  if (g == 0)
    throw cli_error("layer '" + name_ + "': groups must be at least 1, got 0");
  for (const auto &[channels, what] :
       {std::pair{options_.inChannels, "input"}, std::pair{options_.outChannels, "output"}})
    if (channels % g != 0)
      throw cli_error("layer '" + name_ + "': " + std::to_string(channels) + " " + what +
                      " channels do not split into " + std::to_string(g) +
                      " groups (the channel count must be a multiple of groups)");
}

poplin::ConvParams Conv2d::paramsFor(const poplar::Tensor &x, poplar::Type type) const {
  const auto s = x.shape();
  if (s.size() != 4 || s[1] != options_.inChannels)
    throw app_error("layer '" + name_ + "' expects input [B][" +
                    std::to_string(options_.inChannels) + "][H][W], got rank " +
                    std::to_string(s.size()) + " with " +
                    (s.size() > 1 ? std::to_string(s[1]) : std::string("no")) + " channels");
  poplin::ConvParams p(type, s[0], {s[2], s[3]}, {options_.kernel, options_.kernel},
                       options_.inChannels / options_.groups,
                       options_.outChannels / options_.groups, options_.groups);
  p.inputTransform.paddingLower = {options_.padding, options_.padding};
  p.inputTransform.paddingUpper = {options_.padding, options_.padding};
  p.outputTransform.stride = {options_.stride, options_.stride};
  return p;
}

void Conv2d::createParameters(BuildContext &ctx, const poplin::ConvParams &params) {
  const std::size_t elements =
      params.getBatchSize() *
      (params.getNumInputChans() * params.inputFieldShape[0] * params.inputFieldShape[1] +
       params.getNumOutputChans() * params.getOutputSize(0) * params.getOutputSize(1));
  graph_ = &ctx.placementGraph(elements * ctx.graph.getTarget().getTypeSize(params.inputType));
  poplar::Tensor w = poplin::createWeights(*graph_, params, name_ + "/weights",
                                           ctx.plansForIpu() ? passOptions(ctx, "TRAINING_FWD")
                                                             : poplar::OptionFlags{},
                                           &ctx.planningCache);
  weights_ = &ctx.addParameter(name_ + "/weights", w, true);
  // He (Kaiming) normal: keeps activation variance through ReLU layers. Each output sees only
  // its own group's input channels, so that is its fan-in.
  const double fanIn =
      double(options_.inChannels / options_.groups) * options_.kernel * options_.kernel;
  poplar::Tensor init =
      poprand::normal(*graph_, &ctx.seedTensor, ctx.nextSeedModifier(), w, w.elementType(), 0.0,
                      std::sqrt(2.0 / fanIn), ctx.initialise, name_ + "/init");
  ctx.initialise.add(poplar::program::Copy(init, w));
  if (options_.bias) {
    poplar::Tensor b =
        graph_->addVariable(params.outputType, {options_.outChannels}, name_ + "/bias");
    graph_->setTileMapping(b, 0);
    bias_ = &ctx.addParameter(name_ + "/bias", b, false);
    poplar::Tensor zero =
        graph_->addConstant(params.outputType, {options_.outChannels}, 0.0f, name_ + "/biasInit");
    graph_->setTileMapping(zero, 0);
    ctx.initialise.add(poplar::program::Copy(zero, b));
  }
}

poplar::Tensor Conv2d::forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                               poplar::program::Sequence &prog) {
  const poplin::ConvParams params = paramsFor(x, x.elementType());
  if (!weights_)
    createParameters(ctx, params);
  const poplar::OptionFlags options =
      passOptions(ctx, mode == Mode::Training ? "TRAINING_FWD" : "INFERENCE_FWD");
  poplar::Tensor y = poplin::convolution(*graph_, x, weights_->value, params, false, prog,
                                         name_ + "/fwd", options, &ctx.planningCache);
  y = withChannelMajorRuns(*graph_, y, prog, name_ + "/fwd/relayout");
  if (bias_)
    poplin::addBias(*graph_, y, bias_->value, prog, name_ + "/bias");
  if (mode == Mode::Training) {
    params_ = params;
    input_ = x;
  }
  return y;
}

poplar::Tensor Conv2d::backward(BuildContext &ctx, const poplar::Tensor &gradOut,
                                bool needInputGradient, poplar::program::Sequence &prog) {
  if (!params_)
    throw app_error("layer '" + name_ + "': backward() before a Training forward()");
  poplar::Tensor gradIn;
  if (needInputGradient)
    gradIn = poplin::convolution(
        *graph_, gradOut, weights_->value, poplin::getGradientParams(*params_), true, prog,
        name_ + "/inputGrad", passOptions(ctx, "TRAINING_BWD"), &ctx.planningCache);
  if (needInputGradient)
    gradIn = withChannelMajorRuns(*graph_, gradIn, prog, name_ + "/inputGrad/relayout");
  weights_->gradient =
      poplin::calculateWeightDeltas(*graph_, gradOut, input_, *params_, prog, name_ + "/weightGrad",
                                    passOptions(ctx, "TRAINING_WU"), &ctx.planningCache);
  if (bias_) // on the whole graph unless gradOut lies in a window: a later layer's may not
    bias_->gradient = popops::reduce(ctx.graphHolding(gradOut), gradOut, bias_->value.elementType(),
                                     {0, 2, 3}, popops::Operation::ADD, prog, name_ + "/biasGrad");
  return gradIn;
}

} // namespace tessera::apps
