// How PrintTensor shows a tensor: Poplar's default PrintTensorFmt layout, e.g.
//   v: [1.0000000 1.5000000]        (rank 1 on the title line)
//   m: [                            (rank 2 and up: one row a line, one space of
//    [1.0000000 2.0000000]           indent per nesting level, closing brackets
//    [3.0000000 4.0000000]           on their own lines)
//   ]
#pragma once

#include <string>
#include <vector>

#include <poplar/Type.hpp>

namespace poplar::engine {

/// Formats the row-major host image `data` of a tensor of `type` and `shape` (no trailing
/// newline). An empty `title` prints the values alone.
std::string formatTensor(const std::string &title, Type type, const std::vector<std::size_t> &shape,
                         const unsigned char *data);

} // namespace poplar::engine
