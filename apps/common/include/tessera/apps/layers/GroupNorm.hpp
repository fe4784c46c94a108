// Group normalisation (Wu & He 2018) over [B][C][fields…]: each sample's channels split into
// `groups` contiguous groups, each normalised by its own mean and variance over its channels and
// the field, then scaled and shifted per channel (γ, β). Independent of the batch, so Training
// and Inference compute the same thing — Graphcore's baseline norm for EfficientNet on IPUs,
// where micro-batches are small. groups == 1 is layer norm over a sample's channels and field.
#pragma once

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

class GroupNorm : public Layer {
public:
  /// Throws cli_error naming the layer when `groups` is 0 or does not divide `channels`.
  GroupNorm(std::string name, std::size_t channels, std::size_t groups, float eps = 1e-5f);

  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) override;
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool needInputGradient,
                          poplar::program::Sequence &prog) override;

private:
  poplar::Graph *graph_ = nullptr; // where the input lives (see BuildContext::graphHolding)
  std::size_t channels_, groups_;
  float eps_;
  Parameter *gamma_ = nullptr, *beta_ = nullptr;
  poplar::Tensor whitened_, invStdDev_; // of the last Training forward
};

} // namespace tessera::apps
