#include <popops/Cast.hpp>

#include <popops/ElementWise.hpp>
#include <poputil/exceptions.hpp>

namespace popops {

namespace {
void checkCastType(const poplar::Tensor &src, const poplar::Type &t) {
  const poplar::Type ok[] = {poplar::FLOAT, poplar::HALF, poplar::INT, poplar::UNSIGNED_INT,
                             poplar::BOOL};
  for (const auto &x : ok)
    if (x == t)
      return;
  throw poputil::poplibs_error("popops::cast of " + src.shortString() + " to " + t.toString() +
                               ": unsupported destination type (supported: float, half, int, "
                               "unsigned int, bool)");
}
} // namespace

poplar::Tensor cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Type &dstType,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  checkCastType(src, dstType);
  return map(graph, expr::Cast(expr::_1, dstType), {src}, prog, {debugContext, "Cast"});
}

void cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Tensor &dst,
          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  checkCastType(src, dst.elementType());
  if (src.shape() != dst.shape())
    throw poputil::poplibs_error("popops::cast from " + src.shortString() + " to " +
                                 dst.shortString() + ": shapes differ");
  mapWithOutput(graph, expr::Cast(expr::_1, dst.elementType()), {src}, dst, prog,
                {debugContext, "Cast"});
}

poplar::program::Program cast(poplar::Graph &graph, const poplar::Tensor &src,
                              const poplar::Tensor &dst, const poplar::DebugContext &debugContext) {
  poplar::program::Sequence prog;
  cast(graph, src, dst, prog, debugContext);
  return prog;
}

} // namespace popops
