// Coordinate helpers: evenly spaced values and 2-D coordinate grids built from them.
#pragma once

#include <cstddef>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

namespace poplin {

/// A constant vector of `count` values evenly spaced over the closed range [left, right]
/// (value i is left + i·(right − left)/(count − 1); one value is `left`), of type FLOAT or HALF,
/// spread over the tiles.
poplar::Tensor linspace(poplar::Graph &graph, const poplar::Type &type, float left, float right,
                        std::size_t count, const poplar::DebugContext &debugContext = {});

/// The two coordinate grids of vectors x [nx] and y [ny], each [ny][nx]: grid 0 repeats x in
/// every row, grid 1 repeats y in every column. Both are views of the inputs (no copy).
std::vector<poplar::Tensor> meshgrid2d(poplar::Graph &graph, poplar::Tensor x, poplar::Tensor y);

} // namespace poplin
