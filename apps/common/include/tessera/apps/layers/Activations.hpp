// Smooth element-wise activations of EfficientNet-style networks: Swish (SiLU), the activation
// of every MBConv block, and Sigmoid, the gate of squeeze-and-excitation. Any shape and FLOAT
// or HALF; the output is laid out like the input.
#pragma once

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

/// y = x · sigmoid(x). Backward needs the forward input (the output does not determine it, as
/// swish is not monotonic), so Training keeps the input.
class Swish : public Layer {
public:
  explicit Swish(std::string name) : Layer(std::move(name)) {}
  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) override;
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool needInputGradient,
                          poplar::program::Sequence &prog) override;

private:
  poplar::Tensor input_;
};

/// y = 1 / (1 + e^−x). Backward uses the output alone (dy/dx = y · (1 − y)), so Training keeps
/// the output.
class Sigmoid : public Layer {
public:
  explicit Sigmoid(std::string name) : Layer(std::move(name)) {}
  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) override;
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool needInputGradient,
                          poplar::program::Sequence &prog) override;

private:
  poplar::Tensor output_;
};

} // namespace tessera::apps
