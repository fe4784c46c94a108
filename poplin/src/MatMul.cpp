// poplin's matrix-multiply entry points: argument checks, then plan and build.
#include <poplin/MatMul.hpp>

#include <cstdint>
#include <optional>
#include <ostream>

#include <popops/ScaledAdd.hpp>
#include <poputil/Describe.hpp>
#include <poputil/exceptions.hpp>

#include "MatMulBuild.hpp"
#include "MatMulOptions.hpp"
#include "MatMulPlanner.hpp"

namespace poplin {
namespace {

using poputil::shapeString;

[[noreturn]] void fail(const std::string &fn, const std::string &what) {
  throw poputil::poplibs_error("poplin::" + fn + ": " + what);
}

void checkRank(const std::string &fn, const char *operand, const std::vector<std::size_t> &shape,
               std::size_t rank) {
  if (shape.size() != rank)
    fail(fn, std::string(operand) + " must have rank " + std::to_string(rank) + " (" +
                 (rank == 2 ? "a matrix" : "[groups][rows][cols]") + ") but has shape " +
                 shapeString(shape));
}

void checkType(const std::string &fn, const char *operand, const poplar::Type &t) {
  if (t != poplar::FLOAT && t != poplar::HALF)
    fail(fn, std::string(operand) + " has type " + t.toString() + "; expected float or half");
}

/// Checks grouped shapes {G,M,K} × {G,K,N}.
void checkShapes(const std::string &fn, const std::vector<std::size_t> &a,
                 const std::vector<std::size_t> &b, std::size_t rank) {
  checkRank(fn, "A (the left operand)", a, rank);
  checkRank(fn, "B (the right operand)", b, rank);
  if (rank == 3 && a[0] != b[0])
    fail(fn, "group counts differ: A " + shapeString(a) + " has " + std::to_string(a[0]) +
                 " groups, B " + shapeString(b) + " has " + std::to_string(b[0]));
  if (a[rank - 1] != b[rank - 2])
    fail(fn, "inner dimensions do not match: A " + shapeString(a) + " has " +
                 std::to_string(a[rank - 1]) + " columns but B " + shapeString(b) + " has " +
                 std::to_string(b[rank - 2]) + " rows");
}

std::vector<std::size_t> grouped(const std::vector<std::size_t> &s) {
  return s.size() == 2 ? std::vector<std::size_t>{1, s[0], s[1]} : s;
}

/// A tile chosen by the operation's name (FNV-1a; the same name always gives the same tile):
/// where a plan's few tiles start, so many small multiplies spread their outputs over the device.
unsigned spreadTile(const std::string &name, unsigned numTiles) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : name)
    h = (h ^ c) * 16777619u;
  return numTiles ? h % numTiles : 0;
}

/// Whether [G][R][C] view `t` is the transpose of a row-major tensor (`x.transpose()` in a
/// backward pass): its first row is one memory run per element while its first column is made
/// of long runs (one, or a few where the source is laid out in column blocks). Such a view lists
/// every element as its own region; handing the blocks to the vertices in stored order keeps
/// them contiguous for the exchange and the compiler.
bool storedTransposed(const poplar::Tensor &t) {
  const std::size_t rows = t.dim(1), cols = t.dim(2);
  if (rows < 2 || cols < 2)
    return false;
  const std::size_t rowRuns = t.slice({0, 0, 0}, {1, 1, cols}).getContiguousRegions().size();
  const std::size_t columnRuns = t.slice({0, 0, 0}, {1, rows, 1}).getContiguousRegions().size();
  return rowRuns == cols && columnRuns * 4 <= rows;
}

MatMulPlan plan(const poplar::Graph &graph, const poplar::Type &in, const poplar::Type &out,
                const std::vector<std::size_t> &a3, const std::vector<std::size_t> &b3,
                const poplar::OptionFlags &options, PlanningCache *cache) {
  const auto opts = detail::parseMatMulOptions(options);
  return detail::planMatMul(graph.getTarget(), in, out, a3[0], a3[1], b3[2], a3[2], opts, cache);
}

