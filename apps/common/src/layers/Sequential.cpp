#include <tessera/apps/layers/Sequential.hpp>

#include <popnn/NonLinearity.hpp>
#include <popops/ElementWise.hpp>

namespace tessera::apps {

Sequential &Sequential::add(LayerPtr layer) {
  layers_.push_back(std::move(layer));
  return *this;
}

poplar::Tensor Sequential::forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                                   poplar::program::Sequence &prog) {
  poplar::Tensor y = x;
  for (auto &layer : layers_)
    y = layer->forward(ctx, y, mode, prog);
  return y;
}

poplar::Tensor Sequential::backward(BuildContext &ctx, const poplar::Tensor &gradOut,
                                    bool needInputGradient, poplar::program::Sequence &prog) {
  poplar::Tensor g = gradOut;
  for (std::size_t i = layers_.size(); i-- > 0;)
    g = layers_[i]->backward(ctx, g, i > 0 || needInputGradient, prog);
  return g;
}

Residual::Residual(std::string name, LayerPtr main, LayerPtr shortcut,
                   ResidualActivation activation)
    : Layer(std::move(name)), main_(std::move(main)), shortcut_(std::move(shortcut)),
      activation_(activation) {}

poplar::Tensor Residual::forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                                 poplar::program::Sequence &prog) {
  poplar::Tensor y = main_->forward(ctx, x, mode, prog);
  poplar::Tensor s = shortcut_ ? shortcut_->forward(ctx, x, mode, prog) : x;
  if (activation_ == ResidualActivation::None)
    return popops::add(ctx.graph, y, s, prog, name_ + "/add");
  // relu(y + s) in one fused pass.
  namespace pe = popops::expr;
  poplar::Tensor out = popops::map(ctx.graph, pe::Max(pe::_1 + pe::_2, pe::Const(0.0f)), {y, s},
                                   prog, name_ + "/addRelu");
  if (mode == Mode::Training)
    output_ = out;
  return out;
}

poplar::Tensor Residual::backward(BuildContext &ctx, const poplar::Tensor &gradOut,
                                  bool needInputGradient, poplar::program::Sequence &prog) {
  poplar::Tensor g =
      activation_ == ResidualActivation::None
          ? gradOut
          : popnn::nonLinearityInputGradient(ctx.graph, popnn::NonLinearityType::RELU, output_,
                                             gradOut, prog, name_ + "/reluGrad");
  poplar::Tensor gMain = main_->backward(ctx, g, needInputGradient, prog);
  poplar::Tensor gShort = shortcut_ ? shortcut_->backward(ctx, g, needInputGradient, prog) : g;
  if (!needInputGradient)
    return {};
  return popops::add(ctx.graph, gMain, gShort, prog, name_ + "/gradSum");
}

} // namespace tessera::apps
