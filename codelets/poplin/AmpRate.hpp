// The rate the IPU cost model prices poplin's products at: a Mk2 tile's accumulating matrix
// product (AMP) unit completes 64 multiply-accumulates a cycle on HALF inputs and 16 on FLOAT
// (250 and 62.5 TFLOPS over 1472 tiles at 1.33 GHz). Six workers share it; a MultiVertex's
// estimate is one worker's thread cycles (the cost model multiplies by the worker count), so a
// share of W multiply-adds costs W / (6 · rate) thread cycles of each worker.
#pragma once

#include <cstdint>
#include <type_traits>

namespace tessera::codelets::poplin {

template <class In> constexpr std::uint64_t ampMacsPerTileCycle() {
  return std::is_same_v<In, float> ? 16 : 64;
}

/// Thread cycles of each of the tile's 6 workers for `macs` multiply-adds spread over them.
template <class In> constexpr std::uint64_t ampWorkerCycles(std::uint64_t macs) {
  const std::uint64_t perThreadCycle = 6 * ampMacsPerTileCycle<In>();
  return (macs + perThreadCycle - 1) / perThreadCycle;
}

} // namespace tessera::codelets::poplin
