// Shared by selectScalarFromRows and updateScalarInRows: argument checks and the per-tile row
// plan (one vertex per tile over the rows it works on, joined).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Tensor.hpp>

namespace popops::detail {

/// Throws poputil::poplibs_error naming `params` or `indices` (and `op`) when params is not a
/// FLOAT/HALF matrix or indices not an UNSIGNED_INT vector of one element per row.
void checkScalarInRowsArgs(const std::string &op, const poplar::Tensor &params,
                           const poplar::Tensor &indices);

/// The given elements of the vector `v` joined in order.
poplar::Tensor joinElements(const poplar::Tensor &v, const std::vector<std::size_t> &rows);

} // namespace popops::detail
