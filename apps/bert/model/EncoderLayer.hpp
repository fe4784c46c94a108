// One post-norm transformer encoder layer as BERT has it:
//   a = LayerNorm(x + dropout(SelfAttention(x)))
//   y = LayerNorm(a + dropout(W2 · GELU(W1 · a + b1) + b2))
// GELU is the tanh approximation (popnn's GELU), as Graphcore's BERT used.
#pragma once

#include <tessera/apps/layers/Dropout.hpp>

#include "model/BertConfig.hpp"
#include "model/Linear.hpp"
#include "model/SelfAttention.hpp"
#include "model/TokenLayerNorm.hpp"

namespace tessera::bert {

class EncoderLayer {
public:
  EncoderLayer(apps::BuildContext &ctx, std::string name, const BertConfig &config,
               std::size_t batch, const poplar::Tensor &dropoutSeed);
  poplar::Tensor forward(apps::BuildContext &ctx, const poplar::Tensor &x,
                         const poplar::Tensor &maskBias, apps::Mode mode,
                         poplar::program::Sequence &prog);
  poplar::Tensor backward(apps::BuildContext &ctx, const poplar::Tensor &gradOut,
                          poplar::program::Sequence &prog);

private:
  std::string name_;
  SelfAttention attention_;
  apps::DropoutSite attentionDropout_;
  TokenLayerNorm attentionNorm_;
  Linear intermediate_, output_;
  apps::DropoutSite outputDropout_;
  TokenLayerNorm outputNorm_;
  poplar::Tensor intermediateInput_; // GELU's input, for its gradient
};

} // namespace tessera::bert
