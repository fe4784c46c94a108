// Batch normalisation over [B][C][fields…]: Training mode normalises with the batch's statistics
// and updates running mean / variance (momentum, as PyTorch's BatchNorm2d: running = (1 - m) ·
// running + m · batch, unbiased variance); Inference mode uses the running statistics.
#pragma once

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

class BatchNorm : public Layer {
public:
  BatchNorm(std::string name, std::size_t channels, float momentum = 0.1f, float eps = 1e-5f,
            float gammaInit = 1.0f);

  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) override;
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool needInputGradient,
                          poplar::program::Sequence &prog) override;

private:
  void createParameters(BuildContext &ctx, const poplar::Tensor &x);

  poplar::Graph *graph_ = nullptr; // where the input lives (see BuildContext::graphHolding)
  std::size_t channels_;
  float momentum_, eps_, gammaInit_;
  Parameter *gamma_ = nullptr, *beta_ = nullptr;
  poplar::Tensor runningMean_, runningVar_;
  poplar::Tensor whitened_, invStdDev_; // of the last Training forward
};

} // namespace tessera::apps
