// The computation shared by batch, group and layer normalisation. Each norm is described by a
// NormLayout that views [batch][channels][field…] activations so that the statistics are taken
// over `statDims` of the view; everything else (whitening, the affine step, gradients) follows.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popnn::detail {

struct NormLayout {
  enum class Kind { BATCH, GROUP };
  Kind kind = Kind::BATCH;
  unsigned groups = 1;  ///< GROUP only
  bool strided = false; ///< GROUP only: channel c in group c % groups
  std::string fn;       ///< the public function, for error messages

  /// Validates acts ([B][C][field…], FLOAT/HALF) and the group count.
  void check(const poplar::Tensor &acts, const std::string &name) const;
  /// The statistics view of an acts-shaped tensor: [B][C][F] (BATCH) or [B][G][C/G][F] (GROUP).
  poplar::Tensor view(const poplar::Tensor &t) const;
  /// The view's dimensions statistics reduce over.
  std::vector<std::size_t> statDims() const;
  /// The shape of mean / invStdDev as the public API has them: [C] or [B*G].
  std::vector<std::size_t> statShape(const poplar::Tensor &acts) const;
  /// mean / invStdDev reshaped to broadcast against view().
  poplar::Tensor broadcastStat(const poplar::Tensor &stat, const poplar::Tensor &acts) const;
  /// Number of elements each statistic covers.
  std::size_t statCount(const poplar::Tensor &acts) const;
  /// A statistic as a [B][C] view: the value for each (sample, channel) row of acts.
  poplar::Tensor statRows(const poplar::Tensor &stat, const poplar::Tensor &acts) const;
  /// Which statistic row b * C + c of acts (sample b, channel c) belongs to.
  std::size_t statOfRow(std::size_t row, const poplar::Tensor &acts) const;
};

/// acts ([B][C][F…]) as one row per channel, [C][B * F], and back: the rows batch norm's
/// vertices take when acts are stored channel by channel (storedChannelMajor), as convolutions
/// leave them — one run per tile instead of one per (tile, sample).
poplar::Tensor channelMajorRows(const poplar::Tensor &acts);
poplar::Tensor fromChannelMajorRows(const poplar::Tensor &rows, const poplar::Tensor &acts);
/// Rank ≥ 3 acts whose per-channel rows are fewer pieces than their per-(sample, channel) rows.
bool storedChannelMajor(const poplar::Tensor &acts);

std::pair<poplar::Tensor, poplar::Tensor>
normStatistics(poplar::Graph &graph, const NormLayout &layout, const poplar::Tensor &acts,
               float eps, bool unbiasedVarEstimate, bool stableAlgo,
               poplar::program::Sequence &prog, const poplar::DebugContext &dc);

poplar::Tensor normWhiten(poplar::Graph &graph, const NormLayout &layout,
                          const poplar::Tensor &acts, const poplar::Tensor &mean,
                          const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
                          const poplar::DebugContext &dc);

/// (gamma * whitened + beta, whitened).
std::pair<poplar::Tensor, poplar::Tensor>
normalise(poplar::Graph &graph, const NormLayout &layout, const poplar::Tensor &acts,
          const poplar::Tensor &gamma, const poplar::Tensor &beta, const poplar::Tensor &mean,
          const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
          const poplar::DebugContext &dc);

/// (gammaDelta, betaDelta) per channel.
std::pair<poplar::Tensor, poplar::Tensor>
normParamGradients(poplar::Graph &graph, const NormLayout &layout, const poplar::Tensor &whitened,
                   const poplar::Tensor &gradsIn, poplar::program::Sequence &prog,
                   const poplar::DebugContext &dc);

poplar::Tensor normGradients(poplar::Graph &graph, const NormLayout &layout,
                             const poplar::Tensor &whitened, const poplar::Tensor &gradsIn,
                             const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                             poplar::program::Sequence &prog, const poplar::DebugContext &dc);

void normParamUpdate(poplar::Graph &graph, const std::string &fn, const poplar::Tensor &gammaDelta,
                     const poplar::Tensor &betaDelta, float scale, const poplar::Tensor &gamma,
                     const poplar::Tensor &beta, poplar::program::Sequence &prog,
                     const poplar::DebugContext &dc);

/// As above with the scale in a one-element FLOAT or HALF tensor.
void normParamUpdate(poplar::Graph &graph, const std::string &fn, const poplar::Tensor &gammaDelta,
                     const poplar::Tensor &betaDelta, const poplar::Tensor &scale,
                     const poplar::Tensor &gamma, const poplar::Tensor &beta,
                     poplar::program::Sequence &prog, const poplar::DebugContext &dc);

/// A per-channel [C] tensor reshaped to broadcast against [B][C][F].
poplar::Tensor channelBroadcast(const poplar::Tensor &perChannel);
/// acts as [B][C][F] (F = product of field dimensions, 1 for rank 2).
poplar::Tensor channelView(const poplar::Tensor &acts);

} // namespace popnn::detail
