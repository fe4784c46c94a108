#include <tessera/apps/layers/Activations.hpp>

#include <popnn/NonLinearity.hpp>

#include <tessera/apps/Errors.hpp>

namespace tessera::apps {
namespace {

void requireForward(const poplar::Tensor &saved, const std::string &name) {
  if (!saved.valid())
    throw app_error("layer '" + name + "': backward() before a Training forward()");
}

} // namespace

poplar::Tensor Swish::forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                              poplar::program::Sequence &prog) {
  if (mode == Mode::Training)
    input_ = x;
  return popnn::nonLinearity(ctx.graph, popnn::NonLinearityType::SWISH, x, prog, name_);
}

poplar::Tensor Swish::backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool,
                               poplar::program::Sequence &prog) {
  requireForward(input_, name_);
  // popnn's SWISH gradient takes the forward input: σ(x) · (1 + x · (1 − σ(x))).
  return popnn::nonLinearityInputGradient(ctx.graph, popnn::NonLinearityType::SWISH, input_,
                                          gradOut, prog, name_ + "/grad");
}

poplar::Tensor Sigmoid::forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                                poplar::program::Sequence &prog) {
  poplar::Tensor y =
      popnn::nonLinearity(ctx.graph, popnn::NonLinearityType::SIGMOID, x, prog, name_);
  if (mode == Mode::Training)
    output_ = y;
  return y;
}

poplar::Tensor Sigmoid::backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool,
                                 poplar::program::Sequence &prog) {
  requireForward(output_, name_);
  return popnn::nonLinearityInputGradient(ctx.graph, popnn::NonLinearityType::SIGMOID, output_,
                                          gradOut, prog, name_ + "/grad");
}

} // namespace tessera::apps
