// How PrintTensor shows a tensor: "title: [[1, 2], [3, 4]]".
#pragma once

#include <string>
#include <vector>

#include <poplar/Type.hpp>

namespace poplar::engine {

/// Formats the row-major host image `data` of a tensor of `type` and `shape`.
std::string formatTensor(const std::string &title, Type type, const std::vector<std::size_t> &shape,
                         const unsigned char *data);

} // namespace poplar::engine
