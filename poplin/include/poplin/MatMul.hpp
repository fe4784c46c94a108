// Matrix multiplication on tiles: C = A · B, C += k · A · B, and their grouped forms.
//
// Every function plans how to split the product over the target's tiles (poplin/MatMulPlan.hpp):
// blocks of rows, columns and the inner dimension, each on its own tile, within
// `availableMemoryProportion` of each tile's memory; the inner dimension may be split, in which
// case fp32 partial products are summed in a fixed order by a second compute set. Operands may
// be any views (e.g. `A.transpose()`); they need no exchange when created with
// createMatMulInputLHS / createMatMulInputRHS for the same shapes and options.
//
// Options (poplar::OptionFlags):
//  - `availableMemoryProportion`: fraction of each tile's memory the operation may use,
//    in (0, 1] (default 0.6);
//  - `partialsType`: "float" (default) or "half" — Tessera always accumulates in fp32, which is
//    at least as accurate;
//  - `fullyConnectedPass`: NONE (default), INFERENCE_FWD, TRAINING_FWD, TRAINING_BWD,
//    TRAINING_WU — accepted for compatibility; the plan is chosen from the shapes alone;
//  - `planObjective` (Tessera extension): "hostTime" (default) picks the split the host runs
//    fastest — fewer, larger blocks, still within each tile's budget; "ipuCycles" picks the
//    split with the fewest estimated IPU cycles (see PlanObjective in poplin/MatMulPlan.hpp);
//  - PopLibs' tuning options `planConstraints`, `remapOutputTensor`, `enableMultiStageReduce`,
//    `enableFastReduce`, `use128BitConvUnitLoad`, `inputRHSIsPreArranged`,
//    `disableSRForAMPConvs` are accepted and have no effect.
// An unknown option, or a bad value, throws poplar::invalid_option naming it. Shape or type
// errors throw poputil::poplibs_error naming the operand.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Target.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <poplin/ConvParams.hpp>

namespace poplin {

/// The training pass a fully-connected layer's multiply belongs to (the `fullyConnectedPass`
/// option).
enum class FullyConnectedPass { NONE, INFERENCE_FWD, TRAINING_FWD, TRAINING_BWD, TRAINING_WU };

class PlanningCacheImpl;

/// Remembers plans by (shapes, types, options, target) so repeated multiplies of one shape plan
/// once. Thread-safe; owned by the caller and passed by pointer (null: no caching).
class PlanningCache {
public:
  PlanningCache();
  ~PlanningCache();
  PlanningCache(const PlanningCache &) = delete;
  PlanningCache &operator=(const PlanningCache &) = delete;
  /// Number of plans held (matrix multiplies and convolution passes).
  std::size_t size() const;

