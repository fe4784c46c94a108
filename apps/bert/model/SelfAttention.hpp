// Multi-head self-attention over token rows [B·S][H]: one projection to queries, keys and
// values ([H][3H]), the heads as the groups of poplin::matMulGrouped (B·heads groups of
// [S][S] scores), the scaled scores plus an additive mask, a softmax over keys, dropout on the
// probabilities, the weighted values, and the output projection [H][H].
//
//   scores = Q·Kᵀ / √d + mask,  P = softmax(scores),  context = dropout(P)·V,  out = context·Wo +
//   bo
//
// The mask bias [B][S][S] is 0 where a query may see a key and a large negative number where it
// may not (padding, or another sequence of a packed row); it is shared by every head.
#pragma once

#include <memory>

#include <tessera/apps/layers/Dropout.hpp>
#include <tessera/apps/layers/Layer.hpp>

#include "model/Linear.hpp"

namespace tessera::bert {

struct AttentionShape {
  std::size_t batch = 0, sequence = 0, hidden = 0, heads = 0;
  std::size_t headSize() const { return hidden / heads; }
  std::size_t tokens() const { return batch * sequence; }
  std::size_t groups() const { return batch * heads; }
};

class SelfAttention {
public:
  /// `dropoutSeed` drives the attention-probability dropout (probability `dropout`).
  SelfAttention(apps::BuildContext &ctx, std::string name, AttentionShape shape, float dropout,
                float initStdDev, const poplar::Tensor &dropoutSeed);

  /// x [B·S][H], maskBias FLOAT [B][S][S] → [B·S][H] (before the block's dropout and residual).
  poplar::Tensor forward(apps::BuildContext &ctx, const poplar::Tensor &x,
                         const poplar::Tensor &maskBias, apps::Mode mode,
                         poplar::program::Sequence &prog);
  /// dL/d(output) → dL/dx; fills the projections' parameter gradients.
  poplar::Tensor backward(apps::BuildContext &ctx, const poplar::Tensor &gradOut,
                          poplar::program::Sequence &prog);

private:
  // [B·S][H] token rows ↔ [B·heads][S][d] groups, both as views.
  poplar::Tensor toGroups(const poplar::Tensor &rows) const;
  poplar::Tensor toRows(const poplar::Tensor &groups) const;

  std::string name_;
  AttentionShape shape_;
  Linear qkv_, output_;
  apps::DropoutSite probabilityDropout_;
  // Saved by the Training forward.
  poplar::Tensor queries_, keys_, values_, probabilities_, droppedProbabilities_;
};

} // namespace tessera::bert
