#include <tessera/apps/layers/SqueezeExcite.hpp>

#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>

#include <tessera/apps/Errors.hpp>

namespace tessera::apps {
namespace pe = popops::expr;

SqueezeExcite::SqueezeExcite(std::string name, SqueezeExciteOptions options)
    : Layer(std::move(name)), options_(options),
      reduce_(name_ + "/reduce", options.channels, options.reducedChannels),
      expand_(name_ + "/expand", options.reducedChannels, options.channels),
      activation_(name_ + "/swish"), gate_(name_ + "/gate") {
  if (options_.channels == 0 || options_.reducedChannels == 0)
    throw cli_error("layer '" + name_ + "': channels (" + std::to_string(options_.channels) +
                    ") and reduced channels (" + std::to_string(options_.reducedChannels) +
                    ") must both be at least 1");
}

poplar::Tensor SqueezeExcite::forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                                      poplar::program::Sequence &prog) {
  const auto s = x.shape();
  if (s.size() != 4 || s[1] != options_.channels)
    throw app_error("layer '" + name_ + "' expects input [B][" + std::to_string(options_.channels) +
                    "][H][W], got rank " + std::to_string(s.size()) + " with " +
                    (s.size() > 1 ? std::to_string(s[1]) : std::string("no")) + " channels");
  poplar::Graph &g = ctx.graph;
  // Squeeze: the field sum scaled in the same reduction, one pass over x.
  poplar::Tensor meanScale =
      g.addConstant(poplar::FLOAT, {1}, 1.0f / float(s[2] * s[3]), name_ + "/meanScale");
  g.setTileMapping(meanScale, 0);
  const poplar::Tensor squeezed = popops::reduce(
      g, x, x.elementType(), {2, 3}, popops::ReduceParams(popops::Operation::ADD, false, meanScale),
      prog, name_ + "/squeeze");
  poplar::Tensor r =
      activation_.forward(ctx, reduce_.forward(ctx, squeezed, mode, prog), mode, prog);
  poplar::Tensor e = gate_.forward(ctx, expand_.forward(ctx, r, mode, prog), mode, prog);
  // Excite: [B][C][1][1] broadcasts over the field; the result is laid out like x.
  const poplar::Tensor e4 = e.reshape({s[0], s[1], 1, 1});
  poplar::Tensor y = popops::map(g, pe::_1 * pe::_2, {x, e4}, prog, name_ + "/excite");
  if (mode == Mode::Training) {
    input_ = x;
    gate4_ = e4;
  }
  return y;
}

poplar::Tensor SqueezeExcite::backward(BuildContext &ctx, const poplar::Tensor &gradOut,
                                       bool needInputGradient, poplar::program::Sequence &prog) {
  if (!input_.valid())
    throw app_error("layer '" + name_ + "': backward() before a Training forward()");
  if (gradOut.shape() != input_.shape())
    throw app_error("layer '" + name_ + "': the output gradient's shape differs from the input's");
  poplar::Graph &g = ctx.graph;
  const auto s = input_.shape();
  // dL/de[b][c] = Σ_{h,w} gy · x: the gate sees each channel's whole field.
  const poplar::Tensor product =
      popops::map(g, pe::_1 * pe::_2, {gradOut, input_}, prog, name_ + "/gateGrad/product");
  const poplar::Tensor gateGrad = popops::reduce(g, product, gradOut.elementType(), {2, 3},
                                                 popops::Operation::ADD, prog, name_ + "/gateGrad");
  poplar::Tensor grad = gate_.backward(ctx, gateGrad, true, prog);
  grad = expand_.backward(ctx, grad, true, prog);
  grad = activation_.backward(ctx, grad, true, prog);
  grad = reduce_.backward(ctx, grad, needInputGradient, prog);
  if (!needInputGradient)
    return {};
  // Both paths to x in one pass: through the excite product (gy · e) and through the mean
  // (dL/ds / (H·W) at every field position). Laid out like the forward input, so the layers
  // before see their own layout.
  const poplar::Tensor squeezeGrad4 = grad.reshape({s[0], s[1], 1, 1});
  poplar::Tensor gradIn = g.clone(gradOut.elementType(), input_, name_ + "/inputGrad");
  popops::mapWithOutput(g, pe::_1 * pe::_2 + pe::_3 * pe::Const(1.0f / float(s[2] * s[3])),
                        {gradOut, gate4_, squeezeGrad4}, gradIn, prog, name_ + "/inputGrad");
  return gradIn;
}

} // namespace tessera::apps
