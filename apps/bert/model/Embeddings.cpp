#include "model/Embeddings.hpp"

#include <popops/DynamicSlice.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Zero.hpp>
#include <poputil/TileMapping.hpp>

#include "model/Parameters.hpp"

namespace tessera::bert {

namespace {
constexpr std::size_t kSegments = 2;

apps::Parameter &addTable(apps::BuildContext &ctx, const std::string &name, std::size_t rows,
                          std::size_t hidden, float stdDev) {
  // Laid out for lookups: each tile holds some columns of every row, at least kTableColumns of
  // them, so the gradient scatter brings each tile its columns of every token in pieces of
  // kTableColumns elements (at one vector's worth, 64 tiles × 2048 pieces of 16 bytes made the
  // three scatters cost 8 ms a step of mini).
  constexpr std::size_t kTableColumns = 64;
  poplar::Tensor t = popops::createSliceableTensor(ctx.graph, ctx.dataType, {rows, hidden}, {0},
                                                   {1}, kTableColumns, name);
  apps::Parameter &p = registerNormalWeight(ctx, name, t, stdDev);
  p.gradient = ctx.graph.clone(t, name + "/gradient");
  return p;
}
} // namespace

Embeddings::Embeddings(apps::BuildContext &ctx, std::string name, const BertConfig &config,
                       std::size_t tokens, const poplar::Tensor &dropoutSeed)
    : name_(std::move(name)), tokens_(tokens), hidden_(config.hidden),
      norm_(name_ + "/norm", config.hidden, config.layerNormEpsilon),
      dropout_(ctx, name_ + "/dropout", config.hiddenDropout, dropoutSeed) {
  const std::size_t H = config.hidden;
  token_ = &addTable(ctx, name_ + "/token", config.vocabSize, H, config.initStdDev);
  tokenLookup_.table = token_;
  positionLookup_.table =
      &addTable(ctx, name_ + "/position", config.maxPositions, H, config.initStdDev);
  segmentLookup_.table = &addTable(ctx, name_ + "/segment", kSegments, H, config.initStdDev);
  one_ = ctx.graph.addConstant(ctx.dataType, {}, 1.0f, name_ + "/one");
  ctx.graph.setTileMapping(one_, 0);
}

poplar::Tensor Embeddings::lookUp(apps::BuildContext &ctx, Lookup &lookup,
                                  const poplar::Tensor &ids, apps::Mode mode,
                                  poplar::program::Sequence &prog, const char *what) {
  poplar::Tensor offsets = ids.reshape({tokens_, 1});
  if (mode == apps::Mode::Training)
    lookup.offsets = offsets;
  return popops::multiSlice(ctx.graph, lookup.table->value, offsets, {0}, {1}, prog,
                            popops::SlicePlan(), {}, name_ + "/" + what + "Lookup")
      .reshape({tokens_, hidden_});
}

poplar::Tensor Embeddings::forward(apps::BuildContext &ctx, const TokenInputs &inputs,
                                   apps::Mode mode, poplar::program::Sequence &prog) {
  poplar::Graph &g = ctx.graph;
  poplar::Tensor sum = lookUp(ctx, tokenLookup_, inputs.tokenIds, mode, prog, "token");
  poplar::Tensor position =
      lookUp(ctx, positionLookup_, inputs.positionIds, mode, prog, "position");
  poplar::Tensor segment = lookUp(ctx, segmentLookup_, inputs.segmentIds, mode, prog, "segment");
  // The lookups come out laid out like the tables, a few columns of every token per tile; the
  // encoder works token by token, so the sum is written to whole tokens spread over the tiles.
  poplar::Tensor summed = g.addVariable(ctx.dataType, {tokens_, hidden_}, name_ + "/sum");
  poputil::mapTensorLinearly(g, summed, 0, hidden_);
  namespace pe = popops::expr;
  popops::mapWithOutput(g, pe::_1 + pe::_2 + pe::_3, {sum, position, segment}, summed, prog,
                        name_ + "/sum");
  poplar::Tensor normalised = norm_.forward(ctx, summed, mode, prog);
  return dropout_.forward(ctx, normalised, mode, prog);
}

void Embeddings::scatterGradient(apps::BuildContext &ctx, const Lookup &lookup,
                                 const poplar::Tensor &grad, bool zeroFirst,
                                 poplar::program::Sequence &prog, const char *what) {
  const poplar::Tensor &tableGrad = lookup.table->gradient;
  if (zeroFirst)
    popops::zero(ctx.graph, tableGrad, prog, name_ + "/" + what + "GradZero");
  popops::multiUpdateAdd(ctx.graph, tableGrad, grad.reshape({tokens_, 1, hidden_}), lookup.offsets,
                         one_, {0}, {1}, prog, popops::SlicePlan(), {},
                         name_ + "/" + what + "Grad");
}

void Embeddings::backward(apps::BuildContext &ctx, const poplar::Tensor &gradOut,
                          poplar::program::Sequence &prog) {
  poplar::Tensor grad = dropout_.backward(ctx, gradOut, prog);
  grad = norm_.backward(ctx, grad, prog);
  scatterGradient(ctx, tokenLookup_, grad, false, prog, "token");
  scatterGradient(ctx, positionLookup_, grad, true, prog, "position");
  scatterGradient(ctx, segmentLookup_, grad, true, prog, "segment");
}

} // namespace tessera::bert