/// The common path of every multiply: 3-D views A, B and an output (new when `out` is null).
poplar::Tensor run(const std::string &fn, poplar::Graph &graph, const poplar::Tensor &A,
                   const poplar::Tensor &B, const poplar::Tensor *out,
                   const poplar::Type &outputType, std::optional<float> scale, std::size_t rank,
                   poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                   const poplar::OptionFlags &options, PlanningCache *cache) {
  checkShapes(fn, A.shape(), B.shape(), rank);
  checkType(fn, "A (the left operand)", A.elementType());
  if (A.elementType() != B.elementType())
    fail(fn, "A has type " + A.elementType().toString() + " but B has type " +
                 B.elementType().toString());
  checkType(fn, "the output", outputType);
  const auto a3 = grouped(A.shape()), b3 = grouped(B.shape());
  const std::vector<std::size_t> c3{a3[0], a3[1], b3[2]};
  const std::vector<std::size_t> cShape = rank == 2 ? std::vector<std::size_t>{a3[1], b3[2]} : c3;
  if (out && out->shape() != cShape)
    fail(fn, std::string(scale ? "C (the accumulator)" : "out") + " has shape " +
                 shapeString(out->shape()) + "; expected " + shapeString(cShape));
  MatMulPlan p = plan(graph, A.elementType(), outputType, a3, b3, options, cache);
  const std::string name =
      debugContext.getPathName().empty() ? "matMul" : debugContext.getPathName();
  if (!out)
    p.firstTile = spreadTile(name, p.numTiles);
  poplar::Tensor result =
      out ? *out : detail::createBlockedTensor(graph, p, detail::Operand::Output, outputType, name);
  if (!out && rank == 2)
    result = result.reshape(cShape);
  const poplar::Tensor r3 = rank == 2 ? result.reshape(c3) : result;
  const poplar::Tensor A3 = rank == 2 ? A.reshape(a3) : A;
  const poplar::Tensor B3 = rank == 2 ? B.reshape(b3) : B;
  const bool aTransposed = storedTransposed(A3), bTransposed = storedTransposed(B3);
  detail::buildMatMul(graph, p, aTransposed ? A3.dimShuffle({0, 2, 1}) : A3,
                      bTransposed ? B3.dimShuffle({0, 2, 1}) : B3, r3, scale, prog, name,
                      aTransposed, bTransposed);
  return result;
}

poplar::Tensor createInput(const std::string &fn, poplar::Graph &graph, const poplar::Type &in,
                           const poplar::Type &out, const std::vector<std::size_t> &aShape,
                           const std::vector<std::size_t> &bShape, std::size_t rank,
                           detail::Operand which, const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &options, PlanningCache *cache) {
  checkShapes(fn, aShape, bShape, rank);
  checkType(fn, "the input type", in);
  checkType(fn, "the output type", out);
  const auto a3 = grouped(aShape), b3 = grouped(bShape);
  MatMulPlan p = plan(graph, in, out, a3, b3, options, cache);
  p.firstTile = spreadTile(debugContext.getPathName(), p.numTiles);
  poplar::Tensor t = detail::createBlockedTensor(graph, p, which, in, debugContext.getPathName());
  return rank == 2 ? t.reshape(which == detail::Operand::LHS ? aShape : bShape) : t;
}

} // namespace

poplar::Tensor matMul(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog, const poplar::Type &outputType,
                      const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                      PlanningCache *cache) {
  return run("matMul", graph, A, B, nullptr, outputType, std::nullopt, 2, prog, debugContext,
             options, cache);
}

poplar::Tensor matMul(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &options, PlanningCache *cache) {
  return matMul(graph, A, B, prog, A.elementType(), debugContext, options, cache);
}

