// 2-D convolution [B][inChannels][H][W] → [B][outChannels][H'][W'] with square kernel, stride
// and symmetric padding, He-normal initialised weights and an optional bias. With `groups` > 1
// the channels split into that many independent convolutions (poplin's conv groups), weights
// [groups][out/groups][in/groups][k][k]; groups == inChannels == outChannels is a depthwise
// convolution, the spatial filter of EfficientNet's and MobileNet's inverted bottlenecks.
#pragma once

#include <optional>

#include <poplin/ConvParams.hpp>
#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

struct Conv2dOptions {
  std::size_t inChannels = 0, outChannels = 0;
  unsigned kernel = 3, stride = 1, padding = 1;
  bool bias = false;
  /// Both channel counts must be multiples of it (else the constructor throws cli_error).
  std::size_t groups = 1;
};

class Conv2d : public Layer {
public:
  /// Throws cli_error naming the layer when `groups` is 0 or does not divide both channel counts.
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
