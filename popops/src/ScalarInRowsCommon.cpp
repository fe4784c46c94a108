#include "ScalarInRowsCommon.hpp"

#include <poputil/exceptions.hpp>

namespace popops::detail {

void checkScalarInRowsArgs(const std::string &op, const poplar::Tensor &params,
                           const poplar::Tensor &indices) {
  if (params.rank() != 2)
    throw poputil::poplibs_error("popops::" + op + ": params must be rank 2 ([rows][width]), got " +
                                 params.shortString());
  if (params.elementType() != poplar::FLOAT && params.elementType() != poplar::HALF)
    throw poputil::poplibs_error("popops::" + op + ": params must be FLOAT or HALF, got " +
                                 params.shortString());
  if (indices.rank() != 1 || indices.elementType() != poplar::UNSIGNED_INT)
    throw poputil::poplibs_error("popops::" + op +
                                 ": indices must be a rank-1 UNSIGNED_INT tensor, got " +
                                 indices.shortString());
  if (indices.dim(0) != params.dim(0))
    throw poputil::poplibs_error("popops::" + op + ": indices has " +
                                 std::to_string(indices.dim(0)) + " elements but params " +
                                 params.shortString() + " has " + std::to_string(params.dim(0)) +
                                 " rows");
}

poplar::Tensor joinElements(const poplar::Tensor &v, const std::vector<std::size_t> &rows) {
  std::vector<poplar::Tensor> parts;
  parts.reserve(rows.size());
  for (std::size_t r : rows)
    parts.push_back(v.slice(r, r + 1));
  return poplar::concat(parts);
}

} // namespace popops::detail