void matMulWithOutput(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                      const poplar::Tensor &out, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                      PlanningCache *cache) {
  run("matMulWithOutput", graph, A, B, &out, out.elementType(), std::nullopt, 2, prog, debugContext,
      options, cache);
}

void matMulAcc(poplar::Graph &graph, const poplar::Tensor &C, float k, const poplar::Tensor &A,
               const poplar::Tensor &B, poplar::program::Sequence &prog,
               const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
               PlanningCache *cache) {
  run("matMulAcc", graph, A, B, &C, C.elementType(), k, 2, prog, debugContext, options, cache);
}

poplar::Tensor matMulGrouped(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             poplar::program::Sequence &prog, const poplar::Type &outputType,
                             const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options, PlanningCache *cache) {
  return run("matMulGrouped", graph, A, B, nullptr, outputType, std::nullopt, 3, prog, debugContext,
             options, cache);
}

void matMulGroupedWithOutput(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             const poplar::Tensor &out, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options, PlanningCache *cache) {
  run("matMulGroupedWithOutput", graph, A, B, &out, out.elementType(), std::nullopt, 3, prog,
      debugContext, options, cache);
}

void matMulGroupedAcc(poplar::Graph &graph, const poplar::Tensor &C, float k,
                      const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &options, PlanningCache *cache) {
  run("matMulGroupedAcc", graph, A, B, &C, C.elementType(), k, 3, prog, debugContext, options,
      cache);
}

poplar::Tensor createMatMulInputLHS(poplar::Graph &graph, const poplar::Type &inputType,
                                    const poplar::Type &outputType,
                                    const std::vector<std::size_t> &aShape,
                                    const std::vector<std::size_t> &bShape,
                                    const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options, PlanningCache *cache) {
  return createInput("createMatMulInputLHS", graph, inputType, outputType, aShape, bShape, 2,
                     detail::Operand::LHS, debugContext, options, cache);
}

poplar::Tensor createMatMulInputLHS(poplar::Graph &graph, const poplar::Type &dataType,
                                    const std::vector<std::size_t> &aShape,
                                    const std::vector<std::size_t> &bShape,
                                    const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options, PlanningCache *cache) {
  return createMatMulInputLHS(graph, dataType, dataType, aShape, bShape, debugContext, options,
                              cache);
}

poplar::Tensor createMatMulInputRHS(poplar::Graph &graph, const poplar::Type &inputType,
                                    const poplar::Type &outputType,
                                    const std::vector<std::size_t> &aShape,
                                    const std::vector<std::size_t> &bShape,
                                    const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options, PlanningCache *cache) {
  return createInput("createMatMulInputRHS", graph, inputType, outputType, aShape, bShape, 2,
                     detail::Operand::RHS, debugContext, options, cache);
}

poplar::Tensor createMatMulInputRHS(poplar::Graph &graph, const poplar::Type &dataType,
                                    const std::vector<std::size_t> &aShape,
                                    const std::vector<std::size_t> &bShape,
                                    const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options, PlanningCache *cache) {
  return createMatMulInputRHS(graph, dataType, dataType, aShape, bShape, debugContext, options,
                              cache);
}

poplar::Tensor createMatMulGroupedInputLHS(poplar::Graph &graph, const poplar::Type &inputType,
                                           const poplar::Type &outputType,
                                           const std::vector<std::size_t> &aShape,
                                           const std::vector<std::size_t> &bShape,
                                           const poplar::DebugContext &debugContext,
                                           const poplar::OptionFlags &options,
                                           PlanningCache *cache) {
  return createInput("createMatMulGroupedInputLHS", graph, inputType, outputType, aShape, bShape, 3,
                     detail::Operand::LHS, debugContext, options, cache);
}

