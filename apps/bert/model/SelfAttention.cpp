#include "model/SelfAttention.hpp"

#include <cmath>

#include <poplin/MatMul.hpp>
#include <popnn/NonLinearity.hpp>
#include <popops/Cast.hpp>
#include <popops/ElementWise.hpp>

#include <tessera/apps/Errors.hpp>

namespace tessera::bert {
namespace pe = popops::expr;

SelfAttention::SelfAttention(apps::BuildContext &ctx, std::string name, AttentionShape shape,
                             float dropout, float initStdDev, const poplar::Tensor &dropoutSeed)
    : name_(std::move(name)), shape_(shape),
      qkv_(name_ + "/qkv", shape.hidden, 3 * shape.hidden, initStdDev),
      output_(name_ + "/output", shape.hidden, shape.hidden, initStdDev),
      probabilityDropout_(ctx, name_ + "/probabilityDropout", dropout, dropoutSeed) {
  if (shape.heads == 0 || shape.hidden % shape.heads != 0)
    throw apps::app_error("attention '" + name_ + "': " + std::to_string(shape.heads) +
                          " heads do not divide hidden size " + std::to_string(shape.hidden));
}

poplar::Tensor SelfAttention::toGroups(const poplar::Tensor &rows) const {
  const auto &s = shape_;
  return rows.reshape({s.batch, s.sequence, s.heads, s.headSize()})
      .dimShuffle({0, 2, 1, 3})
      .reshape({s.groups(), s.sequence, s.headSize()});
}

poplar::Tensor SelfAttention::toRows(const poplar::Tensor &groups) const {
  const auto &s = shape_;
  return groups.reshape({s.batch, s.heads, s.sequence, s.headSize()})
      .dimShuffle({0, 2, 1, 3})
      .reshape({s.tokens(), s.hidden});
}

poplar::Tensor SelfAttention::forward(apps::BuildContext &ctx, const poplar::Tensor &x,
                                      const poplar::Tensor &maskBias, apps::Mode mode,
                                      poplar::program::Sequence &prog) {
  const auto &s = shape_;
  if (maskBias.shape() != std::vector<std::size_t>{s.batch, s.sequence, s.sequence})
    throw apps::app_error("attention '" + name_ +
                          "': the mask must be [batch][sequence][sequence]");
  poplar::Graph &g = ctx.graph;
  const std::size_t H = s.hidden;
  poplar::Tensor qkv = qkv_.forward(ctx, x, mode, prog); // [B·S][3H]
  poplar::Tensor q = toGroups(qkv.slice(0, H, 1));
  poplar::Tensor k = toGroups(qkv.slice(H, 2 * H, 1));
  poplar::Tensor v = toGroups(qkv.slice(2 * H, 3 * H, 1));

  poplar::Tensor scores = poplin::matMulGrouped(
      g, q, k.dimShuffle({0, 2, 1}), prog, ctx.partialsType, name_ + "/scores", ctx.matMulOptions,
      &ctx.planningCache); // [B·heads][S][S]
  // Scale and mask in one pass; the mask is a view repeated over the heads.
  const float scale = 1.0f / std::sqrt(float(s.headSize()));
  poplar::Tensor maskPerHead = maskBias.reshape({s.batch, 1, s.sequence, s.sequence})
                                   .broadcast(unsigned(s.heads), 1)
                                   .reshape({s.groups(), s.sequence, s.sequence});
  popops::mapInPlace(g, pe::_1 * pe::Const(scale) + pe::Cast(pe::_2, scores.elementType()),
                     {scores, maskPerHead}, prog, name_ + "/scaleAndMask");
  poplar::Tensor probabilities = popnn::nonLinearity(g, popnn::NonLinearityType::SOFTMAX_STABLE,
                                                     scores, prog, name_ + "/softmax");
  poplar::Tensor dropped = probabilityDropout_.forward(ctx, probabilities, mode, prog);
  // The probabilities are of the partials' type; with HALF activations they meet V in HALF.
  if (dropped.elementType() != v.elementType())
    dropped = popops::cast(g, dropped, v.elementType(), prog, name_ + "/probabilitiesCast");
  poplar::Tensor context =
      poplin::matMulGrouped(g, dropped, v, prog, x.elementType(), name_ + "/context",
                            ctx.matMulOptions, &ctx.planningCache);
  if (mode == apps::Mode::Training) {
    queries_ = q;
    keys_ = k;
    values_ = v;
    probabilities_ = probabilities;
    droppedProbabilities_ = dropped;
  }
  return output_.forward(ctx, toRows(context), mode, prog);
}

poplar::Tensor SelfAttention::backward(apps::BuildContext &ctx, const poplar::Tensor &gradOut,
                                       poplar::program::Sequence &prog) {
  poplar::Graph &g = ctx.graph;
  const poplar::Type type = gradOut.elementType();
  auto grouped = [&](const poplar::Tensor &a, const poplar::Tensor &b, const char *what) {
    return poplin::matMulGrouped(g, a, b, prog, type, name_ + "/" + what, ctx.matMulOptions,
                                 &ctx.planningCache);
  };
  poplar::Tensor contextGrad = toGroups(output_.backward(ctx, gradOut, true, prog));
  // context = P'·V: dP' = dContext·Vᵀ, dV = P'ᵀ·dContext.
  poplar::Tensor droppedGrad =
      poplin::matMulGrouped(g, contextGrad, values_.dimShuffle({0, 2, 1}), prog, ctx.partialsType,
                            name_ + "/probGrad", ctx.matMulOptions, &ctx.planningCache);
  poplar::Tensor valueGrad =
      grouped(droppedProbabilities_.dimShuffle({0, 2, 1}), contextGrad, "valueGrad");
  poplar::Tensor probGrad = probabilityDropout_.backward(ctx, droppedGrad, prog);
  poplar::Tensor scoreGrad =
      popnn::nonLinearityInputGradient(g, popnn::NonLinearityType::SOFTMAX_STABLE, probabilities_,
                                       probGrad, prog, name_ + "/softmaxGrad");
  // scores = s·Q·Kᵀ: dQ = s·dScores·K, dK = s·dScoresᵀ·Q (s folded into dScores once).
  const float scale = 1.0f / std::sqrt(float(shape_.headSize()));
  popops::mulInPlace(g, scoreGrad, scale, prog, name_ + "/scaleGrad");
  poplar::Tensor scoreGradTyped =
      scoreGrad.elementType() == type ? scoreGrad : popops::cast(g, scoreGrad, type, prog);
  poplar::Tensor queryGrad = grouped(scoreGradTyped, keys_, "queryGrad");
  poplar::Tensor keyGrad = grouped(scoreGradTyped.dimShuffle({0, 2, 1}), queries_, "keyGrad");
  poplar::Tensor qkvGrad =
      poplar::concat({toRows(queryGrad), toRows(keyGrad), toRows(valueGrad)}, 1);
  return qkv_.backward(ctx, qkvGrad, true, prog);
}

} // namespace tessera::bert
