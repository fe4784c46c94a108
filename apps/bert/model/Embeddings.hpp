// BERT's input embeddings: token + position + segment rows looked up with popops::multiSlice,
// summed, layer-normalised and dropped out. Gradients reach the tables through
// popops::multiUpdateAdd, so only the rows a batch used are touched. The token table is shared
// with the masked-LM head, which writes its dense part of the table's gradient first
// (tokenTableGradient()); backward() then adds the lookups' part.
#pragma once

#include <tessera/apps/layers/Dropout.hpp>

#include "model/BertConfig.hpp"
#include "model/TokenLayerNorm.hpp"

namespace tessera::bert {

struct TokenInputs {
  poplar::Tensor tokenIds;    ///< UNSIGNED_INT [B·S]
  poplar::Tensor positionIds; ///< UNSIGNED_INT [B·S]
  poplar::Tensor segmentIds;  ///< UNSIGNED_INT [B·S]
};

class Embeddings {
public:
  Embeddings(apps::BuildContext &ctx, std::string name, const BertConfig &config,
             std::size_t tokens, const poplar::Tensor &dropoutSeed);
  /// → [B·S][H]
  poplar::Tensor forward(apps::BuildContext &ctx, const TokenInputs &inputs, apps::Mode mode,
                         poplar::program::Sequence &prog);
  /// Adds the lookups' gradients to the three tables' gradients (the token table's after the
  /// masked-LM head has written its part).
  void backward(apps::BuildContext &ctx, const poplar::Tensor &gradOut,
                poplar::program::Sequence &prog);

  /// [vocab][H], also the masked-LM head's output weights.
  const poplar::Tensor &tokenTable() const { return token_->value; }
  /// [vocab][H] gradient of the token table; the masked-LM head initialises it.
  const poplar::Tensor &tokenTableGradient() const { return token_->gradient; }

private:
  struct Lookup {
    apps::Parameter *table = nullptr;
    poplar::Tensor offsets; // [T][1] of the last Training forward
  };
  poplar::Tensor lookUp(apps::BuildContext &ctx, Lookup &lookup, const poplar::Tensor &ids,
                        apps::Mode mode, poplar::program::Sequence &prog, const char *what);
  void scatterGradient(apps::BuildContext &ctx, const Lookup &lookup, const poplar::Tensor &grad,
                       bool zeroFirst, poplar::program::Sequence &prog, const char *what);

  std::string name_;
  std::size_t tokens_, hidden_;
  apps::Parameter *token_ = nullptr;
  Lookup tokenLookup_, positionLookup_, segmentLookup_;
  TokenLayerNorm norm_;
  apps::DropoutSite dropout_;
  poplar::Tensor one_; // multiUpdateAdd's scale
};

} // namespace tessera::bert
