#include "NormCore.hpp"

#include <cmath>
#include <tuple>

#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <poputil/TileMapping.hpp>

#include "ColumnNorm.hpp"
#include "NnChecks.hpp"
#include "RowAffine.hpp"
#include "RowSums.hpp"

namespace popnn::detail {
namespace {
using namespace popops::expr;
using popops::Operation;

/// acts as [B * C][F] rows.
poplar::Tensor rowsView(const poplar::Tensor &acts) {
  const std::size_t rows = acts.dim(0) * acts.dim(1);
  return acts.reshape({rows, acts.numElements() / rows});
}

/// A per-channel [C] tensor as a [B][C] view.
poplar::Tensor channelRows(const poplar::Tensor &perChannel, std::size_t batch) {
  return perChannel.reshape({1, perChannel.numElements()})
      .broadcast(static_cast<unsigned>(batch), 0);
}

/// Evaluates `e` over [B][C] operands into a new [B * C] FLOAT tensor (small: one value per row).
poplar::Tensor rowCoefficients(poplar::Graph &graph, const Expr &e,
                               const std::vector<poplar::Tensor> &operands,
                               const poplar::Tensor &acts, poplar::program::Sequence &prog,
                               const poplar::DebugContext &dc) {
  const std::size_t b = acts.dim(0), c = acts.dim(1);
  poplar::Tensor out = graph.addVariable(poplar::FLOAT, {b * c}, dc);
  poputil::mapTensorLinearly(graph, out);
  popops::mapWithOutput(graph, e, operands, out.reshape({b, c}), prog, dc);
  return out;
}

bool useRowVertices(const poplar::Tensor &acts) { return acts.elementType() == poplar::FLOAT; }

/// Group norms with consecutive channels per group (layer norm among them): each statistic covers
/// one contiguous [C/G * F] block of one sample, so the fused passes take one row per statistic.
bool contiguousStats(const NormLayout &layout) {
  return layout.kind == NormLayout::Kind::GROUP && !layout.strided;
}

/// Rank-2 acts ([B][C], one element per channel): per-channel coefficients go along the rows.
bool channelsAlongRows(const poplar::Tensor &acts) {
  return acts.numElements() == acts.dim(0) * acts.dim(1);
}

/// The rows the fused passes work on: one per statistic ([B*G][C/G*F]) for contiguousStats
/// layouts, else acts' rows view ([B*C][F]).
poplar::Tensor fusedRows(const NormLayout &layout, const poplar::Tensor &t) {
  if (!contiguousStats(layout))
    return rowsView(t);
  const std::size_t rows = t.dim(0) * layout.groups;
  return t.reshape({rows, t.numElements() / rows});
}

/// The statistics of `layout` as the fused reductions see them: one per row of fusedRows.
RowStats rowStats(const NormLayout &layout, const poplar::Tensor &acts) {
  std::size_t numStats = 1;
  for (auto d : layout.statShape(acts))
    numStats *= d;
  if (contiguousStats(layout))
    return {numStats, [](std::size_t row) { return row; }};
  return {numStats, [layout, acts](std::size_t row) { return layout.statOfRow(row, acts); }};
}

/// Σx and Σx·y (Σx² when y is invalid) per statistic of `layout`, from one read of the rows.
StatSums statSums(poplar::Graph &graph, const NormLayout &layout, const poplar::Tensor &x,
                  const poplar::Tensor &y, poplar::program::Sequence &prog,
                  const poplar::DebugContext &dc) {
  return rowSums(graph, fusedRows(layout, x), y.valid() ? fusedRows(layout, y) : poplar::Tensor(),
                 rowStats(layout, x), prog, dc);
}

/// Evaluates `e` over per-statistic operands (each flat [numStats]) into one FLOAT coefficient
/// per row of fusedRows(layout, acts).
poplar::Tensor statCoefficients(poplar::Graph &graph, const NormLayout &layout, const Expr &e,
                                const std::vector<poplar::Tensor> &stats,
                                const poplar::Tensor &acts, poplar::program::Sequence &prog,
                                const poplar::DebugContext &dc) {
  if (contiguousStats(layout)) {
    poplar::Tensor out = graph.addVariable(poplar::FLOAT, {stats.front().numElements()}, dc);
    poputil::mapTensorLinearly(graph, out);
    std::vector<poplar::Tensor> flat;
    for (const auto &s : stats)
      flat.push_back(s.flatten());
    popops::mapWithOutput(graph, e, flat, out, prog, dc);
    return out;
  }
  std::vector<poplar::Tensor> rows;
  for (const auto &s : stats)
    rows.push_back(layout.statRows(s, acts));
  return rowCoefficients(graph, e, rows, acts, prog, dc);
}

/// Whether batch norm over `acts` takes channelMajorRows: FLOAT acts stored channel by channel.
bool useChannelMajorRows(const NormLayout &layout, const poplar::Tensor &acts) {
  return layout.kind == NormLayout::Kind::BATCH && useRowVertices(acts) && storedChannelMajor(acts);
}

/// One statistic per row (channelMajorRows).
RowStats perRowStats(std::size_t rows) {
  return {rows, [](std::size_t row) { return row; }};
}

/// Σx and Σx·y per channel (the parameter gradients' sums, whatever the norm's statistics).
StatSums channelSums(poplar::Graph &graph, const poplar::Tensor &x, const poplar::Tensor &y,
                     poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const std::size_t c = x.dim(1);
  if (storedChannelMajor(x))
    return rowSums(graph, channelMajorRows(x), channelMajorRows(y), perRowStats(c), prog, dc);
  return rowSums(graph, rowsView(x), rowsView(y), {c, [c](std::size_t row) { return row % c; }},
                 prog, dc);
}
/// A new tensor shaped and typed like `t` (empty when t is), mapped linearly.
poplar::Tensor newLike(poplar::Graph &graph, const poplar::Type &type,
                       const std::vector<std::size_t> &shape, const poplar::DebugContext &dc) {
  poplar::Tensor out = graph.addVariable(type, shape, dc);
  poputil::mapTensorLinearly(graph, out);
  return out;
}

/// Sets every element of `t` to `value` (nothing when t is empty).
void setAll(poplar::Graph &graph, const poplar::Tensor &t, float value,
            poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  if (t.numElements() != 0)
    popops::mapInPlace(graph, Select(Const(value), _1, Const(true)), {t}, prog, dc);
}
} // namespace

/// acts ([B][C][F…]) as one row per channel, [C][B * F]: the rows the batch-norm vertices take
/// when acts are stored channel by channel (as convolutions leave them), so each tile's share is
/// one run per tile rather than one per sample — a vertex per tile, not per (tile, sample).
poplar::Tensor channelMajorRows(const poplar::Tensor &acts) {
  const std::size_t b = acts.dim(0), c = acts.dim(1), f = acts.numElements() / (b * c);
  return acts.reshape({b, c, f}).dimShuffle({1, 0, 2}).reshape({c, b * f});
}

/// [C][B * F] rows back to acts' [B][C][F…] shape.
poplar::Tensor fromChannelMajorRows(const poplar::Tensor &rows, const poplar::Tensor &acts) {
  const std::size_t b = acts.dim(0), c = acts.dim(1), f = acts.numElements() / (b * c);
  return rows.reshape({c, b, f}).dimShuffle({1, 0, 2}).reshape(acts.shape());
}

bool storedChannelMajor(const poplar::Tensor &acts) {
  if (acts.rank() < 3 || acts.numElements() == acts.dim(0) * acts.dim(1))
    return false;
  return channelMajorRows(acts).getContiguousRegions().size() <
         rowsView(acts).getContiguousRegions().size();
}

poplar::Tensor channelView(const poplar::Tensor &acts) {
  const std::size_t b = acts.dim(0), c = acts.dim(1);
  return acts.reshape({b, c, acts.numElements() / (b * c)});
}

poplar::Tensor channelBroadcast(const poplar::Tensor &perChannel) {
  return perChannel.reshape({perChannel.numElements(), 1});
}

void NormLayout::check(const poplar::Tensor &acts, const std::string &name) const {
  requireFloatType(fn, name, acts);
  requireMinRank(fn, name, acts, 2);
  if (kind == Kind::GROUP && (groups == 0 || acts.dim(1) % groups != 0))
    fail(fn, name, acts,
         cat("has ", acts.dim(1), " channels, which numGroups = ", groups, " does not divide"));
}

poplar::Tensor NormLayout::view(const poplar::Tensor &t) const {
  const poplar::Tensor c = channelView(t);
  if (kind == Kind::BATCH)
    return c;
  const std::size_t b = c.dim(0), ch = c.dim(1), f = c.dim(2);
  if (!strided)
    return c.reshape({b, groups, ch / groups, f});
  return c.reshape({b, ch / groups, groups, f}).dimShuffle({0, 2, 1, 3});
}

std::vector<std::size_t> NormLayout::statDims() const {
  if (kind == Kind::BATCH)
    return {0, 2};
  return {2, 3};
}

std::vector<std::size_t> NormLayout::statShape(const poplar::Tensor &acts) const {
  if (kind == Kind::BATCH)
    return {acts.dim(1)};
  return {acts.dim(0) * groups};
}

poplar::Tensor NormLayout::broadcastStat(const poplar::Tensor &stat,
                                         const poplar::Tensor &acts) const {
  if (kind == Kind::BATCH)
    return stat.reshape({acts.dim(1), 1});
  return stat.reshape({acts.dim(0), groups, 1, 1});
}

poplar::Tensor NormLayout::statRows(const poplar::Tensor &stat, const poplar::Tensor &acts) const {
  const std::size_t b = acts.dim(0), c = acts.dim(1);
  if (kind == Kind::BATCH)
    return channelRows(stat, b);
  const unsigned perGroup = static_cast<unsigned>(c / groups);
  if (!strided)
    return stat.reshape({b, groups, 1}).broadcast(perGroup, 2).reshape({b, c});
  return stat.reshape({b, 1, groups}).broadcast(perGroup, 1).reshape({b, c});
}

std::size_t NormLayout::statOfRow(std::size_t row, const poplar::Tensor &acts) const {
  const std::size_t c = acts.dim(1), b = row / c, ch = row % c;
  if (kind == Kind::BATCH)
    return ch;
  if (strided)
    return b * groups + ch % groups;
  return b * groups + ch / (c / groups);
}

std::size_t NormLayout::statCount(const poplar::Tensor &acts) const {
  if (kind == Kind::BATCH)
    return acts.numElements() / acts.dim(1);
  return acts.numElements() / (acts.dim(0) * groups);
}

std::pair<poplar::Tensor, poplar::Tensor>
normStatistics(poplar::Graph &graph, const NormLayout &layout, const poplar::Tensor &acts,
               float eps, bool unbiasedVarEstimate, bool stableAlgo,
               poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  layout.check(acts, "acts");
  if (acts.numElements() == 0) {
    // Statistics over no elements: mean 0 and variance 0, so invStdDev = 1 / sqrt(eps); the
    // tensors have the usual shape, which is itself empty when there are no statistics.
    const auto shape = layout.statShape(acts);
    const poplar::Tensor mean = newLike(graph, acts.elementType(), shape, {dc, "mean"});
    const poplar::Tensor invStdDev = newLike(graph, acts.elementType(), shape, {dc, "invStdDev"});
    setAll(graph, mean, 0.0f, prog, {dc, "emptyMean"});
    setAll(graph, invStdDev, 1.0f / std::sqrt(eps), prog, {dc, "emptyInvStdDev"});
    return {mean, invStdDev};
  }
  const std::size_t n = layout.statCount(acts);
  const float invN = 1.0f / static_cast<float>(n);
  const float correction =
      unbiasedVarEstimate && n > 1 ? static_cast<float>(n) / static_cast<float>(n - 1) : 1.0f;
  const poplar::Tensor v = layout.view(acts);
  const auto dims = layout.statDims();
  poplar::Tensor mean, invStdDev;
  if (stableAlgo && useRowVertices(acts)) {
    // Σx, then Σ(x - mean)² over a centred copy: two fused reading passes and one writing pass.
    const StatSums sums = statSums(graph, layout, acts, {}, prog, {dc, "sum"});
    mean = popops::map(graph, _1 * invN, {sums.sumX}, prog, {dc, "mean"});
    const poplar::Tensor centred =
        rowAffine(
            graph, fusedRows(layout, acts), {},
            statCoefficients(graph, layout, _1 * 0.0f + 1.0f, {mean}, acts, prog, {dc, "one"}), {},
            statCoefficients(graph, layout, -_1, {mean}, acts, prog, {dc, "minusMean"}), prog,
            {dc, "centred"})
            .reshape(acts.shape());
    const StatSums sq = statSums(graph, layout, centred, {}, prog, {dc, "sumSquares"});
    invStdDev = popops::map(graph, Rsqrt(_1 * (invN * correction) + eps), {sq.sumXY}, prog,
                            {dc, "invStdDev"});
  } else if (useChannelMajorRows(layout, acts)) {
    // As below, over one row per channel.
    std::tie(mean, invStdDev) = rowMoments(graph, channelMajorRows(acts), perRowStats(acts.dim(1)),
                                           invN, eps, correction, prog, {dc, "moments"});
  } else if (useRowVertices(acts)) {
    // Σx and Σx² in one read, finished into mean and invStdDev by the reducing vertices (the
    // variance E[x^2] - E[x]^2 clamped at 0 against rounding).
    std::tie(mean, invStdDev) = rowMoments(graph, fusedRows(layout, acts), rowStats(layout, acts),
                                           invN, eps, correction, prog, {dc, "moments"});
  } else if (stableAlgo) {
    const poplar::Tensor sum = popops::reduce(graph, v, dims, Operation::ADD, prog, {dc, "sum"});
    mean = popops::map(graph, _1 * invN, {sum}, prog, {dc, "mean"});
    const poplar::Tensor centred =
        popops::map(graph, _1 - _2, {v, layout.broadcastStat(mean, acts)}, prog, {dc, "centred"});
    const poplar::Tensor sq =
        popops::reduce(graph, centred, dims, Operation::SQUARE_ADD, prog, {dc, "sumSquares"});
    invStdDev =
        popops::map(graph, Rsqrt(_1 * (invN * correction) + eps), {sq}, prog, {dc, "invStdDev"});
  } else {
    std::vector<poplar::Tensor> sums;
    popops::reduceMany(graph,
                       {popops::SingleReduceOp(v, dims, Operation::ADD, "sum"),
                        popops::SingleReduceOp(v, dims, Operation::SQUARE_ADD, "sumSquares")},
                       sums, prog, {dc, "moments"});
    mean = popops::map(graph, _1 * invN, {sums[0]}, prog, {dc, "mean"});
    // var = E[x^2] - E[x]^2, clamped at 0 against rounding.
    invStdDev = popops::map(
        graph, Rsqrt(Max(_2 * invN - Square(_1 * invN), Const(0.0f)) * correction + eps),
        {sums[0], sums[1]}, prog, {dc, "invStdDev"});
  }
  const auto shape = layout.statShape(acts);
  return {mean.reshape(shape), invStdDev.reshape(shape)};
}

poplar::Tensor normWhiten(poplar::Graph &graph, const NormLayout &layout,
                          const poplar::Tensor &acts, const poplar::Tensor &mean,
                          const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
                          const poplar::DebugContext &dc) {
  layout.check(acts, "acts");
  const auto shape = layout.statShape(acts);
  requireShape(layout.fn, "mean", mean, shape);
  requireShape(layout.fn, "invStdDev", invStdDev, shape);
  requireSameType(layout.fn, "mean", mean, acts.elementType());
  requireSameType(layout.fn, "invStdDev", invStdDev, acts.elementType());
  if (acts.numElements() == 0)
    return newLike(graph, acts.elementType(), acts.shape(), {dc, "whitened"});
  if (useRowVertices(acts)) {
    return rowAffine(graph, fusedRows(layout, acts), {},
                     statCoefficients(graph, layout, _1 + 0.0f, {invStdDev}, acts, prog,
                                      {dc, "whitenScale"}),
                     {},
                     statCoefficients(graph, layout, -_1 * _2, {mean, invStdDev}, acts, prog,
                                      {dc, "whitenShift"}),
                     prog, {dc, "whiten"})
        .reshape(acts.shape());
  }
  const poplar::Tensor w = popops::map(
      graph, (_1 - _2) * _3,
      {layout.view(acts), layout.broadcastStat(mean, acts), layout.broadcastStat(invStdDev, acts)},
      prog, {dc, "whiten"});
  // Back to acts' shape: undo the (possibly strided) grouping of the view.
  if (layout.kind == NormLayout::Kind::GROUP && layout.strided)
    return w.dimShuffle({0, 2, 1, 3}).reshape(acts.shape());
  return w.reshape(acts.shape());
}

std::pair<poplar::Tensor, poplar::Tensor>
normalise(poplar::Graph &graph, const NormLayout &layout, const poplar::Tensor &acts,
          const poplar::Tensor &gamma, const poplar::Tensor &beta, const poplar::Tensor &mean,
          const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
          const poplar::DebugContext &dc) {
  layout.check(acts, "acts");
  requireShape(layout.fn, "gamma", gamma, {acts.dim(1)});
  requireShape(layout.fn, "beta", beta, {acts.dim(1)});
  requireSameType(layout.fn, "gamma", gamma, acts.elementType());
  requireSameType(layout.fn, "beta", beta, acts.elementType());
  if (acts.numElements() == 0) {
    const poplar::Tensor w = normWhiten(graph, layout, acts, mean, invStdDev, prog, dc);
    return {newLike(graph, acts.elementType(), acts.shape(), {dc, "normalised"}), w};
  }
  if (useRowVertices(acts)) {
    // whitened and gamma * whitened + beta from one read of acts.
    const auto shape = layout.statShape(acts);
    requireShape(layout.fn, "mean", mean, shape);
    requireShape(layout.fn, "invStdDev", invStdDev, shape);
    requireSameType(layout.fn, "mean", mean, acts.elementType());
    requireSameType(layout.fn, "invStdDev", invStdDev, acts.elementType());
    const std::size_t b = acts.dim(0);
    if (useChannelMajorRows(layout, acts)) {
      auto [y, w] = rowNormalise(graph, channelMajorRows(acts), mean.flatten(), invStdDev.flatten(),
                                 gamma, beta, prog, {dc, "normalise"});
      return {fromChannelMajorRows(y, acts), fromChannelMajorRows(w, acts)};
    }
    if (contiguousStats(layout) && channelsAlongRows(acts)) {
      // [B][C]: γ and β go along the rows, each group's statistic covers C/G of a row.
      auto [y, w] = columnNormalise(graph, acts, mean, invStdDev, gamma, beta,
                                    acts.dim(1) / layout.groups, prog, {dc, "normalise"});
      return {y, w};
    }
    auto [y, w] =
        rowNormalise(graph, rowsView(acts), layout.statRows(mean, acts).flatten(),
                     layout.statRows(invStdDev, acts).flatten(), channelRows(gamma, b).flatten(),
                     channelRows(beta, b).flatten(), prog, {dc, "normalise"});
    return {y.reshape(acts.shape()), w.reshape(acts.shape())};
  }
  const poplar::Tensor w = normWhiten(graph, layout, acts, mean, invStdDev, prog, dc);
  const poplar::Tensor y = popops::map(
      graph, _1 * _2 + _3, {channelView(w), channelBroadcast(gamma), channelBroadcast(beta)}, prog,
      {dc, "affine"});
  return {y.reshape(acts.shape()), w};
}

std::pair<poplar::Tensor, poplar::Tensor>
normParamGradients(poplar::Graph &graph, const NormLayout &layout, const poplar::Tensor &whitened,
                   const poplar::Tensor &gradsIn, poplar::program::Sequence &prog,
                   const poplar::DebugContext &dc) {
  layout.check(whitened, "actsWhitened");
  requireShape(layout.fn, "gradsIn", gradsIn, whitened.shape());
  requireSameType(layout.fn, "gradsIn", gradsIn, whitened.elementType());
  if (whitened.numElements() == 0) {
    // Sums over no elements: zero per channel.
    const std::vector<std::size_t> shape{whitened.dim(1)};
    const poplar::Tensor gammaDelta =
        newLike(graph, whitened.elementType(), shape, {dc, "gammaDelta"});
    const poplar::Tensor betaDelta = newLike(graph, whitened.elementType(), shape, {dc, "betaDelta"});
    setAll(graph, gammaDelta, 0.0f, prog, {dc, "emptyGammaDelta"});
    setAll(graph, betaDelta, 0.0f, prog, {dc, "emptyBetaDelta"});
    return {gammaDelta, betaDelta};
  }
  if (useRowVertices(whitened)) {
    // Σ gradsIn * whitened and Σ gradsIn per channel in one read, no product materialised.
    const StatSums sums = contiguousStats(layout) && channelsAlongRows(whitened)
                              ? columnSums(graph, gradsIn, whitened, prog, {dc, "paramGradients"})
                              : channelSums(graph, gradsIn, whitened, prog, {dc, "paramGradients"});
    return {sums.sumXY, sums.sumX};
  }
  const poplar::Tensor g = channelView(gradsIn);
  const poplar::Tensor gw =
      popops::map(graph, _1 * _2, {g, channelView(whitened)}, prog, {dc, "gradsInTimesWhitened"});
  std::vector<poplar::Tensor> deltas;
  popops::reduceMany(graph,
                     {popops::SingleReduceOp(gw, {0, 2}, Operation::ADD, "gammaDelta"),
                      popops::SingleReduceOp(g, {0, 2}, Operation::ADD, "betaDelta")},
                     deltas, prog, {dc, "paramGradients"});
  return {deltas[0], deltas[1]};
}

poplar::Tensor normGradients(poplar::Graph &graph, const NormLayout &layout,
                             const poplar::Tensor &whitened, const poplar::Tensor &gradsIn,
                             const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                             poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  layout.check(whitened, "actsWhitened");
  requireShape(layout.fn, "gradsIn", gradsIn, whitened.shape());
  requireShape(layout.fn, "gamma", gamma, {whitened.dim(1)});
  requireShape(layout.fn, "invStdDev", invStdDev, layout.statShape(whitened));
  if (whitened.numElements() == 0)
    return newLike(graph, whitened.elementType(), whitened.shape(), {dc, "inputGradient"});
  const float invN = 1.0f / static_cast<float>(layout.statCount(whitened));
  // g = gradsIn * gamma; dx = invStdDev * (g - mean(g) - whitened * mean(g * whitened)).
  const bool rows = useRowVertices(whitened) && gradsIn.elementType() == poplar::FLOAT;
  const std::size_t batch = whitened.dim(0);
  if (rows && layout.kind == NormLayout::Kind::BATCH && gamma.elementType() == poplar::FLOAT &&
      invStdDev.elementType() == poplar::FLOAT) {
    // Per channel, mean(g) = gamma * mean(gradsIn), so with s = gamma * invStdDev:
    // dx = s * gradsIn - (s * Σ gradsIn·whitened / n) * whitened - s * Σ gradsIn / n. One fused
    // reading pass for both sums, one pass for dx, no full-size temporaries.
    const StatSums sums = channelSums(graph, gradsIn, whitened, prog, {dc, "gradientSums"});
    if (useChannelMajorRows(layout, gradsIn))
      return fromChannelMajorRows(rowNormGradient(graph, channelMajorRows(gradsIn),
                                                  channelMajorRows(whitened), gamma,
                                                  invStdDev.flatten(), sums.sumX, sums.sumXY, invN,
                                                  prog, {dc, "inputGradient"}),
                                  whitened);
    return rowNormGradient(
               graph, rowsView(gradsIn), rowsView(whitened), channelRows(gamma, batch).flatten(),
               layout.statRows(invStdDev, whitened).flatten(),
               layout.statRows(sums.sumX, whitened).flatten(),
               layout.statRows(sums.sumXY, whitened).flatten(), invN, prog, {dc, "inputGradient"})
        .reshape(whitened.shape());
  }
  // g = gradsIn * gamma: by column for [B][C] layer norms, by row of the rows view otherwise.
  const poplar::Tensor g = [&] {
    if (rows && contiguousStats(layout) && channelsAlongRows(whitened) &&
        gamma.elementType() == poplar::FLOAT)
      return columnScale(graph, gradsIn, gamma, prog, {dc, "gradsInTimesGamma"});
    if (rows)
      return rowAffine(graph, rowsView(gradsIn), {},
                       rowCoefficients(graph, _1 + 0.0f, {channelRows(gamma, batch)}, whitened,
                                       prog, {dc, "gammaRows"}),
                       {},
                       rowCoefficients(graph, _1 * 0.0f, {channelRows(gamma, batch)}, whitened,
                                       prog, {dc, "zeroRows"}),
                       prog, {dc, "gradsInTimesGamma"})
          .reshape(whitened.shape());
    return popops::map(graph, _1 * _2, {channelView(gradsIn), channelBroadcast(gamma)}, prog,
                       {dc, "gradsInTimesGamma"})
        .reshape(whitened.shape());
  }();
  if (rows) {
    // Group statistics: gamma varies within a statistic, so g is formed first; its two sums
    // per statistic still come from one fused read.
    const StatSums sums = statSums(graph, layout, g, whitened, prog, {dc, "gradientSums"});
    // dx = invStd * g - (invStd * sumGW / n) * whitened - invStd * sumG / n, per row.
    return rowAffine(graph, fusedRows(layout, g), fusedRows(layout, whitened),
                     statCoefficients(graph, layout, _1 + 0.0f, {invStdDev}, whitened, prog,
                                      {dc, "gScale"}),
                     statCoefficients(graph, layout, -_1 * _2 * invN, {invStdDev, sums.sumXY},
                                      whitened, prog, {dc, "whitenedScale"}),
                     statCoefficients(graph, layout, -_1 * _2 * invN, {invStdDev, sums.sumX},
                                      whitened, prog, {dc, "shift"}),
                     prog, {dc, "inputGradient"})
        .reshape(whitened.shape());
  }
  const poplar::Tensor gv = layout.view(g), wv = layout.view(whitened);
  const poplar::Tensor gw = popops::map(graph, _1 * _2, {gv, wv}, prog, {dc, "gTimesWhitened"});
  std::vector<poplar::Tensor> sums;
  const auto dims = layout.statDims();
  popops::reduceMany(graph,
                     {popops::SingleReduceOp(gv, dims, Operation::ADD, "sumG"),
                      popops::SingleReduceOp(gw, dims, Operation::ADD, "sumGW")},
                     sums, prog, {dc, "gradientSums"});
  const poplar::Tensor dx = popops::map(graph, _5 * (_1 - _3 * invN - _2 * (_4 * invN)),
                                        {gv, wv, layout.broadcastStat(sums[0].flatten(), whitened),
                                         layout.broadcastStat(sums[1].flatten(), whitened),
                                         layout.broadcastStat(invStdDev, whitened)},
                                        prog, {dc, "inputGradient"});
  if (layout.kind == NormLayout::Kind::GROUP && layout.strided)
    return dx.dimShuffle({0, 2, 1, 3}).reshape(whitened.shape());
  return dx.reshape(whitened.shape());
}

void normParamUpdate(poplar::Graph &graph, const std::string &fn, const poplar::Tensor &gammaDelta,
                     const poplar::Tensor &betaDelta, float scale, const poplar::Tensor &gamma,
                     const poplar::Tensor &beta, poplar::program::Sequence &prog,
                     const poplar::DebugContext &dc) {
  requireShape(fn, "gammaDelta", gammaDelta, gamma.shape());
  requireShape(fn, "betaDelta", betaDelta, beta.shape());
  popops::mapInPlace(graph, _1 + scale * _2, {gamma, gammaDelta}, prog, {dc, "updateGamma"});
  popops::mapInPlace(graph, _1 + scale * _2, {beta, betaDelta}, prog, {dc, "updateBeta"});
}

void normParamUpdate(poplar::Graph &graph, const std::string &fn, const poplar::Tensor &gammaDelta,
                     const poplar::Tensor &betaDelta, const poplar::Tensor &scale,
                     const poplar::Tensor &gamma, const poplar::Tensor &beta,
                     poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  requireShape(fn, "gammaDelta", gammaDelta, gamma.shape());
  requireShape(fn, "betaDelta", betaDelta, beta.shape());
  requireFloatType(fn, "scale", scale);
  if (scale.numElements() != 1)
    fail(fn, "scale", scale, "must hold exactly one element");
  const poplar::Tensor s = scale.flatten();
  auto update = [&](const poplar::Tensor &param, const poplar::Tensor &delta, const char *name) {
    if (param.numElements() == 0)
      return;
    popops::mapInPlace(graph, _1 + Cast(_3, param.elementType()) * _2,
                       {param, delta, s.broadcast(static_cast<unsigned>(param.numElements()), 0)
                                          .reshape(param.shape())},
                       prog, {dc, name});
  };
  update(gamma, gammaDelta, "updateGamma");
  update(beta, betaDelta, "updateBeta");
}

} // namespace popnn::detail
