// Householder QR: per column, one HouseholderVector vertex forms the reflector from the column
// (writing R's entries of that column), then HouseholderApply vertices apply it to the remaining
// columns of A (rows of the view Aᵀ) and to the rows of Q, in runs spread over the tiles.
#include <poplin/experimental/QRFactorization.hpp>

#include <algorithm>

#include <poputil/Describe.hpp>
#include <poputil/OptionParsing.hpp>
#include <poputil/exceptions.hpp>

namespace poplin::experimental {
namespace {

[[noreturn]] void fail(const std::string &fn, const std::string &what) {
  throw poputil::poplibs_error("poplin::experimental::" + fn + ": " + what);
}

/// The tile of work unit u of `units` (A's columns first, then Q's rows), in even runs.
unsigned tileOfUnit(std::size_t u, std::size_t units, unsigned tiles) {
  return static_cast<unsigned>(u * tiles / units);
}

/// Units [begin, end) on tile t.
std::pair<std::size_t, std::size_t> unitsOfTile(unsigned t, std::size_t units, unsigned tiles) {
  const std::size_t begin = (std::size_t(t) * units + tiles - 1) / tiles;
  const std::size_t end = (std::size_t(t + 1) * units + tiles - 1) / tiles;
  return {std::min(begin, units), std::min(end, units)};
}

} // namespace

std::array<poplar::Tensor, 2>
createQRFactorizationMatrices(poplar::Graph &graph, const poplar::Type &type, const std::size_t m,
                              const std::size_t n, const poplar::DebugContext &debugContext) {
  const std::string fn = "createQRFactorizationMatrices";
  if (m < n)
    fail(fn, "A must have at least as many rows as columns, but m = " + std::to_string(m) +
                 " < n = " + std::to_string(n));
  if (type != poplar::FLOAT)
    fail(fn, "type is " + type.toString() + "; only float is supported");
  const std::string name = debugContext.getPathName().empty() ? "QR" : debugContext.getPathName();
  // A stored as its transpose so each column is one contiguous run.
  poplar::Tensor aT = graph.addVariable(type, {n, m}, name + "/A");
  poplar::Tensor q = graph.addVariable(type, {m, m}, name + "/Q");
  const std::size_t units = n + m;
  const unsigned tiles = graph.getTarget().getNumTiles();
  for (std::size_t u = 0; u < units; ++u)
    graph.setTileMapping(u < n ? aT[u] : q[u - n], tileOfUnit(u, units, tiles));
  return {aT.transpose(), q};
}

void QRFactorization(poplar::Graph &graph, poplar::Tensor &A, poplar::Tensor &Q,
                     poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                     const poplar::OptionFlags &options) {
  const std::string fn = "QRFactorization";
  unsigned rowsPerIteration = 32;
  poputil::OptionSpec(
      "poplin::experimental::QRFactorization",
      {{"rowsPerIteration", poputil::OptionHandler::createWithUnsigned(rowsPerIteration, 1)}})
      .parse(options);
  if (A.rank() != 2)
    fail(fn, "A must be a matrix [M, N] but has shape " + poputil::shapeString(A.shape()));
  if (Q.rank() != 2)
    fail(fn, "Q must be a matrix [M, M] but has shape " + poputil::shapeString(Q.shape()));
  const std::size_t m = A.dim(0), n = A.dim(1);
  if (m < n)
    fail(fn,
         "A " + poputil::shapeString(A.shape()) + " must have at least as many rows as columns");
  if (Q.dim(0) != m || Q.dim(1) != m)
    fail(fn, "Q must be square with as many rows as A (" + std::to_string(m) + ") but has shape " +
                 poputil::shapeString(Q.shape()));
  if (A.elementType() != poplar::FLOAT)
    fail(fn, "A has type " + A.elementType().toString() + "; only float is supported");
  if (Q.elementType() != poplar::FLOAT)
    fail(fn, "Q has type " + Q.elementType().toString() + "; only float is supported");
  const std::string name =
      debugContext.getPathName().empty() ? "QRFactorization" : debugContext.getPathName();

  const poplar::Tensor aT = A.transpose(); // row j of aT = column j of A
  const std::size_t units = n + m;
  const unsigned tiles = graph.getTarget().getNumTiles();
  for (std::size_t k = 0; k < n; ++k) {
    const std::string stepName = name + "/column" + std::to_string(k);
    const std::size_t len = m - k;
    const unsigned pivotTile = tileOfUnit(k, units, tiles);
    poplar::Tensor v = graph.addVariable(poplar::FLOAT, {len}, stepName + "/v");
    graph.setTileMapping(v, pivotTile);

    poplar::ComputeSet reflect = graph.addComputeSet(stepName + "/reflector");
    auto hv = graph.addVertex(reflect, "poplin::experimental::HouseholderVector",
                              {{"x", aT[k].slice(k, m)}, {"v", v}});
    graph.setTileMapping(hv, pivotTile);
    prog.add(poplar::program::Execute(reflect, stepName + "/reflector"));

    // Apply to A's columns k+1 … n−1 and to Q's rows, each tile its own run of units.
    poplar::ComputeSet apply = graph.addComputeSet(stepName + "/apply");
    for (unsigned t = 0; t < tiles; ++t) {
      auto [u0, u1] = unitsOfTile(t, units, tiles);
      const std::size_t a0 = std::max(u0, k + 1), a1 = std::min(u1, n);
      if (a0 < a1) {
        auto va = graph.addVertex(apply, "poplin::experimental::HouseholderApply",
                                  {{"rows", aT.slice({a0, k}, {a1, m}).flatten()}, {"v", v}});
        graph.setTileMapping(va, t);
      }
      const std::size_t q0 = std::max(u0, n), q1 = std::min(u1, units);
      if (q0 < q1) {
        auto vq =
            graph.addVertex(apply, "poplin::experimental::HouseholderApply",
                            {{"rows", Q.slice({q0 - n, k}, {q1 - n, m}).flatten()}, {"v", v}});
        graph.setTileMapping(vq, t);
      }
    }
    prog.add(poplar::program::Execute(apply, stepName + "/apply"));
  }
}

} // namespace poplin::experimental
