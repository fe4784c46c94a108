// Several independent convolutions built as one operation: the tensors they need are created
// through these functions and the convolutions, their weight gradients or weight updates are
// appended to one program, each planned over the tiles as poplin/Convolution.hpp plans a single
// convolution (same shapes, options and results as the single-convolution calls).
//
// Options of the multi-convolution as a whole (the `options` arguments; each convolution's own
// options travel in its *Args): `planType` "parallel" (default) or "serial",
// `perConvReservedTiles` (an integer, default 50) and `cycleBackOff` (a number in [0, 1),
// default 0.1). They are checked and accepted; Tessera builds the convolutions one after the
// other in either case, which gives the same results. An unknown option or a bad value throws
// poplar::invalid_option; an index out of range or mismatched tensors throw
// poputil::poplibs_error naming the convolution.
#pragma once

#include <string>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/Convolution.hpp>

namespace poplin {
namespace multiconv {

/// What creating one convolution's input or weights needs: its parameters, its options and a
/// debug name for the new tensor.
struct CreateTensorArgs {
  ConvParams params;
  poplar::OptionFlags options;
  std::string name;
};

/// The weights of every convolution of `args`, each as poplin::createWeights makes it.
std::vector<poplar::Tensor> createWeights(poplar::Graph &graph,
                                          const std::vector<CreateTensorArgs> &args,
                                          const poplar::OptionFlags &options = {},
                                          PlanningCache *cache = nullptr);

/// The weights of convolution `weightsIndex` of `args`.
poplar::Tensor createWeights(poplar::Graph &graph, const std::vector<CreateTensorArgs> &args,
                             unsigned weightsIndex, const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);

/// The inputs of every convolution of `args`, each as poplin::createInput makes it.
std::vector<poplar::Tensor> createInput(poplar::Graph &graph,
                                        const std::vector<CreateTensorArgs> &args,
                                        const poplar::OptionFlags &options = {},
                                        PlanningCache *cache = nullptr);

/// The input of convolution `inputIndex` of `args`.
poplar::Tensor createInput(poplar::Graph &graph, const std::vector<CreateTensorArgs> &args,
                           unsigned inputIndex, const poplar::OptionFlags &options = {},
                           PlanningCache *cache = nullptr);

/// One convolution of a multi-convolution: its input, weights, parameters and options.
struct ConvolutionArgs {
  poplar::Tensor inputs;
  poplar::Tensor weights;
  ConvParams params;
  poplar::OptionFlags options;
};

/// The output of every convolution of `args` (see poplin::convolution; with
/// `transposeAndFlipWeights` every convolution takes its weights transposed and flipped).
std::vector<poplar::Tensor>
convolution(poplar::Graph &graph, const std::vector<ConvolutionArgs> &args,
            bool transposeAndFlipWeights, poplar::program::Sequence &prog,
            const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
            PlanningCache *cache = nullptr);

/// For each i, copies weightsIn[i] transposed and flipped (poplin::weightsTransposeChansFlipXY)
/// into weightsOut[i].weights.
void weightsTransposeChansFlipXY(poplar::Graph &graph,
                                 const std::vector<ConvolutionArgs> &weightsOut,
                                 const std::vector<poplar::Tensor> &weightsIn,
                                 poplar::program::Sequence &prog,
                                 const poplar::OptionFlags &options = {},
                                 const poplar::DebugContext &debugContext = {},
                                 PlanningCache *cache = nullptr);

/// One weight-gradient computation: the output gradient, the forward input, the forward
/// parameters and options.
struct CalculateWeightDeltasArgs {
  poplar::Tensor zDeltas;
  poplar::Tensor activations;
  ConvParams params;
  poplar::OptionFlags options;
};

/// The weight gradient of every convolution of `args` (see poplin::calculateWeightDeltas).
std::vector<poplar::Tensor>
calculateWeightDeltas(poplar::Graph &graph, const std::vector<CalculateWeightDeltasArgs> &args,
                      poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

/// One weight update, weights += scale · gradient, with a single-element scale tensor.
struct ConvWeightUpdateArgs {
  poplar::Tensor zDeltas;
  poplar::Tensor weights;
  poplar::Tensor activations;
  poplar::Tensor scale;
  ConvParams params;
  poplar::OptionFlags options;
};

/// Applies every weight update of `args` (see poplin::convolutionWeightUpdate).
void convolutionWeightUpdate(poplar::Graph &graph, const std::vector<ConvWeightUpdateArgs> &args,
                             poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);

/// One weight update with a constant scale.
struct ConvWeightUpdateArgsScalar {
  poplar::Tensor zDeltas;
  poplar::Tensor weights;
  poplar::Tensor activations;
  float scale;
  ConvParams params;
  poplar::OptionFlags options;
};

/// Applies every weight update of `args` with constant scales.
void convolutionWeightUpdate(poplar::Graph &graph,
                             const std::vector<ConvWeightUpdateArgsScalar> &args,
                             poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);

} // namespace multiconv
} // namespace poplin
