// Layers applied one after another; backward runs them in reverse.
#pragma once

#include <vector>

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

class Sequential : public Layer {
public:
  explicit Sequential(std::string name) : Layer(std::move(name)) {}
  /// Appends a layer; returns *this so a network reads as a list.
  Sequential &add(LayerPtr layer);
  bool empty() const { return layers_.empty(); }

  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) override;
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool needInputGradient,
                          poplar::program::Sequence &prog) override;

private:
  std::vector<LayerPtr> layers_;
};

/// out = relu(main(x) + shortcut(x)), the residual block of ResNet (an empty shortcut is the
/// identity), or with ResidualActivation::None plain main(x) + shortcut(x), as EfficientNet's
/// MBConv blocks add. The gradient of the sum reaches both branches and their input gradients
/// add.
enum class ResidualActivation { Relu, None };

class Residual : public Layer {
public:
  Residual(std::string name, LayerPtr main, LayerPtr shortcut,
           ResidualActivation activation = ResidualActivation::Relu);

  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) override;
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool needInputGradient,
                          poplar::program::Sequence &prog) override;

private:
  LayerPtr main_, shortcut_; // shortcut_ may be null (identity)
  ResidualActivation activation_;
  poplar::Tensor output_; // relu output of the last Training forward
};

} // namespace tessera::apps
