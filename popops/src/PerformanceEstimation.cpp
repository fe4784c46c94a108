// popops::internal cycle estimates: the cost formulas of the MapExpr and Fill vertices
// (codelets/popops/MapExprVertices.cpp, FillVertices.cpp), with the number of instructions an
// element-wise vertex runs taken from the expression compiler itself, so an estimate is the
// estimate the engine's cost model gives the same vertex.
#include <popops/PerformanceEstimation.hpp>

#include <numeric>
#include <string>

#include <poplar/Graph.hpp>
#include <popops/Expr.hpp>

#include "MapExprCompiler.hpp"

namespace popops::internal {

namespace {

// popops::MapExpr<T> / MapExpr2D<T>: a fixed cost plus, per body instruction, a quarter cycle
// per element and a per-run cost.
constexpr std::uint64_t kMapExprOverhead = 50;
constexpr std::uint64_t kMapExprPerRun = 10;

std::uint64_t mapExprCycles(std::uint64_t instructions, std::uint64_t elements,
                            std::uint64_t runs) {
  return kMapExprOverhead + instructions * (elements / 4 + kMapExprPerRun * runs);
}

// popops::MultiSlice<T> / MultiUpdate<T> (half a cycle per element moved) and
// MultiUpdateAdd/Max/Mul<T> (one per element combined), after a fixed cost.
constexpr std::uint64_t kSliceOverhead = 30;

// popops::Fill<T> / Fill2d<T>: a fixed cost plus half a cycle per element (and 4 per run).
constexpr std::uint64_t kFillOverhead = 20;
constexpr std::uint64_t kFillPerRun = 4;

/// How many body instructions the compiled program of `e` has for operands of `types` (a type
/// with `scalar` set is a one-element operand, read once per vertex).
std::uint64_t bodyInstructions(const poplar::Target &target, const expr::Expr &e,
                               const std::vector<std::pair<poplar::Type, bool>> &types) {
  poplar::Graph graph(target);
  std::vector<poplar::Tensor> ts;
  std::vector<std::string> names;
  for (const auto &[type, scalar] : types) {
    ts.push_back(graph.addVariable(type, {std::size_t(scalar ? 1 : 2)}));
    names.push_back(std::string(1, '_').append(std::to_string(ts.size())));
  }
  return detail::compileMapExpr(e, ts, names, "popops::internal cycle estimate")
      .numBodyInstructions;
}

/// The target the cast estimates compile against (their parameters carry no target; the
/// compiled program depends only on the types).
const poplar::Target &castTarget() {
  static const poplar::Target target = poplar::Target::createCPUTarget();
  return target;
}

std::uint64_t castInstructions(const poplar::Type &fromType, const poplar::Type &toType) {
  return bodyInstructions(castTarget(), expr::Cast(expr::_1, toType), {{fromType, false}});
}

// popops::Cast1D<Src,Dst> (a cast with an 8- or 16-bit integer side): a fixed cost plus one
// cycle per element.
constexpr std::uint64_t kSmallCastOverhead = 20;

bool isSmallInteger(const poplar::Type &t) {
  return t == poplar::CHAR || t == poplar::SIGNED_CHAR || t == poplar::UNSIGNED_CHAR ||
         t == poplar::SHORT || t == poplar::UNSIGNED_SHORT;
}

} // namespace

std::uint64_t basicOpSupervisorOverhead(const bool) { return kMapExprOverhead; }

std::uint64_t basicOpLoopCycles(const unsigned numElems, const unsigned vectorSize,
                                const unsigned cyclesPerVector) {
  const std::uint64_t width = vectorSize == 0 ? 1 : vectorSize;
  return (numElems + width - 1) / width * cyclesPerVector;
}

std::uint64_t binaryOpInnerLoopCycles(const poplar::Target &target, const poplar::Type &type,
                                      const unsigned cyclesPerVector, const bool vectorize,
                                      const unsigned numElems,
                                      const std::uint64_t overheadPerLoop) {
  const std::uint64_t width = vectorize ? target.getVectorWidth(type) : 1;
  return (numElems + width - 1) / width * (cyclesPerVector + overheadPerLoop);
}

std::uint64_t getBinaryOp1DInPlaceEstimate(const poplar::Target &target, const poplar::Type &type,
                                           const expr::BinaryOpType op, const unsigned numElems) {
  const std::uint64_t instructions = bodyInstructions(
      target, expr::BinaryOp(op, expr::_1, expr::_2), {{type, false}, {type, false}});
  return mapExprCycles(instructions, numElems, 1);
}

std::uint64_t getDynamicSlice1DEstimate(const poplar::Target &, const poplar::Type &,
                                        const unsigned regionSize, const unsigned numSubElements) {
  return kSliceOverhead + std::uint64_t(regionSize) * numSubElements / 2;
}

std::uint64_t getMultiSliceCycleEstimate(const MultiSliceTargetParameters &,
                                         const unsigned elemsPerSlice, const unsigned numOffsets,
                                         const unsigned, const unsigned, const bool, const bool,
                                         const bool) {
  // MultiSlice and MultiUpdate cost the same per element moved.
  return kSliceOverhead + std::uint64_t(elemsPerSlice) * numOffsets / 2;
}

std::uint64_t getMultiUpdateOpCycleEstimate(const MultiUpdateOpTargetParameters &, bool,
                                            const unsigned elemsPerSlice, const unsigned numOffsets,
                                            const unsigned, const unsigned, const Operation,
                                            const bool, const bool, const bool) {
  return kSliceOverhead + std::uint64_t(elemsPerSlice) * numOffsets;
}

std::uint64_t getCast2DCycleEstimate(const CastTargetParameters &, const poplar::Type &fromType,
                                     const poplar::Type &toType,
                                     std::vector<unsigned> &elemCounts) {
  const std::uint64_t elements =
      std::accumulate(elemCounts.begin(), elemCounts.end(), std::uint64_t(0));
  if (isSmallInteger(fromType) || isSmallInteger(toType)) // one Cast1D vertex per run
    return kSmallCastOverhead * elemCounts.size() + elements;
  return mapExprCycles(castInstructions(fromType, toType), elements, elemCounts.size());
}

std::uint64_t getCast1DSingleWorkerCycleEstimate(const CastTargetParameters &,
                                                 const poplar::Type &fromType,
                                                 const poplar::Type &toType,
                                                 const unsigned numElems) {
  if (isSmallInteger(fromType) || isSmallInteger(toType))
    return kSmallCastOverhead + numElems;
  return mapExprCycles(castInstructions(fromType, toType), numElems, 1);
}

std::uint64_t getCast1DCycleEstimate(const CastTargetParameters &targetParams,
                                     const poplar::Type &fromType, const poplar::Type &toType,
                                     const unsigned numElems) {
  return getCast1DSingleWorkerCycleEstimate(targetParams, fromType, toType, numElems);
}

std::uint64_t getFill1DCycleEstimate(const FillTargetParameters &, const poplar::Type &,
                                     const unsigned numElems) {
  return kFillOverhead + numElems / 2;
}

std::uint64_t getFill2DCycleEstimate(const FillTargetParameters &, const poplar::Type &,
                                     const std::vector<unsigned> &numElems) {
  const std::uint64_t elements =
      std::accumulate(numElems.begin(), numElems.end(), std::uint64_t(0));
  return kFillOverhead + kFillPerRun * numElems.size() + elements / 2;
}

std::uint64_t getScaledArithmeticSupervisorCycleEstimate(
    const ScaledArithmeticTargetParameters &, const poplar::Type &dataType,
    const poplar::Type &dataBType, const bool isConstant, const bool,
    const ScaledArithmeticOp operation, const poplar::layout::Vector &,
    const poplar::layout::Vector &, const unsigned numElems) {
  // The map popops/ScaledAdd.cpp builds: B is cast to A's type first; a scale is a FLOAT
  // constant or a one-element tensor of A's type (operands _3 and _4).
  using expr::_1, expr::_2, expr::_3, expr::_4;
  const bool twoScales =
      operation == ScaledArithmeticOp::AXPLUSBY || operation == ScaledArithmeticOp::AXMINUSBY;
  std::vector<std::pair<poplar::Type, bool>> types = {{dataType, false}, {dataBType, false}};
  if (!isConstant) {
    types.push_back({dataType, true});
    if (twoScales)
      types.push_back({dataType, true});
  }
  const expr::Any b = dataBType == dataType ? expr::Any(_2) : expr::Any(expr::Cast(_2, dataType));
  const expr::Any scaleB =
      isConstant ? expr::Any(expr::Const(0.5f)) : expr::Any(twoScales ? _4 : _3);
  const expr::Any scaleA = isConstant ? expr::Any(expr::Const(0.5f)) : expr::Any(_3);
  const expr::Any scaledB = expr::Mul(scaleB, b);
  const expr::Any a = twoScales ? expr::Any(expr::Mul(scaleA, _1)) : expr::Any(_1);
  const bool subtract =
      operation == ScaledArithmeticOp::SUBTRACT || operation == ScaledArithmeticOp::AXMINUSBY;
  const expr::Any update =
      subtract ? expr::Any(expr::Sub(a, scaledB)) : expr::Any(expr::Add(a, scaledB));
  return mapExprCycles(bodyInstructions(castTarget(), update, types), numElems, 1);
}

poplar::VertexPerfEstimate broadcastArithmetic1DCycleEstimate(const poplar::Target &target,
                                                              expr::BinaryOpType op,
                                                              const poplar::Type &inType,
                                                              const poplar::Type &, bool,
                                                              std::size_t dataSize) {
  const std::uint64_t instructions = bodyInstructions(
      target, expr::BinaryOp(op, expr::_1, expr::_2), {{inType, false}, {inType, true}});
  return {mapExprCycles(instructions, dataSize, 1), dataSize};
}

poplar::VertexPerfEstimate broadcastArithmeticCycleEstimate(const poplar::Target &target,
                                                            expr::BinaryOpType op,
                                                            const poplar::Type &inType,
                                                            const poplar::Type &, bool, bool,
                                                            const std::vector<std::size_t> &data) {
  const std::uint64_t instructions = bodyInstructions(
      target, expr::BinaryOp(op, expr::_1, expr::_2), {{inType, false}, {inType, true}});
  const std::uint64_t elements = std::accumulate(data.begin(), data.end(), std::uint64_t(0));
  return {mapExprCycles(instructions, elements, data.size()), elements};
}

} // namespace popops::internal
