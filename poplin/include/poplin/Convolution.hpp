// Convolutions on tiles: forward, input gradient (a convolution with transposed, flipped
// weights), weight gradient and bias operations, for 1–3 spatial dimensions, grouped and
// depthwise (groups == channels). Shapes and transforms: poplin/ConvParams.hpp.
//
// Every operation is planned (how to split batch, groups, channels and output field over tiles,
// and whether partial sums are reduced across tiles) within `availableMemoryProportion` of each
// tile's memory, minimising the cost model's cycles. Plans are cached in a PlanningCache and
// printed by reportPlanInfo. 1x1 convolutions (unpadded; strides that divide the field) are
// planned both ways and become matrix products over the batch × field positions when that is
// cheaper, as for wide channels. Tensors from createInput / createWeights are laid out as the plan
// wants them, so they need no rearrangement; any other layout works and is gathered.
//
// Options (poplar::OptionFlags): `availableMemoryProportion` in (0, 1] (default 0.6),
// `partialsType` "float" (default) or "half" (Tessera accumulates in fp32 either way), `pass`
// NONE, INFERENCE_FWD, TRAINING_FWD, TRAINING_BWD, TRAINING_WU, FC_INFERENCE_FWD,
// FC_TRAINING_FWD, FC_TRAINING_BWD, FC_TRAINING_WU; PopLibs' tuning options
// (`use128BitConvUnitLoad`, `enableMultiStageReduce`, `enableFastReduce`, `planConstraints`,
// `remapOutputTensor`, `enableConvDithering`, `disableSRForAMPConvs`) are accepted without
// effect. Tessera's `pointwiseAsMatMul`: "auto" (default: such a 1x1 convolution
// is computed as a matMul over batch × field positions when the cost model expects that to be
// faster, as it is once channels are wide), "true" (always) or "false" (never). Tessera's
// `useWinograd`, with the same values: a 2-D 3x3 stride-1 FLOAT convolution (and so its input
// gradient) computed by Winograd's F(2x2, 3x3) — 16 matrix products over transformed 4x4 input
// patches, 2.25x fewer multiplies than the direct method — when the cost model expects that to
// be faster, as it is for wide channels; results differ from the direct method's by rounding
// only (the transforms add and halve, in a fixed order). Tessera's `im2colMatMul`, with the same
// values: a strided 2-D FLOAT convolution lowered to one matrix product per group over its
// gathered input patches (im2col), and its input gradient (an input-dilated convolution) to the
// product of the weights and the output gradient whose columns are then gathered into the
// result (col2im, which never multiplies the dilation's zeros); "auto" takes them for wide
// channels and small output fields, "true" for any 2-D FLOAT convolution with a kernel of
// more than one element. Tessera's `planObjective`: "hostTime" (default: the plan the host runs
// fastest) or "ipuCycles" (the plan with the fewest cycles by the IPU cost model — as a real IPU
// would be planned, for estimates; its "auto" methods are the blocks and pointwise products).
// An unknown option
// or bad value throws poplar::invalid_option naming it and suggesting the nearest valid name. Shape
// and type errors throw poputil::poplibs_error naming the operand.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <set>
#include <tuple>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/ConvParams.hpp>
#include <poplin/MatMul.hpp>

