#include "model/Linear.hpp"

#include <poplin/MatMul.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>

#include <tessera/apps/Errors.hpp>

#include "model/Parameters.hpp"

namespace tessera::bert {

Linear::Linear(std::string name, std::size_t in, std::size_t out, float initStdDev)
    : name_(std::move(name)), in_(in), out_(out), initStdDev_(initStdDev) {}

poplar::Tensor Linear::forward(apps::BuildContext &ctx, const poplar::Tensor &x, apps::Mode mode,
                               poplar::program::Sequence &prog) {
  if (x.rank() != 2 || x.dim(1) != in_) // rank 0 never reaches here: dim() needs rank ≥ 1
    throw apps::app_error("layer '" + name_ + "' expects input [tokens][" + std::to_string(in_) +
                          "], got rank " + std::to_string(x.rank()) + " with last dimension " +
                          std::to_string(x.dim(x.rank() - 1)));
  if (!weights_) {
    weights_ = &addNormalWeight(ctx, name_ + "/weights", {in_, out_}, initStdDev_);
    bias_ = &addConstantParameter(ctx, name_ + "/bias", out_, 0.0f);
  }
  poplar::Tensor y = poplin::matMul(ctx.graph, x, weights_->value, prog, name_ + "/fwd",
                                    ctx.matMulOptions, &ctx.planningCache);
  popops::addInPlace(ctx.graph, y, bias_->value, prog, name_ + "/bias");
  if (mode == apps::Mode::Training)
    input_ = x;
  return y;
}

poplar::Tensor Linear::backward(apps::BuildContext &ctx, const poplar::Tensor &gradOut,
                                bool needInputGradient, poplar::program::Sequence &prog) {
  if (!input_.valid())
    throw apps::app_error("layer '" + name_ + "': backward() before a Training forward()");
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

} // namespace tessera::bert
