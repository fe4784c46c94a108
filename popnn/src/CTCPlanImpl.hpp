// popnn::ctc::Plan::Impl: what CTC loss and beam-search inference need to place their work. Each
// batch entry is one unit of work (its recursions are sequential over time); entry b goes to
// tile b * numTiles / batchSize, so entries spread evenly and neighbours share a tile when there
// are more entries than tiles.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>

#include <poplar/Graph.hpp>
#include <poplar/Type.hpp>
#include <popnn/CTCPlan.hpp>

namespace popnn::ctc {

class Plan::Impl {
public:
  bool inference = false;
  poplar::Type inType = poplar::FLOAT, outType = poplar::FLOAT, partialsType = poplar::FLOAT;
  unsigned batchSize = 0, maxTime = 0, maxLabelLength = 0, numClasses = 0, beamWidth = 0;
  unsigned numTiles = 1;
  double availableMemoryProportion = 0.6;

  unsigned tileOf(std::size_t batch) const {
    return batchSize == 0 ? 0
                          : static_cast<unsigned>(static_cast<std::uint64_t>(batch) * numTiles /
                                                  batchSize);
  }
  auto key() const {
    return std::make_tuple(inference, inType, outType, partialsType, batchSize, maxTime,
                           maxLabelLength, numClasses, beamWidth, numTiles,
                           availableMemoryProportion);
  }
  std::string toString() const;
};

/// Maps dimension `batchDim` slice b of `t` to the plan's tile for b.
void mapByBatch(poplar::Graph &graph, const poplar::Tensor &t, unsigned batchDim,
                const Plan::Impl &plan);

/// Parses a plan's options ("partialsType", "availableMemoryProportion") into `impl`.
void parsePlanOptions(const std::string &fn, const poplar::OptionFlags &options,
                      Plan::Impl &impl);

} // namespace popnn::ctc
