// NumPy broadcasting shared by the element-wise paths (see Broadcasting.hpp).
#include "Broadcasting.hpp"

#include <algorithm>

#include <poputil/Describe.hpp>
#include <poputil/exceptions.hpp>

namespace popops::detail {

std::vector<std::size_t> broadcastShapes(const std::vector<std::size_t> &a,
                                         const std::vector<std::size_t> &b, const std::string &what,
                                         const std::string &context) {
  const std::size_t rank = std::max(a.size(), b.size());
  std::vector<std::size_t> out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::size_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::size_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      throw poputil::poplibs_error(context + ": shapes " + poputil::shapeString(a) + " and " +
                                   poputil::shapeString(b) + " cannot be broadcast together (" +
                                   what + ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

poplar::Tensor broadcastTo(poplar::Tensor t, const std::vector<std::size_t> &shape) {
  if (t.rank() < shape.size()) {
    std::vector<std::size_t> s(shape.size() - t.rank(), 1);
    s.insert(s.end(), t.shape().begin(), t.shape().end());
    t = t.reshape(s);
  }
  for (unsigned d = 0; d < shape.size(); ++d)
    if (t.dim(d) == 1 && shape[d] != 1)
      t = t.broadcast(static_cast<unsigned>(shape[d]), d);
  return t;
}

} // namespace popops::detail
