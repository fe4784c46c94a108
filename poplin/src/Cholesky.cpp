// Blocked right-looking Cholesky: per diagonal block, factorise it on one tile (CholeskyBlock
// also returns the inverse factor), solve the panel below with one product, and subtract the
// panel's outer product from the trailing matrix with matMulGroupedAcc.
#include <poplin/Cholesky.hpp>

#include <algorithm>
#include <set>

#include <poputil/Describe.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "Linalg.hpp"

namespace poplin {
namespace {

constexpr std::size_t defaultBlockSize = 8;

std::string nameOf(const poplar::DebugContext &dc, const char *fallback) {
  return dc.getPathName().empty() ? fallback : dc.getPathName();
}

/// Factorises every lower triangle of `a` ([G][N][N], any view) in place.
void factoriseLower(poplar::Graph &graph, const poplar::Tensor &a, std::size_t blockSize,
                    poplar::program::Sequence &prog, const std::string &name,
                    const poplar::OptionFlags &matmulOptions, PlanningCache *cache) {
  const std::size_t g = a.dim(0), n = a.dim(1);
  const std::string vertex = poputil::templateVertex("poplin::CholeskyBlock", a.elementType());
  std::size_t work = 0;
  for (std::size_t k0 = 0, step = 0; k0 < n; k0 += blockSize, ++step) {
    const std::size_t k1 = std::min(n, k0 + blockSize), b = k1 - k0;
    const std::string stepName = name + "/block" + std::to_string(step);
    const poplar::Tensor diag = a.slice({0, k0, k0}, {g, k1, k1});
    poplar::Tensor inverse = graph.addVariable(a.elementType(), {g, b, b}, stepName + "/inverse");
    poplar::ComputeSet cs = graph.addComputeSet(stepName + "/factor");
    for (std::size_t i = 0; i < g; ++i, ++work) {
      const unsigned tile = detail::spreadTile(graph, work);
      auto v = graph.addVertex(cs, vertex,
                               {{"a", diag[i].flatten()}, {"inverse", inverse[i].flatten()}});
      graph.setInitialValue(v["n"], unsigned(b));
      graph.setTileMapping(v, tile);
      graph.setTileMapping(inverse[i], tile);
    }
    prog.add(poplar::program::Execute(cs, stepName + "/factor"));
    if (k1 == n)
      break;
    // L21 = A21 · L11⁻ᵀ
    const poplar::Tensor panel = a.slice({0, k1, k0}, {g, n, k1});
    poplar::Tensor solved =
        matMulGrouped(graph, panel, inverse.dimShuffle({0, 2, 1}), prog, a.elementType(),
                      stepName + "/panel", matmulOptions, cache);
    prog.add(poplar::program::Copy(solved, panel));
    // A22 -= L21 · L21ᵀ
    const poplar::Tensor trailing = a.slice({0, k1, k1}, {g, n, n});
    matMulGroupedAcc(graph, trailing, -1.0f, panel, panel.dimShuffle({0, 2, 1}), prog,
                     stepName + "/update", matmulOptions, cache);
  }
}

} // namespace

std::vector<std::pair<MatMulParams, poplar::OptionFlags>>
getCholeskyMatMulPrePlanParameters(const poplar::Type &type, const std::vector<std::size_t> &shape,
                                   bool /*lower*/, poplar::OptionFlags options) {
  const std::string fn = "getCholeskyMatMulPrePlanParameters";
  detail::checkSquare(fn, "shape", shape);
  detail::checkFloatingPoint(fn, "type", type);
  const auto gs = detail::groupedShape(shape);
  const std::size_t g = gs[0], n = gs[1];
  const auto opts = detail::parseLinalgOptions(fn, options, defaultBlockSize);
  std::set<MatMulParams> params;
  for (std::size_t k0 = 0; k0 < n; k0 += opts.blockSize) {
    const std::size_t k1 = std::min(n, k0 + opts.blockSize), b = k1 - k0;
    if (k1 == n)
      break;
    params.insert({type, type, {g, n - k1, b}, {g, b, b}});
    params.insert({type, type, {g, n - k1, b}, {g, b, n - k1}});
  }
  std::vector<std::pair<MatMulParams, poplar::OptionFlags>> out;
  for (const auto &p : params)
    out.emplace_back(p, opts.matmul);
  return out;
}

poplar::Tensor createCholeskyInput(poplar::Graph &graph, const poplar::Type &type,
                                   const std::vector<std::size_t> &shape, bool lower,
                                   const poplar::DebugContext &debugContext,
                                   const poplar::OptionFlags &options, PlanningCache *) {
  const std::string fn = "createCholeskyInput";
  detail::checkSquare(fn, "shape", shape);
  detail::checkFloatingPoint(fn, "type", type);
  const auto gs = detail::groupedShape(shape);
  const std::size_t g = gs[0], n = gs[1];
  const auto opts = detail::parseLinalgOptions(fn, options, defaultBlockSize);
  const std::size_t b = std::max<std::size_t>(1, std::min(opts.blockSize, n));
  poplar::Tensor t = graph.addVariable(type, {g, n, n}, nameOf(debugContext, "choleskyInput"));
  // Block (bi, bj) of every matrix on one tile, round-robin; the mapping is symmetric in use.
  std::size_t tile = 0;
  for (std::size_t r = 0; r < n; r += b)
    for (std::size_t c = 0; c < n; c += b, ++tile)
      graph.setTileMapping(t.slice({0, r, c}, {g, std::min(n, r + b), std::min(n, c + b)}),
                           detail::spreadTile(graph, tile));
  if (!lower)
    t = t.dimShuffle({0, 2, 1});
  return t.reshape(shape);
}

void choleskyInPlace(poplar::Graph &graph, const poplar::Tensor &a, bool lower,
                     poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                     poplar::OptionFlags options, PlanningCache *cache) {
  const std::string fn = "choleskyInPlace";
  detail::checkSquare(fn, "a (the matrix to factorise)", a.shape());
  detail::checkFloatingPoint(fn, "a (the matrix to factorise)", a.elementType());
  const auto opts = detail::parseLinalgOptions(fn, options, defaultBlockSize);
  const std::string name = nameOf(debugContext, "cholesky");
  poplar::Tensor g = detail::grouped(a);
  if (g.numElements() == 0)
    return;
  // The upper factor of A is the transpose of the lower factor of Aᵀ: work on the view.
  if (!lower)
    g = g.dimShuffle({0, 2, 1});
  PlanningCache localCache;
  factoriseLower(graph, g, opts.blockSize, prog, name, opts.matmul, cache ? cache : &localCache);
  detail::maskInPlace(graph, g, true, false, prog, name + "/mask");
}

poplar::Tensor cholesky(poplar::Graph &graph, const poplar::Tensor &a, bool lower,
                        poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                        poplar::OptionFlags options, PlanningCache *cache) {
  const std::string fn = "cholesky";
  detail::checkSquare(fn, "a (the matrix to factorise)", a.shape());
  detail::checkFloatingPoint(fn, "a (the matrix to factorise)", a.elementType());
  poplar::Tensor out =
      createCholeskyInput(graph, a.elementType(), a.shape(), lower, debugContext, options, cache);
  prog.add(poplar::program::Copy(a, out));
  choleskyInPlace(graph, out, lower, prog, debugContext, options, cache);
  return out;
}

} // namespace poplin