poplar::Tensor createMatMulGroupedInputRHS(poplar::Graph &graph, const poplar::Type &inputType,
                                           const poplar::Type &outputType,
                                           const std::vector<std::size_t> &aShape,
                                           const std::vector<std::size_t> &bShape,
                                           const poplar::DebugContext &debugContext,
                                           const poplar::OptionFlags &options,
                                           PlanningCache *cache) {
  return createInput("createMatMulGroupedInputRHS", graph, inputType, outputType, aShape, bShape, 3,
                     detail::Operand::RHS, debugContext, options, cache);
}

MatMulPlan getMatMulPlan(const poplar::Graph &graph, const poplar::Type &inputType,
                         const poplar::Type &outputType, const std::vector<std::size_t> &aShape,
                         const std::vector<std::size_t> &bShape, const poplar::OptionFlags &options,
                         PlanningCache *cache) {
  const std::size_t rank = aShape.size() == 3 ? 3 : 2;
  checkShapes("getMatMulPlan", aShape, bShape, rank);
  checkType("getMatMulPlan", "the input type", inputType);
  checkType("getMatMulPlan", "the output type", outputType);
  return plan(graph, inputType, outputType, grouped(aShape), grouped(bShape), options, cache);
}

void matMulReportPlan(std::ostream &out, const poplar::Graph &graph, const poplar::Type &inputType,
                      const poplar::Type &outputType, const std::vector<std::size_t> &aShape,
                      const std::vector<std::size_t> &bShape, const poplar::OptionFlags &options,
                      PlanningCache *cache) {
  checkShapes("matMulReportPlan", aShape, bShape, 2);
  out << getMatMulPlan(graph, inputType, outputType, aShape, bShape, options, cache);
}

void matMulGroupedReportPlan(std::ostream &out, const poplar::Graph &graph,
                             const poplar::Type &inputType, const poplar::Type &outputType,
                             const std::vector<std::size_t> &aShape,
                             const std::vector<std::size_t> &bShape,
                             const poplar::OptionFlags &options, PlanningCache *cache) {
  checkShapes("matMulGroupedReportPlan", aShape, bShape, 3);
  out << getMatMulPlan(graph, inputType, outputType, aShape, bShape, options, cache);
}

void reportPlanInfo(std::ostream &out, const poplar::Graph &graph,
                    const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape,
                    const poplar::OptionFlags &options, PlanningCache *cache) {
  out << getMatMulPlan(graph, poplar::FLOAT, poplar::FLOAT, aShape, bShape, options, cache);
}

bool operator<(const MatMulParams &a, const MatMulParams &b) {
  if (a.inputType != b.inputType)
    return a.inputType < b.inputType;
  if (a.outputType != b.outputType)
    return a.outputType < b.outputType;
  if (a.aShape != b.aShape)
    return a.aShape < b.aShape;
  return a.bShape < b.bShape;
}

poplar::Tensor transposeGroupedMatrix(const poplar::Tensor &A) {
  if (A.rank() != 3)
    fail("transposeGroupedMatrix",
         "A must have rank 3 ([groups][rows][cols]) but has shape " + shapeString(A.shape()));
  return A.dimShuffle({0, 2, 1});
}

namespace {

/// The single-element scale tensor of a Tensor-scaled accumulate, checked.
void checkScale(const std::string &fn, const poplar::Tensor &k) {
  if (k.numElements() != 1)
    fail(fn, "k (the scale) must have exactly one element but has shape " + shapeString(k.shape()));
  checkType(fn, "k (the scale)", k.elementType());
}

poplar::Tensor createOutput(const std::string &fn, poplar::Graph &graph, const poplar::Type &in,
                            const poplar::Type &out, const std::vector<std::size_t> &aShape,
                            const std::vector<std::size_t> &bShape, std::size_t rank,
                            const poplar::DebugContext &debugContext,
                            const poplar::OptionFlags &options, PlanningCache *cache) {
  checkShapes(fn, aShape, bShape, rank);
  checkType(fn, "the input type", in);
  checkType(fn, "the output type", out);
  const auto a3 = grouped(aShape), b3 = grouped(bShape);
  MatMulPlan p = plan(graph, in, out, a3, b3, options, cache);
  const std::string name =
      debugContext.getPathName().empty() ? "matMulOutput" : debugContext.getPathName();
  p.firstTile = spreadTile(name, p.numTiles);
  poplar::Tensor t = detail::createBlockedTensor(graph, p, detail::Operand::Output, out, name);
  return rank == 2 ? t.reshape({a3[1], b3[2]}) : t;
}

} // namespace

