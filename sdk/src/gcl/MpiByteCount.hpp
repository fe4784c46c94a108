// The count MPI's byte collectives take is an int: an exchange between instances of more than
// INT_MAX bytes (2 GiB) is refused by name rather than truncated.
#pragma once

#include <climits>
#include <cstddef>
#include <string>

#include <poplar/exceptions.hpp>

namespace gcl::detail {

inline int mpiByteCount(std::size_t bytes) {
  if (bytes > std::size_t(INT_MAX))
    throw poplar::runtime_error("gcl: " + std::to_string(bytes) +
                                " bytes in one exchange between instances; at most 2 GiB");
  return static_cast<int>(bytes);
}

} // namespace gcl::detail
