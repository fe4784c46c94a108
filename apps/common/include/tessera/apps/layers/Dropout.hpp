// Element-wise dropout: in Training each element is kept with probability 1 − rate and scaled
// by 1 / (1 − rate), else zeroed, so the expected output is the input; Inference, and rate 0,
// is the identity. Masks come from poprand's counter-based generator: a pure function of a seed
// tensor, a fixed per-site seed modifier and each element's index, so the backward pass
// regenerates the forward mask instead of storing it, and a run is bit-identical for any thread
// count or tile layout.
#pragma once

#include <cstdint>
#include <optional>

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

/// Throws cli_error naming `layer` unless 0 <= rate < 1 (a rate of 1 would drop everything and
/// scale by infinity). Shared by the layers that drop with a probability.
void checkDropRate(const std::string &layer, float rate);

/// One dropout site driven by a caller-owned seed: for models that are not a chain of Layers
/// (BERT's encoder drops inside attention and between its sub-blocks).
class DropoutSite {
public:
  /// `seed`: UNSIGNED_INT [2], changed by the trainer every step. The seed modifier is drawn
  /// from `ctx` here, so sites built in the same order get the same masks.
  DropoutSite(BuildContext &ctx, std::string name, float probability, const poplar::Tensor &seed);
  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) const;
  /// The gradient through the mask of the last Training forward (same shape as its input).
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut,
                          poplar::program::Sequence &prog) const;

private:
  std::string name_;
  float probability_;
  poplar::Tensor seed_;
  std::uint32_t seedModifier_;
};

/// Dropout as a layer, seeded by the BuildContext's stepSeed() (which the trainer advances
/// after every training step). Any shape, FLOAT or HALF.
class Dropout : public Layer {
public:
  /// `rate`: the probability of dropping an element, in [0, 1) (else cli_error naming the layer).
  Dropout(std::string name, float rate);
  poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                         poplar::program::Sequence &prog) override;
  poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut, bool needInputGradient,
                          poplar::program::Sequence &prog) override;

private:
  float rate_;
  std::optional<DropoutSite> site_; // from the first Training forward; never with rate 0
  bool trained_ = false;            // a Training forward has run
};

} // namespace tessera::apps
