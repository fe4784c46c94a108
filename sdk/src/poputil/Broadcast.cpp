// poputil/Broadcast.hpp: NumPy broadcasting of tensor views.
#include <poputil/Broadcast.hpp>

#include <optional>
#include <string>

#include <poputil/Describe.hpp>
#include <poputil/exceptions.hpp>

namespace poputil {

namespace {

using Shape = std::vector<std::size_t>;

/// `t` with outer dimensions of size 1 added up to `rank` (unchanged if already there).
poplar::Tensor withRank(const poplar::Tensor &t, std::size_t rank) {
  if (t.rank() >= rank)
    return t;
  return t.expand(Shape(rank - t.rank(), 0));
}

/// The NumPy broadcast shape of `a` and `b`, or nothing if they do not match.
std::optional<Shape> commonShape(const Shape &a, const Shape &b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    // Align from the innermost dimension; a missing outer dimension counts as 1.
    const std::size_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::size_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

/// `t` broadcast to `shape`, which the caller has checked it matches.
poplar::Tensor broadcastTo(const poplar::Tensor &t, const Shape &shape) {
  poplar::Tensor out = withRank(t, shape.size());
  for (unsigned d = 0; d < shape.size(); ++d)
    if (out.dim(d) != shape[d])
      out = out.broadcast(static_cast<unsigned>(shape[d]), d);
  return out;
}

} // namespace

void expandToMatchRanks(poplar::Tensor &a, poplar::Tensor &b) {
  const std::size_t rank = std::max(a.rank(), b.rank());
  a = withRank(a, rank);
  b = withRank(b, rank);
}

void broadcastToMatch(poplar::Tensor &a, const std::vector<std::size_t> &shape) {
  bool ok = a.rank() <= shape.size();
  for (std::size_t i = 0; ok && i < a.rank(); ++i) {
    const std::size_t da = a.dim(static_cast<unsigned>(i));
    const std::size_t want = shape[shape.size() - a.rank() + i];
    ok = da == want || da == 1;
  }
  if (!ok)
    throw poplibs_error("poputil::broadcastToMatch: a tensor of shape " + shapeString(a.shape()) +
                        " cannot be broadcast to shape " + shapeString(shape));
  a = broadcastTo(a, shape);
}

void broadcastToMatch(poplar::Tensor &a, poplar::Tensor &b) {
  const auto common = commonShape(a.shape(), b.shape());
  if (!common)
    throw poplibs_error("poputil::broadcastToMatch: shapes " + shapeString(a.shape()) + " and " +
                        shapeString(b.shape()) + " do not broadcast to a common shape");
  a = broadcastTo(a, *common);
  b = broadcastTo(b, *common);
}

void broadcastToMatch(poplar::Tensor &a, poplar::Tensor &b, poplar::Tensor &c) {
  auto common = commonShape(a.shape(), b.shape());
  if (common)
    common = commonShape(*common, c.shape());
  if (!common)
    throw poplibs_error("poputil::broadcastToMatch: shapes " + shapeString(a.shape()) + ", " +
                        shapeString(b.shape()) + " and " + shapeString(c.shape()) +
                        " do not broadcast to a common shape");
  a = broadcastTo(a, *common);
  b = broadcastTo(b, *common);
  c = broadcastTo(c, *common);
}

bool canBroadcastToMatch(const poplar::Tensor &a, const poplar::Tensor &b) {
  return commonShape(a.shape(), b.shape()).has_value();
}

} // namespace poputil