namespace poplin {

/// A new input tensor [B][G*ICperG][fields…] mapped as the forward plan for `params` wants.
poplar::Tensor createInput(poplar::Graph &graph, const ConvParams &params,
                           const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

/// New weights [G][OCperG][ICperG][kernel…] mapped as the forward plan wants.
poplar::Tensor createWeights(poplar::Graph &graph, const ConvParams &params,
                             const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);

/// New output-shaped tensor [B][G*OCperG][output fields…] mapped as the forward plan maps its
/// output.
poplar::Tensor createConvOutput(poplar::Graph &graph, const ConvParams &params,
                                const poplar::DebugContext &debugContext,
                                const poplar::OptionFlags &options = {},
                                PlanningCache *cache = nullptr);

/// Biases [channels] for activations [B][channels][fields…], mapped beside the channels.
poplar::Tensor createBiases(poplar::Graph &graph, const poplar::Tensor &activations,
                            const poplar::DebugContext &debugContext = {"biases"});

/// Biases [output channels] for the output of the convolution `params` (`activations` is that
/// output); `params` must describe as many output channels as activations has.
poplar::Tensor createBiases(poplar::Graph &graph, const poplar::Tensor &activations,
                            const ConvParams &params,
                            const poplar::DebugContext &debugContext = {"biases"},
                            const poplar::OptionFlags &options = {},
                            PlanningCache *cache = nullptr);

/// out = conv(in, weights) for `params`. With `transposeAndFlipWeights`, `weights` has shape
/// [G][ICperG][OCperG][kernel…] (the forward layer's weights when `params` are its
/// getGradientParams) and each kernel is flipped in every spatial dimension — the input-gradient
/// pass.
poplar::Tensor convolution(poplar::Graph &graph, const poplar::Tensor &in,
                           const poplar::Tensor &weights, const ConvParams &params,
                           bool transposeAndFlipWeights, poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext = {},
                           const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

/// As convolution(), writing the result into the existing tensor `out`
/// ([B][G*OCperG][output fields…], params.outputType, e.g. from createConvOutput).
void convolutionWithOutput(poplar::Graph &graph, const poplar::Tensor &in,
                           const poplar::Tensor &weights, const poplar::Tensor &out,
                           const ConvParams &params, bool transposeAndFlipWeights,
                           poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext = {},
                           const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

/// Plans every convolution of `convs` (target, parameters, options; ConvPlanParams is declared
/// in poplin/MatMul.hpp) into `cache`, for the pass its `pass` option names (TRAINING_WU and
/// FC_TRAINING_WU: the weight-gradient pass; otherwise forward). Deprecated in PopLibs in
/// favour of preplan() (poplin/ConvPreplan.hpp).
void preplanConvolutions(const std::set<ConvPlanParams> &convs, PlanningCache &cache);
/// As above; `graph` is not needed (each entry names its target) and is accepted for PopLibs'
/// signature.
void preplanConvolutions(poplar::Graph &graph, const std::set<ConvPlanParams> &convs,
                         PlanningCache &cache);

/// weightsOut[g][ic][oc][k…] = weightsIn[g][oc][ic][flipped k…]: the explicit form of what
/// transposeAndFlipWeights does implicitly.
void weightsTransposeChansFlipXY(poplar::Graph &graph, const poplar::Tensor &weightsIn,
                                 const poplar::Tensor &weightsOut, poplar::program::Sequence &prog,
                                 const poplar::DebugContext &debugContext = {});

/// The gradient of the forward convolution `params`'s loss with respect to its weights, given
/// the output gradient `zDeltas` [B][OC][out fields…] and the forward input `activations`.
/// Returns [G][OCperG][ICperG][kernel…] in params.outputType.
poplar::Tensor calculateWeightDeltas(poplar::Graph &graph, const poplar::Tensor &zDeltas,
                                     const poplar::Tensor &activations, const ConvParams &params,
                                     poplar::program::Sequence &prog,
                                     const poplar::DebugContext &debugContext = {},
                                     const poplar::OptionFlags &options = {},
                                     PlanningCache *cache = nullptr);

/// weights += scale · calculateWeightDeltas(…) (scale is usually −learning rate).
void convolutionWeightUpdate(poplar::Graph &graph, const poplar::Tensor &zDeltas,
                             const poplar::Tensor &weights, const poplar::Tensor &activations,
                             ConvParams params, const poplar::Tensor &scale,
                             poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);
void convolutionWeightUpdate(poplar::Graph &graph, const poplar::Tensor &zDeltas,
                             const poplar::Tensor &weights, const poplar::Tensor &activations,
                             ConvParams params, float scale, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);

/// biases += scale · Σ_{batch, field} zDeltas[b][c][…] per channel c.
void convolutionBiasUpdate(poplar::Graph &graph, const poplar::Tensor &zDeltas,
                           const poplar::Tensor &biases, const poplar::Tensor &scale,
                           const poplar::OptionFlags &options, poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext = {});
void convolutionBiasUpdate(poplar::Graph &graph, const poplar::Tensor &zDeltas,
                           const poplar::Tensor &biases, float scale,
                           const poplar::OptionFlags &options, poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext = {});

/// in[b][c][…] += biases[c], in place.
void addBias(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &biases,
             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

/// Multiply-add counts ×2 of the forward, input-gradient and weight-gradient passes.
std::uint64_t getFwdFlops(const ConvParams &params);
std::uint64_t getBwdFlops(const ConvParams &params);
std::uint64_t getWuFlops(const ConvParams &params);

/// The cycles the forward (input-gradient, weight-gradient) pass would take if every tile did
/// useful multiply-accumulates every cycle at its peak rate (16 FLOAT or 64 HALF products per
/// tile per cycle): getFwdFlops / (2 · peak · tiles). A lower bound, for measuring efficiency.
double getFwdPerfectCycleCount(const poplar::Graph &graph, const ConvParams &params);
double getBwdPerfectCycleCount(const poplar::Graph &graph, const ConvParams &params);
double getWuPerfectCycleCount(const poplar::Graph &graph, const ConvParams &params);

/// The planner's estimate for a plan: cycles (the cost model's total) and memory (bytes over
/// all tiles the plan uses).
struct PlanCosts {
  std::size_t cycles = 0;
  std::size_t memory = 0;
};

/// The estimated costs of the forward plan for `params`.
PlanCosts reportPlanEstimatedCosts(const poplar::Graph &graph, const ConvParams &params,
                                   const poplar::OptionFlags &options = {},
                                   PlanningCache *cache = nullptr);

/// Checks convolution options: throws poplar::invalid_option for an unknown name or bad value.
void convolutionValidateOptions(const poplar::OptionFlags &options);

/// The weights of a fully-connected layer, held as the weights of a 1-d convolution, arranged
/// for its backward pass: `activations` are the forward weights [G][IC][OC][kernel] (IC, OC
/// params' input and output channels per group) and the result is [G][OC][IC][kernel] with
/// result[g][o][i][k] = activations[g][i][o][k], usable as the weights of convolution(params).
/// Each (group, kernel position) matrix is transposed by vertices on the tile holding its start.
/// params must have one field dimension and inputType equal to activations' element type;
/// `options` are validated as convolution options; `cache` is unused. Errors:
/// poputil::poplibs_error naming params or activations.
poplar::Tensor fullyConnectedWeightTranspose(poplar::Graph &graph, poplar::Tensor activations,
                                             const ConvParams &params,
                                             poplar::program::Sequence &prog,
                                             const poplar::DebugContext &debugContext,
                                             const poplar::OptionFlags &options,
                                             PlanningCache *cache = nullptr);

/// Prints the plan the forward convolution `params` would use.
void reportPlanInfo(std::ostream &out, const poplar::Graph &graph, const ConvParams &params,
                    const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

/// Prints the plan calculateWeightDeltas / convolutionWeightUpdate would use for the forward
/// convolution `params`.
void reportWeightUpdatePlanInfo(std::ostream &out, const poplar::Graph &graph,
                                const ConvParams &params, const poplar::OptionFlags &options = {},
                                PlanningCache *cache = nullptr);

} // namespace poplin