  std::unique_ptr<PlanningCacheImpl> impl;
};

namespace matmul {
using PlanningCache = poplin::PlanningCache; ///< The older PopLibs spelling.
}

/// One matrix multiply C = A · B described by its types and shapes ({M,K}·{K,N} or grouped
/// {G,M,K}·{G,K,N}): what the *PrePlanParameters functions return so multiplies can be
/// planned ahead. Ordered (operator<) so it can key a std::set.
struct MatMulParams {
  poplar::Type inputType;  ///< Type of A and B.
  poplar::Type outputType; ///< Type of C.
  std::vector<std::size_t> aShape;
  std::vector<std::size_t> bShape;
  friend bool operator<(const MatMulParams &a, const MatMulParams &b);
};

/// The view of grouped matrices A [G][M][N] with each matrix transposed: [G][N][M] (no copy).
poplar::Tensor transposeGroupedMatrix(const poplar::Tensor &A);

/// What preplanning a multiply needs: the target it will run on (for tile counts and memory),
/// its parameters and its options (pointers: the caller keeps them alive while planning).
using MatMulPlanParams =
    std::tuple<const poplar::Target *, const MatMulParams, const poplar::OptionFlags *>;

/// What preplanning a convolution needs (also declared here because matMulGetConvPlanParams
/// returns it; see poplin/Convolution.hpp).
using ConvPlanParams =
    std::tuple<const poplar::Target *, const ConvParams, const poplar::OptionFlags *>;

/// For each matMul options object, the convolution options of the equivalent convolution.
using MatMulToConvOptions = std::unordered_map<const poplar::OptionFlags *, poplar::OptionFlags>;

/// The convolutions equivalent to `matmuls`: A [G][M][K] · B [G][K][N] is the 1-D convolution of
/// G groups over a field of M positions with K input and N output channels per group and a
/// kernel of one element. `matmulToConvOpts` receives, for each options pointer of `matmuls`,
/// options the convolution functions accept (the ConvPlanParams point into it).
std::set<ConvPlanParams> matMulGetConvPlanParams(const std::set<MatMulPlanParams> &matmuls,
                                                 MatMulToConvOptions &matmulToConvOpts);

/// Plans every multiply of `matmuls` into `cache`, so the later calls find their plans there.
/// Deprecated in PopLibs in favour of preplan() (poplin/ConvPreplan.hpp).
void preplanMatMuls(const std::set<MatMulPlanParams> &matmuls, matmul::PlanningCache &cache);

/// Checks matMul options: throws poplar::invalid_option for an unknown name or a bad value.
void matmulValidateOptions(const poplar::OptionFlags &options);

/// C = A · B for matrices A [M][K] and B [K][N]; returns a new tensor C [M][N] of `outputType`,
/// mapped to tiles. A and B have one type, FLOAT or HALF.
poplar::Tensor matMul(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog, const poplar::Type &outputType,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

/// As above with the output type of A.
poplar::Tensor matMul(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

/// out = A · B into an existing tensor `out` [M][N] (FLOAT or HALF).
void matMulWithOutput(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                      const poplar::Tensor &out, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

/// C += k · A · B for an existing C [M][N].
void matMulAcc(poplar::Graph &graph, const poplar::Tensor &C, float k, const poplar::Tensor &A,
               const poplar::Tensor &B, poplar::program::Sequence &prog,
               const poplar::DebugContext &debugContext = {},
               const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

/// C += k · A · B with k a single-element tensor (read when the program runs): the product is
/// formed in a temporary of C's type, then scaled and added to C by popops::scaledAddTo.
void matMulAcc(poplar::Graph &graph, const poplar::Tensor &C, const poplar::Tensor &k,
               const poplar::Tensor &A, const poplar::Tensor &B, poplar::program::Sequence &prog,
               const poplar::DebugContext &debugContext = {},
               const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

/// C[g] = A[g] · B[g] for A [G][M][K] and B [G][K][N]; returns C [G][M][N].
poplar::Tensor matMulGrouped(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             poplar::program::Sequence &prog, const poplar::Type &outputType,
                             const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);

/// out[g] = A[g] · B[g] into an existing out [G][M][N].
void matMulGroupedWithOutput(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             const poplar::Tensor &out, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);

/// C[g] += k · A[g] · B[g].
void matMulGroupedAcc(poplar::Graph &graph, const poplar::Tensor &C, float k,
                      const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

/// C[g] += k · A[g] · B[g] with k a single-element tensor.
void matMulGroupedAcc(poplar::Graph &graph, const poplar::Tensor &C, const poplar::Tensor &k,
                      const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

/// A new LHS operand of shape `aShape` ({M,K}) laid out as the plan for aShape × bShape wants:
/// each block on the tile that multiplies it.
poplar::Tensor createMatMulInputLHS(poplar::Graph &graph, const poplar::Type &inputType,
                                    const poplar::Type &outputType,
                                    const std::vector<std::size_t> &aShape,
                                    const std::vector<std::size_t> &bShape,
                                    const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options = {},
                                    PlanningCache *cache = nullptr);
/// As above with outputType = dataType.
poplar::Tensor createMatMulInputLHS(poplar::Graph &graph, const poplar::Type &dataType,
                                    const std::vector<std::size_t> &aShape,
                                    const std::vector<std::size_t> &bShape,
                                    const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options = {},
                                    PlanningCache *cache = nullptr);

/// A new RHS operand of shape `bShape` ({K,N}) laid out as the plan wants.
poplar::Tensor createMatMulInputRHS(poplar::Graph &graph, const poplar::Type &inputType,
                                    const poplar::Type &outputType,
                                    const std::vector<std::size_t> &aShape,
                                    const std::vector<std::size_t> &bShape,
                                    const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options = {},
                                    PlanningCache *cache = nullptr);
poplar::Tensor createMatMulInputRHS(poplar::Graph &graph, const poplar::Type &dataType,
                                    const std::vector<std::size_t> &aShape,
                                    const std::vector<std::size_t> &bShape,
                                    const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options = {},
                                    PlanningCache *cache = nullptr);

/// Grouped forms: shapes {G,M,K} and {G,K,N}.
poplar::Tensor createMatMulGroupedInputLHS(poplar::Graph &graph, const poplar::Type &inputType,
                                           const poplar::Type &outputType,
                                           const std::vector<std::size_t> &aShape,
                                           const std::vector<std::size_t> &bShape,
                                           const poplar::DebugContext &debugContext,
                                           const poplar::OptionFlags &options = {},
                                           PlanningCache *cache = nullptr);
poplar::Tensor createMatMulGroupedInputRHS(poplar::Graph &graph, const poplar::Type &inputType,
                                           const poplar::Type &outputType,
                                           const std::vector<std::size_t> &aShape,
                                           const std::vector<std::size_t> &bShape,
                                           const poplar::DebugContext &debugContext,
                                           const poplar::OptionFlags &options = {},
                                           PlanningCache *cache = nullptr);

/// A new output tensor {M,N} of `outputType` for aShape {M,K} × bShape {K,N}, laid out as the
/// plan writes its result (for matMulWithOutput).
poplar::Tensor
createMatMulOutput(poplar::Graph &graph, const poplar::Type &inputType,
                   const poplar::Type &outputType, const std::vector<std::size_t> &aShape,
                   const std::vector<std::size_t> &bShape, const poplar::DebugContext &debugContext,
                   const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
/// As above with outputType = dataType.
poplar::Tensor createMatMulOutput(poplar::Graph &graph, const poplar::Type &dataType,
                                  const std::vector<std::size_t> &aShape,
                                  const std::vector<std::size_t> &bShape,
                                  const poplar::DebugContext &debugContext,
                                  const poplar::OptionFlags &options = {},
                                  PlanningCache *cache = nullptr);
/// Grouped form: {G,M,N} for {G,M,K} × {G,K,N} (for matMulGroupedWithOutput).
poplar::Tensor createMatMulGroupedOutput(poplar::Graph &graph, const poplar::Type &inputType,
                                         const poplar::Type &outputType,
                                         const std::vector<std::size_t> &aShape,
                                         const std::vector<std::size_t> &bShape,
                                         const poplar::DebugContext &debugContext,
                                         const poplar::OptionFlags &options = {},
                                         PlanningCache *cache = nullptr);

/// A copy of B ({K,N}) laid out as createMatMulInputRHS would lay it out for aShape × B, copied
/// once by `prog`, so a B reused by many multiplies is rearranged once. (Tessera's multiplies
/// read any layout, so the option `inputRHSIsPreArranged` changes nothing.)
poplar::Tensor preArrangeMatMulInputRHS(poplar::Graph &graph,
                                        const std::vector<std::size_t> &aShape,
                                        const poplar::Tensor &B, poplar::program::Sequence &prog,
                                        const poplar::Type &outputType,
                                        const poplar::DebugContext &debugContext = {},
                                        const poplar::OptionFlags &options = {},
                                        PlanningCache *cache = nullptr);
/// As above with the output type of B.
poplar::Tensor preArrangeMatMulInputRHS(poplar::Graph &graph,
                                        const std::vector<std::size_t> &aShape,
                                        const poplar::Tensor &B, poplar::program::Sequence &prog,
                                        const poplar::DebugContext &debugContext = {},
                                        const poplar::OptionFlags &options = {},
                                        PlanningCache *cache = nullptr);
/// Grouped form: B {G,K,N} for aShape {G,M,K}.
poplar::Tensor preArrangeMatMulGroupedInputRHS(
    poplar::Graph &graph, const std::vector<std::size_t> &aShape, const poplar::Tensor &B,
    poplar::program::Sequence &prog, const poplar::Type &outputType,
    const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
    PlanningCache *cache = nullptr);

/// Prints the plan a multiply of these shapes would use (see MatMulPlan.hpp).
void matMulReportPlan(std::ostream &out, const poplar::Graph &graph, const poplar::Type &inputType,
                      const poplar::Type &outputType, const std::vector<std::size_t> &aShape,
                      const std::vector<std::size_t> &bShape,
                      const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
void matMulGroupedReportPlan(std::ostream &out, const poplar::Graph &graph,
                             const poplar::Type &inputType, const poplar::Type &outputType,
                             const std::vector<std::size_t> &aShape,
                             const std::vector<std::size_t> &bShape,
                             const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);
/// Tessera shorthand: the FLOAT plan for aShape × bShape.
void reportPlanInfo(std::ostream &out, const poplar::Graph &graph,
                    const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape,
                    const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

} // namespace poplin
