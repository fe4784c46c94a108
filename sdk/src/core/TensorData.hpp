// The representation behind poplar::Tensor.
#pragma once

#include <cstddef>
#include <vector>

#include <poplar/Type.hpp>

#include "core/Region.hpp"

namespace poplar::core {

struct GraphData;

struct TensorData {
  const GraphData *graph = nullptr;
  Type type;
  std::vector<std::size_t> shape;
  RegionList regions; ///< Coalesced: consecutive entries never continue each other.
  std::size_t numElements = 0;
};

std::size_t product(const std::vector<std::size_t> &shape);

} // namespace poplar::core
