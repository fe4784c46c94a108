#include <tessera/apps/layers/Dense.hpp>

#include <cmath>

#include <poplin/MatMul.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <poprand/RandomGen.hpp>
#include <poputil/TileMapping.hpp>

#include <tessera/apps/Errors.hpp>

namespace tessera::apps {

Dense::Dense(std::string name, std::size_t inFeatures, std::size_t outFeatures)
    : Layer(std::move(name)), in_(inFeatures), out_(outFeatures) {}

poplar::Tensor Dense::forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                              poplar::program::Sequence &prog) {
  if (x.rank() != 2 || x.dim(1) != in_)
    throw app_error("layer '" + name_ + "' expects input [B][" + std::to_string(in_) + "]");
  poplar::Graph &g = ctx.graph;
  if (!weights_) {
    // Spread linearly, whole rows per tile: the optimiser's element-wise updates then run on
    // many tiles over contiguous rows; the multiply gathers the blocks its plan wants.
    poplar::Tensor w = g.addVariable(x.elementType(), {in_, out_}, name_ + "/weights");
    poputil::mapTensorLinearly(g, w, unsigned(out_), unsigned(out_));
    weights_ = &ctx.addParameter(name_ + "/weights", w, true);
    // Xavier (Glorot) uniform: variance 2 / (fan_in + fan_out).
    const double limit = std::sqrt(6.0 / double(in_ + out_));
    poplar::Tensor init =
        poprand::uniform(g, &ctx.seedTensor, ctx.nextSeedModifier(), w, w.elementType(), -limit,
                         limit, ctx.initialise, name_ + "/init");
    ctx.initialise.add(poplar::program::Copy(init, w));
    poplar::Tensor b = g.addVariable(x.elementType(), {out_}, name_ + "/bias");
    g.setTileMapping(b, 0);
    bias_ = &ctx.addParameter(name_ + "/bias", b, false);
    poplar::Tensor zero = g.addConstant(x.elementType(), {out_}, 0.0f, name_ + "/biasInit");
    g.setTileMapping(zero, 0);
    ctx.initialise.add(poplar::program::Copy(zero, b));
  }
  poplar::Tensor y = poplin::matMul(g, x, weights_->value, prog, name_ + "/fwd", ctx.matMulOptions,
                                    &ctx.planningCache);
  popops::addInPlace(g, y, bias_->value, prog, name_ + "/bias");
  if (mode == Mode::Training)
    input_ = x;
  return y;
}

poplar::Tensor Dense::backward(BuildContext &ctx, const poplar::Tensor &gradOut,
                               bool needInputGradient, poplar::program::Sequence &prog) {
  poplar::Graph &g = ctx.graph;
  weights_->gradient = poplin::matMul(g, input_.transpose(), gradOut, prog, name_ + "/weightGrad",
                                      ctx.matMulOptions, &ctx.planningCache);
  bias_->gradient = popops::reduce(g, gradOut, gradOut.elementType(), {0}, popops::Operation::ADD,
                                   prog, name_ + "/biasGrad");
  if (!needInputGradient)
    return {};
  return poplin::matMul(g, gradOut, weights_->value.transpose(), prog, name_ + "/inputGrad",
                        ctx.matMulOptions, &ctx.planningCache);
}

} // namespace tessera::apps
