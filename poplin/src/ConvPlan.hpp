// How one convolution pass is split over tiles (private to poplin).
//
// A work unit is a block of (groups, output channels, input channels, batch, output rows —
// rows being the first spatial output dimension; further dimensions stay whole). Forward
// (and input-gradient) units with the same output block but different input-channel blocks
// produce fp32 partials that are summed in input-block order; weight-gradient units with the
// same weight block but different (batch, rows) blocks do the same over (batch, rows) order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include <poplin/ConvParams.hpp>
#include <poplin/MatMulPlan.hpp>

namespace poplin::detail {

enum class ConvPass { FORWARD, WEIGHT_GRADIENT };

struct ConvPlan {
  ConvPass pass = ConvPass::FORWARD;
  std::size_t groups = 1, outChans = 1, inChans = 1, batch = 1, rows = 1;
  std::size_t groupsPerBlock = 1, outChansPerBlock = 1, inChansPerBlock = 1, batchPerBlock = 1,
              rowsPerBlock = 1;
  std::size_t groupBlocks = 1, outChanBlocks = 1, inChanBlocks = 1, batchBlocks = 1, rowBlocks = 1;
  std::size_t numTiles = 1, tilesUsed = 1;
  std::size_t bytesPerTile = 0, bytesBudget = 0;
  bool fitsBudget = true;
  std::uint64_t computeCycles = 0, exchangeCycles = 0, reduceCycles = 0, totalCycles = 0;
  /// The host-time estimate the plan was chosen by (the IPU cycles above are reported).
  std::uint64_t hostNanoseconds = 0;
  /// Set for a pointwise convolution (ConvAsMatMul.hpp): the pass is this matrix product, and
  /// the block fields above are unused.
  std::optional<MatMulPlan> matMul;
  /// Set for a Winograd convolution (ConvWinograd.hpp): the pass's 16·G matrix products; the
  /// block fields above are unused.
  std::optional<MatMulPlan> winograd;

  std::size_t units() const {
    return groupBlocks * outChanBlocks * inChanBlocks * batchBlocks * rowBlocks;
  }
  /// Units whose partials are summed into one output block.
  std::size_t reduceCount() const {
    return pass == ConvPass::FORWARD ? inChanBlocks : batchBlocks * rowBlocks;
  }
  /// The tile of unit (g, o, i, b, r); units are spread evenly over the tiles.
  unsigned tileOf(std::size_t g, std::size_t o, std::size_t i, std::size_t b, std::size_t r) const {
    const std::size_t unit =
        (((g * outChanBlocks + o) * inChanBlocks + i) * batchBlocks + b) * rowBlocks + r;
    return static_cast<unsigned>(unit * numTiles / units());
  }
};

std::ostream &operator<<(std::ostream &os, const ConvPlan &plan);

} // namespace poplin::detail
