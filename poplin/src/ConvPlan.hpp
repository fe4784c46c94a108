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

/// How a pass is computed: by the convolution blocks below, or as matrix products (`product`):
///   POINTWISE  a 1x1 convolution is one product                         (ConvAsMatMul.hpp)
///   WINOGRAD   a 3x3 stride-1 one is 16 products of transformed tiles    (ConvWinograd.hpp)
///   IM2COL     the input's patches are gathered into the product's B     (ConvLowered.hpp)
///   COL2IM     the product's result is gathered into the output          (ConvLowered.hpp)
enum class ConvMethod { BLOCKS, POINTWISE, WINOGRAD, IM2COL, COL2IM };

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
  /// The host-time estimate (by default what the plan was chosen by; see `objective`).
  std::uint64_t hostNanoseconds = 0;
  PlanObjective objective = PlanObjective::HOST_TIME;
  ConvMethod method = ConvMethod::BLOCKS;
  /// Set for every method but BLOCKS: the pass's matrix product (the block fields above are
  /// then unused).
  std::optional<MatMulPlan> product;

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
