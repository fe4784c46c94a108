// Blocked triangular solve: the diagonal blocks of A inverted on-tile in one compute set, then
// block forward (lower) or backward (upper) substitution with grouped matMul products.
#include <poplin/TriangularSolve.hpp>

#include <algorithm>
#include <set>

#include <poputil/Describe.hpp>
#include <poputil/exceptions.hpp>

#include "Linalg.hpp"

namespace poplin {
namespace {

constexpr std::size_t defaultBlockSize = 64;

std::string nameOf(const poplar::DebugContext &dc, const char *fallback) {
  return dc.getPathName().empty() ? fallback : dc.getPathName();
}

[[noreturn]] void fail(const std::string &fn, const std::string &what) {
  throw poputil::poplibs_error("poplin::" + fn + ": " + what);
}

/// Checks A [..., N, N] against B ([..., N, K] left side, [..., K, N] right side).
void checkShapes(const std::string &fn, const std::vector<std::size_t> &a,
                 const std::vector<std::size_t> &b, bool leftSide) {
  detail::checkSquare(fn, "a (the triangular matrix)", a);
  if (b.size() < 2)
    fail(fn, "b (the right-hand side) must have rank 2 or more but has shape " +
                 poputil::shapeString(b));
  if (a.size() != b.size())
    fail(fn, "a " + poputil::shapeString(a) + " and b " + poputil::shapeString(b) +
                 " must have the same rank");
  const std::size_t r = a.size(), n = a[r - 1];
  if (leftSide ? b[r - 2] != n : b[r - 1] != n)
    fail(fn, std::string("b (the right-hand side) must have shape ") +
                 (leftSide ? "[..., N, K]" : "[..., K, N]") + " for a of shape [..., N, N] = " +
                 poputil::shapeString(a) + " but has shape " + poputil::shapeString(b));
  if (!std::equal(a.begin(), a.end() - 2, b.begin()))
    fail(fn, "the batch dimensions of a " + poputil::shapeString(a) + " and b " +
                 poputil::shapeString(b) + " differ");
}

/// The block boundaries 0, bs, 2·bs, …, n.
std::vector<std::size_t> blockEdges(std::size_t n, std::size_t bs) {
  std::vector<std::size_t> e;
  for (std::size_t k = 0; k < n; k += bs)
    e.push_back(k);
  e.push_back(n);
  return e;
}

poplar::OptionFlags withBlockSize(poplar::OptionFlags options, std::size_t blockSize) {
  options.set("blockSize", std::to_string(blockSize));
  return options;
}

} // namespace

poplar::Tensor createTriangularSolveInputLHS(poplar::Graph &graph, const poplar::Type &inputType,
                                             const poplar::Type &,
                                             const std::vector<std::size_t> &aShape,
                                             const std::vector<std::size_t> &bShape, bool leftSide,
                                             const poplar::DebugContext &debugContext,
                                             const poplar::OptionFlags &options,
                                             matmul::PlanningCache *) {
  const std::string fn = "createTriangularSolveInputLHS";
  checkShapes(fn, aShape, bShape, leftSide);
  detail::checkFloatingPoint(fn, "inputType", inputType);
  detail::parseLinalgOptions(fn, options, defaultBlockSize);
  return detail::linearTensor(graph, inputType, aShape, nameOf(debugContext, "triangularSolveA"));
}

poplar::Tensor createTriangularSolveInputLHS(
    poplar::Graph &graph, const poplar::Type &inputType, const poplar::Type &outputType,
    const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape, bool leftSide,
    std::size_t blockSize, const poplar::DebugContext &debugContext, poplar::OptionFlags options,
    matmul::PlanningCache *cache) {
  return createTriangularSolveInputLHS(graph, inputType, outputType, aShape, bShape, leftSide,
                                       debugContext, withBlockSize(options, blockSize), cache);
}

poplar::Tensor createTriangularSolveInputRHS(poplar::Graph &graph, const poplar::Type &inputType,
                                             const poplar::Type &,
                                             const std::vector<std::size_t> &aShape,
                                             const std::vector<std::size_t> &bShape, bool leftSide,
                                             const poplar::DebugContext &debugContext,
                                             const poplar::OptionFlags &options,
                                             matmul::PlanningCache *) {
  const std::string fn = "createTriangularSolveInputRHS";
  checkShapes(fn, aShape, bShape, leftSide);
  detail::checkFloatingPoint(fn, "inputType", inputType);
  detail::parseLinalgOptions(fn, options, defaultBlockSize);
  return detail::linearTensor(graph, inputType, bShape, nameOf(debugContext, "triangularSolveB"));
}

poplar::Tensor createTriangularSolveInputRHS(
    poplar::Graph &graph, const poplar::Type &inputType, const poplar::Type &outputType,
    const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape, bool leftSide,
    std::size_t blockSize, const poplar::DebugContext &debugContext, poplar::OptionFlags options,
    matmul::PlanningCache *cache) {
  return createTriangularSolveInputRHS(graph, inputType, outputType, aShape, bShape, leftSide,
                                       debugContext, withBlockSize(options, blockSize), cache);
}

poplar::Tensor triangularMask(poplar::Graph &graph, const poplar::Tensor &a, bool lower,
                              bool unitDiagonal, poplar::program::Sequence &prog,
                              const poplar::DebugContext &debugContext) {
  const std::string fn = "triangularMask";
  detail::checkSquare(fn, "a (the matrix to mask)", a.shape());
  detail::checkFloatingPoint(fn, "a (the matrix to mask)", a.elementType());
  const std::string name = nameOf(debugContext, "triangularMask");
  poplar::Tensor out = detail::linearTensor(graph, a.elementType(), a.shape(), name);
  detail::maskInto(graph, detail::grouped(a), detail::grouped(out), lower, unitDiagonal, prog,
                   name);
  return out;
}

poplar::Tensor triangularSolve(poplar::Graph &graph, const poplar::Tensor &a,
                               const poplar::Tensor &b, bool leftSide, bool lower,
                               bool unitDiagonal, poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext,
                               const poplar::OptionFlags &options, matmul::PlanningCache *cache) {
  const std::string fn = "triangularSolve";
  checkShapes(fn, a.shape(), b.shape(), leftSide);
  detail::checkFloatingPoint(fn, "a (the triangular matrix)", a.elementType());
  if (b.elementType() != a.elementType())
    fail(fn, "b (the right-hand side) has type " + b.elementType().toString() + " but a has type " +
                 a.elementType().toString() + "; they must match");
  const auto opts = detail::parseLinalgOptions(fn, options, defaultBlockSize);
  const std::string name = nameOf(debugContext, "triangularSolve");

  poplar::Tensor out = detail::linearTensor(graph, b.elementType(), b.shape(), name + "/x");
  poplar::Tensor A = detail::grouped(a), B = detail::grouped(b), X = detail::grouped(out);
  // X·A = B is Aᵀ·Xᵀ = Bᵀ: solve the transposed system on views.
  if (!leftSide) {
    A = A.dimShuffle({0, 2, 1});
    B = B.dimShuffle({0, 2, 1});
    X = X.dimShuffle({0, 2, 1});
    lower = !lower;
  }
  prog.add(poplar::program::Copy(B, X, false, name + "/copyB"));
  const std::size_t g = A.dim(0), n = A.dim(1), k = X.dim(2);
  if (g == 0 || n == 0 || k == 0)
    return out;

  PlanningCache localCache;
  if (!cache)
    cache = &localCache;
  const auto edges = blockEdges(n, opts.blockSize);
  const std::size_t blocks = edges.size() - 1;
  std::vector<poplar::Tensor> diagonal;
  for (std::size_t i = 0; i < blocks; ++i)
    diagonal.push_back(A.slice({0, edges[i], edges[i]}, {g, edges[i + 1], edges[i + 1]}));
  const auto inverses =
      detail::triangularInverses(graph, diagonal, lower, unitDiagonal, prog, name + "/invert");

  for (std::size_t step = 0; step < blocks; ++step) {
    const std::size_t i = lower ? step : blocks - 1 - step;
    const std::size_t r0 = edges[i], r1 = edges[i + 1];
    const std::string stepName = name + "/block" + std::to_string(i);
    const poplar::Tensor xi = X.slice({0, r0, 0}, {g, r1, k});
    // B_i − Σ A_ij · X_j over the blocks already solved.
    const std::size_t c0 = lower ? 0 : r1, c1 = lower ? r0 : n;
    if (c1 > c0)
      matMulGroupedAcc(graph, xi, -1.0f, A.slice({0, r0, c0}, {g, r1, c1}),
                       X.slice({0, c0, 0}, {g, c1, k}), prog, stepName + "/update", opts.matmul,
                       cache);
    poplar::Tensor solved = matMulGrouped(graph, inverses[i], xi, prog, xi.elementType(),
                                          stepName + "/solve", opts.matmul, cache);
    prog.add(poplar::program::Copy(solved, xi, false, stepName + "/store"));
  }
  return out;
}

poplar::Tensor triangularSolve(poplar::Graph &graph, const poplar::Tensor &a,
                               const poplar::Tensor &b, bool leftSide, bool lower,
                               bool unitDiagonal, std::size_t blockSize,
                               poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext,
                               poplar::OptionFlags options, matmul::PlanningCache *cache) {
  if (blockSize == 0)
    fail("triangularSolve", "blockSize must be greater than zero");
  return triangularSolve(graph, a, b, leftSide, lower, unitDiagonal, prog, debugContext,
                         withBlockSize(options, blockSize), cache);
}

std::vector<std::pair<MatMulParams, poplar::OptionFlags>> getTriangularSolveMatMulPrePlanParameters(
    const poplar::Type &inputType, const poplar::Type &outputType,
    const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape, bool leftSide,
    bool lower, const poplar::OptionFlags &options) {
  const std::string fn = "getTriangularSolveMatMulPrePlanParameters";
  checkShapes(fn, aShape, bShape, leftSide);
  const auto opts = detail::parseLinalgOptions(fn, options, defaultBlockSize);
  const auto gs = detail::groupedShape(aShape);
  const auto bs = detail::groupedShape(bShape);
  const std::size_t g = gs[0], n = gs[1], k = leftSide ? bs[2] : bs[1];
  const auto edges = blockEdges(n, opts.blockSize);
  std::set<MatMulParams> params;
  for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
    const std::size_t r = edges[i + 1] - edges[i];
    const std::size_t solved = lower ? edges[i] : n - edges[i + 1];
    if (solved > 0)
      params.insert({inputType, outputType, {g, r, solved}, {g, solved, k}});
    params.insert({inputType, outputType, {g, r, r}, {g, r, k}});
  }
  std::vector<std::pair<MatMulParams, poplar::OptionFlags>> out;
  for (const auto &p : params)
    out.emplace_back(p, opts.matmul);
  return out;
}

std::vector<std::pair<MatMulParams, poplar::OptionFlags>> getTriangularSolveMatMulPrePlanParameters(
    const poplar::Type &inputType, const poplar::Type &outputType,
    const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape, bool leftSide,
    bool lower, std::size_t blockSize, poplar::OptionFlags options) {
  return getTriangularSolveMatMulPrePlanParameters(inputType, outputType, aShape, bShape, leftSide,
                                                   lower, withBlockSize(options, blockSize));
}

} // namespace poplin
