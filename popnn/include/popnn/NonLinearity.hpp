// Element-wise non-linearities and softmax, forward and input gradient.
//
// Every function accepts FLOAT and HALF tensors (HALF is computed in float and rounded once);
// other element types throw poputil::poplibs_error naming the tensor and its type. The softmax
// family works on the innermost dimension of a tensor of any rank >= 1, each row independently,
// and is always max-subtracted. Results are laid out like the input.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popnn/NonLinearityDef.hpp>
#include <popnn/NonLinearityDefUtil.hpp>

/// The factor SOFTMAX_SCALED multiplies its outputs by (large, so HALF outputs keep precision).
#define SOFTMAX_SCALING (62000.0F)

namespace popnn {

/// Applies `nonLinearityType` to `t`, writing the result back into `t`.
void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                         poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext = {});

/// As above; `nonLinearityScaling` is set to the factor the outputs carry (SOFTMAX_SCALING for
/// SOFTMAX_SCALED, else 1).
void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                         float &nonLinearityScaling, poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext = {});

/// As above, adding the work to `cs` (one vertex per tile holding part of `t`) so it can share a
/// compute set with other element-wise work. Element-wise types only: the softmax family needs
/// several compute sets and throws poputil::poplibs_error (use the Sequence form).
void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                         poplar::ComputeSet &cs, const poplar::DebugContext &debugContext = {});

/// As above, reporting the output scaling (1 for every element-wise type).
void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                         float &nonLinearityScaling, poplar::ComputeSet &cs,
                         const poplar::DebugContext &debugContext = {});

/// Applies `nonLinearityType` to `t`; returns a new tensor mapped like `t`.
poplar::Tensor nonLinearity(poplar::Graph &graph, NonLinearityType nonLinearityType,
                            poplar::Tensor t, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext = {});

/// As above, reporting the output scaling as nonLinearityInPlace does.
poplar::Tensor nonLinearity(poplar::Graph &graph, NonLinearityType nonLinearityType,
                            poplar::Tensor t, float &nonLinearityScaling,
                            poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext = {});

// Named forms, as PopLibs declares them: NAME(graph, t, prog) returns a new tensor,
// NAMEInPlace(graph, t, prog) writes into t; each also has a form reporting the output scaling.
#define TESSERA_POPNN_NAMED_NON_LINEARITY(NAME, TYPE)                                              \
  inline poplar::Tensor NAME(poplar::Graph &graph, poplar::Tensor t,                               \
                             poplar::program::Sequence &prog,                                      \
                             const poplar::DebugContext &debugContext = {}) {                      \
    return nonLinearity(graph, NonLinearityType::TYPE, t, prog, debugContext);                     \
  }                                                                                                \
  inline poplar::Tensor NAME(poplar::Graph &graph, poplar::Tensor t, float &nonLinearityScaling,   \
                             poplar::program::Sequence &prog,                                      \
                             const poplar::DebugContext &debugContext = {}) {                      \
    return nonLinearity(graph, NonLinearityType::TYPE, t, nonLinearityScaling, prog,               \
                        debugContext);                                                             \
  }                                                                                                \
  inline void NAME##InPlace(poplar::Graph &graph, poplar::Tensor t,                                \
                            poplar::program::Sequence &prog,                                       \
                            const poplar::DebugContext &debugContext = {}) {                       \
    nonLinearityInPlace(graph, NonLinearityType::TYPE, t, prog, debugContext);                     \
  }                                                                                                \
  inline void NAME##InPlace(poplar::Graph &graph, poplar::Tensor t, float &nonLinearityScaling,    \
                            poplar::program::Sequence &prog,                                       \
                            const poplar::DebugContext &debugContext = {}) {                       \
    nonLinearityInPlace(graph, NonLinearityType::TYPE, t, nonLinearityScaling, prog,               \
                        debugContext);                                                             \
  }

TESSERA_POPNN_NAMED_NON_LINEARITY(sigmoid, SIGMOID)
TESSERA_POPNN_NAMED_NON_LINEARITY(relu, RELU)
TESSERA_POPNN_NAMED_NON_LINEARITY(tanh, TANH)
TESSERA_POPNN_NAMED_NON_LINEARITY(gelu, GELU)
TESSERA_POPNN_NAMED_NON_LINEARITY(swish, SWISH)
TESSERA_POPNN_NAMED_NON_LINEARITY(softmax, SOFTMAX)
TESSERA_POPNN_NAMED_NON_LINEARITY(softmaxStable, SOFTMAX_STABLE)
TESSERA_POPNN_NAMED_NON_LINEARITY(scaledSoftmaxStable, SOFTMAX_SCALED)
#undef TESSERA_POPNN_NAMED_NON_LINEARITY

/// The gradient with respect to the non-linearity's input, given `outGradient` (the gradient
/// with respect to its output, same shape as `act`). `act` is the forward OUTPUT for SIGMOID,
/// HARD_SIGMOID, RELU, TANH and the softmax family (for SOFTMAX_SCALED, the unscaled softmax
/// output), and the forward INPUT for GELU, GELU_ERF and SWISH, whose outputs do not determine
/// their inputs. Throws poputil::poplibs_error naming both tensors if the shapes differ.
poplar::Tensor nonLinearityInputGradient(poplar::Graph &graph, NonLinearityType nonLinearityType,
                                         poplar::Tensor act, poplar::Tensor outGradient,
                                         poplar::program::Sequence &prog,
                                         const poplar::DebugContext &debugContext = {});

/// As above, adding the work to `cs` (one vertex per tile holding part of `act`; the result is
/// mapped like `act`). Element-wise types only: the softmax family throws
/// poputil::poplibs_error.
poplar::Tensor nonLinearityInputGradient(poplar::Graph &graph, NonLinearityType nonLinearityType,
                                         poplar::Tensor act, poplar::Tensor outGradient,
                                         poplar::ComputeSet &cs,
                                         const poplar::DebugContext &debugContext = {});

} // namespace popnn
