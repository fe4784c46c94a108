// Squeeze-and-excitation (Hu et al. 2018) over [B][C][H][W], as EfficientNet's MBConv blocks use
// it: each sample re-weights its channels by a gate computed from their global averages.
//   s = mean over H×W of x                 [B][C]    (squeeze)
//   r = swish(s · W1 + b1),  W1 [C][Cr]    [B][Cr]   (reduce)
//   e = sigmoid(r · W2 + b2), W2 [Cr][C]   [B][C]    (expand, gate)
//   y = x · e, e broadcast over H×W                  (excite)
// The two projections are Dense layers named "<name>/reduce" and "<name>/expand" (parameters
// "<name>/reduce/weights", "…/bias", "<name>/expand/weights", "…/bias"); backward fills all four
// gradients and returns dL/dx = gy · e + (Σ_{H×W} gy · x pushed back through the gate and the
// projections) / (H·W), the second term spread evenly over each channel's field.
#pragma once

#include <tessera/apps/layers/Activations.hpp>
#include <tessera/apps/layers/Dense.hpp>

namespace tessera::apps {

struct SqueezeExciteOptions {
  std::size_t channels = 0;        ///< C, the input's dimension 1
  std::size_t reducedChannels = 0; ///< Cr, the bottleneck width (EfficientNet: block input / 4)
};

class SqueezeExcite : public Layer {
public:
  /// Throws cli_error naming the layer when either channel count is 0.
  SqueezeExcite(std::string name, SqueezeExciteOptions options);
  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) override;
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool needInputGradient,
                          poplar::program::Sequence &prog) override;

private:
  SqueezeExciteOptions options_;
  Dense reduce_, expand_;
  Swish activation_;
  Sigmoid gate_;
  poplar::Tensor input_, gate4_; // x and e as [B][C][1][1], of the last Training forward
};

} // namespace tessera::apps