void matMulAcc(poplar::Graph &graph, const poplar::Tensor &C, const poplar::Tensor &k,
               const poplar::Tensor &A, const poplar::Tensor &B, poplar::program::Sequence &prog,
               const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
               PlanningCache *cache) {
  checkScale("matMulAcc", k);
  const std::string name =
      debugContext.getPathName().empty() ? "matMulAcc" : debugContext.getPathName();
  poplar::Tensor product = run("matMulAcc", graph, A, B, nullptr, C.elementType(), std::nullopt, 2,
                               prog, name + "/product", options, cache);
  if (product.shape() != C.shape())
    fail("matMulAcc", "C (the accumulator) has shape " + shapeString(C.shape()) + "; expected " +
                          shapeString(product.shape()));
  popops::scaledAddTo(graph, C, product, k.reshape({}), prog, name + "/accumulate");
}

void matMulGroupedAcc(poplar::Graph &graph, const poplar::Tensor &C, const poplar::Tensor &k,
                      const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &options, PlanningCache *cache) {
  checkScale("matMulGroupedAcc", k);
  const std::string name =
      debugContext.getPathName().empty() ? "matMulGroupedAcc" : debugContext.getPathName();
  poplar::Tensor product = run("matMulGroupedAcc", graph, A, B, nullptr, C.elementType(),
                               std::nullopt, 3, prog, name + "/product", options, cache);
  if (product.shape() != C.shape())
    fail("matMulGroupedAcc", "C (the accumulator) has shape " + shapeString(C.shape()) +
                                 "; expected " + shapeString(product.shape()));
  popops::scaledAddTo(graph, C, product, k.reshape({}), prog, name + "/accumulate");
}

poplar::Tensor createMatMulOutput(poplar::Graph &graph, const poplar::Type &inputType,
                                  const poplar::Type &outputType,
                                  const std::vector<std::size_t> &aShape,
                                  const std::vector<std::size_t> &bShape,
                                  const poplar::DebugContext &debugContext,
                                  const poplar::OptionFlags &options, PlanningCache *cache) {
  return createOutput("createMatMulOutput", graph, inputType, outputType, aShape, bShape, 2,
                      debugContext, options, cache);
}

poplar::Tensor createMatMulOutput(poplar::Graph &graph, const poplar::Type &dataType,
                                  const std::vector<std::size_t> &aShape,
                                  const std::vector<std::size_t> &bShape,
                                  const poplar::DebugContext &debugContext,
                                  const poplar::OptionFlags &options, PlanningCache *cache) {
  return createMatMulOutput(graph, dataType, dataType, aShape, bShape, debugContext, options,
                            cache);
}

poplar::Tensor createMatMulGroupedOutput(poplar::Graph &graph, const poplar::Type &inputType,
                                         const poplar::Type &outputType,
                                         const std::vector<std::size_t> &aShape,
                                         const std::vector<std::size_t> &bShape,
                                         const poplar::DebugContext &debugContext,
                                         const poplar::OptionFlags &options, PlanningCache *cache) {
  return createOutput("createMatMulGroupedOutput", graph, inputType, outputType, aShape, bShape, 3,
                      debugContext, options, cache);
}

