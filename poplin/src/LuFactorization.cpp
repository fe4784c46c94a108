// Blocked right-looking LU without pivoting on a FLOAT working copy U of the input: per diagonal
// block, LUBlock packs L\U in place and returns both triangles' inverses; the block row is
// L11⁻¹·A12, the block column A21·U11⁻¹, and the trailing matrix loses their product. Then L is
// extracted from U's strictly lower part (LUExtractLower) and that part zeroed (mask).
#include <poplin/experimental/LuFactorization.hpp>

#include <algorithm>

#include <poplin/MatMul.hpp>
#include <popops/Cast.hpp>
#include <poputil/Describe.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "Linalg.hpp"

namespace poplin::experimental {
namespace {

constexpr std::size_t luBlockSize = 32;

/// L [M][M] from the packed rows of W [M][N], rows spread over the tiles.
void extractLower(poplar::Graph &graph, const poplar::Tensor &w, const poplar::Tensor &l,
                  poplar::program::Sequence &prog, const std::string &name) {
  const std::size_t m = l.dim(0), n = w.dim(1);
  if (m == 0)
    return;
  const std::size_t tiles = graph.getTarget().getNumTiles(), chunks = std::min(m, tiles);
  const std::string type = poputil::templateVertex("poplin::LUExtractLower", poplar::FLOAT);
  poplar::ComputeSet cs = graph.addComputeSet(name);
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t r0 = m * c / chunks, r1 = m * (c + 1) / chunks;
    auto v = graph.addVertex(
        cs, type, {{"in", w.slice(r0, r1).flatten()}, {"out", l.slice(r0, r1).flatten()}});
    graph.setInitialValue(v["inWidth"], unsigned(n));
    graph.setInitialValue(v["outWidth"], unsigned(m));
    graph.setInitialValue(v["firstRow"], unsigned(r0));
    graph.setTileMapping(v, unsigned(c * tiles / chunks));
  }
  prog.add(poplar::program::Execute(cs, name));
}

} // namespace

std::pair<poplar::Tensor, poplar::Tensor>
LUFactorization(poplar::Graph &graph, poplar::Tensor &input, poplar::program::Sequence &seq,
                const poplar::DebugContext &debugContext) {
  const std::string fn = "LUFactorization";
  if (input.rank() != 2)
    throw poputil::poplibs_error("poplin::experimental::LUFactorization: input must be a matrix "
                                 "[M, N] but has shape " +
                                 poputil::shapeString(input.shape()));
  detail::checkFloatingPoint(fn, "input", input.elementType());
  const std::string name =
      debugContext.getPathName().empty() ? "LUFactorization" : debugContext.getPathName();
  const std::size_t m = input.dim(0), n = input.dim(1), r = std::min(m, n);

  poplar::Tensor L = detail::linearTensor(graph, poplar::FLOAT, {m, m}, name + "/L");
  poplar::Tensor U = detail::linearTensor(graph, poplar::FLOAT, {m, n}, name + "/U");
  if (input.elementType() == poplar::FLOAT)
    seq.add(poplar::program::Copy(input, U, false, name + "/copyInput"));
  else
    popops::cast(graph, input, U, seq, name + "/castInput");

  PlanningCache cache;
  const std::string vertex = poputil::templateVertex("poplin::LUBlock", poplar::FLOAT);
  for (std::size_t k0 = 0, step = 0; k0 < r; k0 += luBlockSize, ++step) {
    const std::size_t k1 = std::min(r, k0 + luBlockSize), b = k1 - k0;
    const std::string stepName = name + "/block" + std::to_string(step);
    poplar::Tensor lowerInverse =
        graph.addVariable(poplar::FLOAT, {b, b}, stepName + "/lowerInverse");
    poplar::Tensor upperInverse =
        graph.addVariable(poplar::FLOAT, {b, b}, stepName + "/upperInverse");
    const unsigned tile = detail::spreadTile(graph, step);
    graph.setTileMapping(lowerInverse, tile);
    graph.setTileMapping(upperInverse, tile);
    poplar::ComputeSet cs = graph.addComputeSet(stepName + "/factor");
    auto v = graph.addVertex(cs, vertex,
                             {{"a", U.slice({k0, k0}, {k1, k1}).flatten()},
                              {"lowerInverse", lowerInverse.flatten()},
                              {"upperInverse", upperInverse.flatten()}});
    graph.setInitialValue(v["n"], unsigned(b));
    graph.setTileMapping(v, tile);
    seq.add(poplar::program::Execute(cs, stepName + "/factor"));

    if (k1 < n) { // U12 = L11⁻¹ · A12
      const poplar::Tensor row = U.slice({k0, k1}, {k1, n});
      poplar::Tensor solved =
          matMul(graph, lowerInverse, row, seq, poplar::FLOAT, stepName + "/row", {}, &cache);
      seq.add(poplar::program::Copy(solved, row, false, stepName + "/storeRow"));
    }
    if (k1 < m) { // L21 = A21 · U11⁻¹
      const poplar::Tensor column = U.slice({k1, k0}, {m, k1});
      poplar::Tensor solved =
          matMul(graph, column, upperInverse, seq, poplar::FLOAT, stepName + "/column", {}, &cache);
      seq.add(poplar::program::Copy(solved, column, false, stepName + "/storeColumn"));
    }
    if (k1 < m && k1 < n) // A22 -= L21 · U12
      matMulAcc(graph, U.slice({k1, k1}, {m, n}), -1.0f, U.slice({k1, k0}, {m, k1}),
                U.slice({k0, k1}, {k1, n}), seq, stepName + "/update", {}, &cache);
  }
  extractLower(graph, U, L, seq, name + "/extractL");
  detail::maskInPlace(graph, U.expand({0}), false, false, seq, name + "/maskU");
  return {L, U};
}

} // namespace poplin::experimental
