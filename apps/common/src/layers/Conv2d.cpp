#include <tessera/apps/layers/Conv2d.hpp>

#include <cmath>

#include <poplin/ConvUtil.hpp>
#include <poplin/Convolution.hpp>
#include <popops/Reduce.hpp>
#include <poprand/RandomGen.hpp>

#include <tessera/apps/Errors.hpp>

namespace tessera::apps {

Conv2d::Conv2d(std::string name, Conv2dOptions options)
    : Layer(std::move(name)), options_(options) {}

poplin::ConvParams Conv2d::paramsFor(const poplar::Tensor &x, poplar::Type type) const {
  const auto s = x.shape();
  if (s.size() != 4 || s[1] != options_.inChannels)
    throw app_error("layer '" + name_ + "' expects input [B][" +
                    std::to_string(options_.inChannels) + "][H][W], got rank " +
                    std::to_string(s.size()) + " with " +
                    (s.size() > 1 ? std::to_string(s[1]) : std::string("no")) + " channels");
  poplin::ConvParams p(type, s[0], {s[2], s[3]}, {options_.kernel, options_.kernel},
                       options_.inChannels, options_.outChannels, 1);
  p.inputTransform.paddingLower = {options_.padding, options_.padding};
  p.inputTransform.paddingUpper = {options_.padding, options_.padding};
  p.outputTransform.stride = {options_.stride, options_.stride};
  return p;
}

void Conv2d::createParameters(BuildContext &ctx, const poplin::ConvParams &params) {
  poplar::Tensor w =
      poplin::createWeights(ctx.graph, params, name_ + "/weights", {}, &ctx.planningCache);
  weights_ = &ctx.addParameter(name_ + "/weights", w, true);
  // He (Kaiming) normal: keeps activation variance through ReLU layers.
  const double fanIn = double(options_.inChannels) * options_.kernel * options_.kernel;
  poplar::Tensor init =
      poprand::normal(ctx.graph, &ctx.seedTensor, ctx.nextSeedModifier(), w, w.elementType(), 0.0,
                      std::sqrt(2.0 / fanIn), ctx.initialise, name_ + "/init");
  ctx.initialise.add(poplar::program::Copy(init, w));
  if (options_.bias) {
    poplar::Tensor b =
        ctx.graph.addVariable(params.outputType, {options_.outChannels}, name_ + "/bias");
    ctx.graph.setTileMapping(b, 0);
    bias_ = &ctx.addParameter(name_ + "/bias", b, false);
    poplar::Tensor zero =
        ctx.graph.addConstant(params.outputType, {options_.outChannels}, 0.0f, name_ + "/biasInit");
    ctx.graph.setTileMapping(zero, 0);
    ctx.initialise.add(poplar::program::Copy(zero, b));
  }
}

poplar::Tensor Conv2d::forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                               poplar::program::Sequence &prog) {
  const poplin::ConvParams params = paramsFor(x, x.elementType());
  if (!weights_)
    createParameters(ctx, params);
  poplar::OptionFlags options{{"pass", mode == Mode::Training ? "TRAINING_FWD" : "INFERENCE_FWD"}};
  poplar::Tensor y = poplin::convolution(ctx.graph, x, weights_->value, params, false, prog,
                                         name_ + "/fwd", options, &ctx.planningCache);
  if (bias_)
    poplin::addBias(ctx.graph, y, bias_->value, prog, name_ + "/bias");
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
        ctx.graph, gradOut, weights_->value, poplin::getGradientParams(*params_), true, prog,
        name_ + "/inputGrad", {{"pass", "TRAINING_BWD"}}, &ctx.planningCache);
  weights_->gradient = poplin::calculateWeightDeltas(ctx.graph, gradOut, input_, *params_, prog,
                                                     name_ + "/weightGrad",
                                                     {{"pass", "TRAINING_WU"}}, &ctx.planningCache);
  if (bias_)
    bias_->gradient = popops::reduce(ctx.graph, gradOut, bias_->value.elementType(), {0, 2, 3},
                                     popops::Operation::ADD, prog, name_ + "/biasGrad");
  return gradIn;
}

} // namespace tessera::apps
