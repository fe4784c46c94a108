// 2-D convolution [B][inChannels][H][W] → [B][outChannels][H'][W'] with square kernel, stride
// and symmetric padding, He-normal initialised weights [1][out][in][k][k] and an optional bias.
#pragma once

#include <optional>

#include <poplin/ConvParams.hpp>
#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

struct Conv2dOptions {
  std::size_t inChannels = 0, outChannels = 0;
  unsigned kernel = 3, stride = 1, padding = 1;
  bool bias = false;
};

class Conv2d : public Layer {
public:
  Conv2d(std::string name, Conv2dOptions options);

  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) override;
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool needInputGradient,
                          poplar::program::Sequence &prog) override;

private:
  poplin::ConvParams paramsFor(const poplar::Tensor &x, poplar::Type type) const;
  void createParameters(BuildContext &ctx, const poplin::ConvParams &params);

  poplar::Graph *graph_ = nullptr; // the tile window this layer's passes run on
  Conv2dOptions options_;
  Parameter *weights_ = nullptr;
  Parameter *bias_ = nullptr;
  std::optional<poplin::ConvParams> params_;
  poplar::Tensor input_; // of the last Training forward
};

} // namespace tessera::apps
