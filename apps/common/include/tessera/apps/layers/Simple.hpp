// Parameter-free layers: ReLU, max pooling, global average pooling, flatten.
#pragma once

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

class ReLU : public Layer {
public:
  explicit ReLU(std::string name) : Layer(std::move(name)) {}
  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) override;
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool needInputGradient,
                          poplar::program::Sequence &prog) override;

private:
  poplar::Tensor output_;
};

/// Square max pooling with stride and symmetric padding over [B][C][H][W].
class MaxPool2d : public Layer {
public:
  MaxPool2d(std::string name, unsigned kernel, unsigned stride, unsigned padding)
      : Layer(std::move(name)), kernel_(kernel), stride_(stride), padding_(padding) {}
  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) override;
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool needInputGradient,
                          poplar::program::Sequence &prog) override;

private:
  unsigned kernel_, stride_, padding_;
  poplar::Tensor input_, output_;
};

/// [B][C][fields…] → [B][C]: the mean over the field.
class GlobalAvgPool : public Layer {
public:
  explicit GlobalAvgPool(std::string name) : Layer(std::move(name)) {}
  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) override;
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool needInputGradient,
                          poplar::program::Sequence &prog) override;

private:
  std::vector<std::size_t> inputShape_;
  poplar::Tensor input_;
};

/// [B][…] → [B][product of the rest]: a view, no copy.
class Flatten : public Layer {
public:
  explicit Flatten(std::string name) : Layer(std::move(name)) {}
  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) override;
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool needInputGradient,
                          poplar::program::Sequence &prog) override;

private:
  std::vector<std::size_t> inputShape_;
};

} // namespace tessera::apps