poplar::Tensor preArrangeMatMulInputRHS(poplar::Graph &graph,
                                        const std::vector<std::size_t> &aShape,
                                        const poplar::Tensor &B, poplar::program::Sequence &prog,
                                        const poplar::Type &outputType,
                                        const poplar::DebugContext &debugContext,
                                        const poplar::OptionFlags &options, PlanningCache *cache) {
  const std::string name =
      debugContext.getPathName().empty() ? "preArrangedRHS" : debugContext.getPathName();
  poplar::Tensor arranged = createMatMulInputRHS(graph, B.elementType(), outputType, aShape,
                                                 B.shape(), name, options, cache);
  prog.add(poplar::program::Copy(B, arranged, false, name));
  return arranged;
}

poplar::Tensor preArrangeMatMulInputRHS(poplar::Graph &graph,
                                        const std::vector<std::size_t> &aShape,
                                        const poplar::Tensor &B, poplar::program::Sequence &prog,
                                        const poplar::DebugContext &debugContext,
                                        const poplar::OptionFlags &options, PlanningCache *cache) {
  return preArrangeMatMulInputRHS(graph, aShape, B, prog, B.elementType(), debugContext, options,
                                  cache);
}

poplar::Tensor
preArrangeMatMulGroupedInputRHS(poplar::Graph &graph, const std::vector<std::size_t> &aShape,
                                const poplar::Tensor &B, poplar::program::Sequence &prog,
                                const poplar::Type &outputType,
                                const poplar::DebugContext &debugContext,
                                const poplar::OptionFlags &options, PlanningCache *cache) {
  const std::string name =
      debugContext.getPathName().empty() ? "preArrangedRHS" : debugContext.getPathName();
  poplar::Tensor arranged = createMatMulGroupedInputRHS(graph, B.elementType(), outputType, aShape,
                                                        B.shape(), name, options, cache);
  prog.add(poplar::program::Copy(B, arranged, false, name));
  return arranged;
}

std::set<ConvPlanParams> matMulGetConvPlanParams(const std::set<MatMulPlanParams> &matmuls,
                                                 MatMulToConvOptions &matmulToConvOpts) {
  std::set<ConvPlanParams> convs;
  for (const auto &[target, params, options] : matmuls) {
    const std::size_t rank = params.aShape.size() == 3 ? 3 : 2;
    checkShapes("matMulGetConvPlanParams", params.aShape, params.bShape, rank);
    const auto a3 = grouped(params.aShape), b3 = grouped(params.bShape);
    poplar::OptionFlags convOptions;
    if (options) {
      const auto parsed = detail::parseMatMulOptions(*options);
      convOptions.set("availableMemoryProportion",
                      std::to_string(parsed.availableMemoryProportion));
      convOptions.set("partialsType", parsed.partialsType == poplar::HALF ? "half" : "float");
    }
    auto &stored = matmulToConvOpts[options];
    stored = convOptions;
    ConvParams conv(params.inputType, params.outputType, 1, {a3[1]}, {1}, a3[2], b3[2], a3[0]);
    convs.emplace(target, conv, &stored);
  }
  return convs;
}

void preplanMatMuls(const std::set<MatMulPlanParams> &matmuls, matmul::PlanningCache &cache) {
  for (const auto &[target, params, options] : matmuls) {
    if (!target)
      fail("preplanMatMuls", "a MatMulPlanParams entry has no target");
    const std::size_t rank = params.aShape.size() == 3 ? 3 : 2;
    checkShapes("preplanMatMuls", params.aShape, params.bShape, rank);
    checkType("preplanMatMuls", "the input type", params.inputType);
    checkType("preplanMatMuls", "the output type", params.outputType);
    const auto a3 = grouped(params.aShape), b3 = grouped(params.bShape);
    const auto opts = detail::parseMatMulOptions(options ? *options : poplar::OptionFlags{});
    detail::planMatMul(*target, params.inputType, params.outputType, a3[0], a3[1], b3[2], a3[2],
                       opts, &cache);
  }
}

void matmulValidateOptions(const poplar::OptionFlags &options) {
  detail::parseMatMulOptions(options);
}

} // namespace poplin
