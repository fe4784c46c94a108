// Layer norm followed by a proxy-normalised swish (Labatie et al. 2021, "Proxy-Normalizing
// Activations to Match Batch Normalization while Removing Batch Dependence"), the batch-free
// replacement of "batch norm → swish" that Graphcore trained EfficientNet with on IPUs.
// Over [B][C][fields…]:
//   x̂ = (x − mean) / sqrt(var + eps)       each sample over all its channels and field
//   y = γ_c · x̂ + β_c,  a = swish(y)
//   out = (a − μ_c) / sqrt(v_c + eps)
// where μ_c and v_c are the mean and variance of swish(γ_c · Z + β_c) for Z ~ N(0, 1): what
// batch norm would have seen had x̂ been Gaussian. They come from fixed Gaussian quantiles
// z_k = Φ⁻¹((k + ½) / K), never from the batch, so Training and Inference compute the same
// thing; gradients reach γ and β through both the activation and the proxy statistics.
#pragma once

#include <vector>

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

struct ProxyNormOptions {
  std::size_t channels = 0;
  std::size_t quantiles = 32; ///< K, the proxy's points
  float eps = 1e-5f;
};

/// Φ⁻¹((k + ½) / K) for k = 0 … K−1: the proxy's points, symmetric about 0.
std::vector<float> gaussianQuantiles(std::size_t count);

class LayerProxyNorm : public Layer {
public:
  /// Throws cli_error naming the layer when channels or quantiles is 0.
  LayerProxyNorm(std::string name, ProxyNormOptions options);

  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) override;
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool needInputGradient,
                          poplar::program::Sequence &prog) override;

private:
  /// [C] as a view broadcast over `like` ([B][C][fields…]).
  poplar::Tensor perChannelView(const poplar::Tensor &c, const poplar::Tensor &like) const;

  ProxyNormOptions options_;
  poplar::Graph *graph_ = nullptr;
  Parameter *gamma_ = nullptr, *beta_ = nullptr;
  poplar::Tensor quantiles_, ones_; // [C][K] and [C] constants
  // Of the last Training forward.
  poplar::Tensor whitened_, invStdDev_, preActivation_, output_;
  poplar::Tensor proxyPre_, proxyMean_, proxyInvStd_; // [C][K], [C], [C]
};

} // namespace tessera::apps
