// poplin::fullyConnectedWeightTranspose: the weights of a fully-connected layer, held as the
// weights of a 1-d convolution, with their input and output channels swapped for the backward
// pass. Each (group, kernel position) matrix is transposed by popops' transposition vertices on
// the tile that holds the start of it.
#include <poplin/Convolution.hpp>

#include <string>
#include <vector>

#include <popops/Rearrange.hpp>
#include <poputil/Describe.hpp>
#include <poputil/exceptions.hpp>

namespace poplin {

poplar::Tensor fullyConnectedWeightTranspose(poplar::Graph &graph, poplar::Tensor activations,
                                             const ConvParams &params,
                                             poplar::program::Sequence &prog,
                                             const poplar::DebugContext &debugContext,
                                             const poplar::OptionFlags &options, PlanningCache *) {
  const std::string fn = "poplin::fullyConnectedWeightTranspose: ";
  if (params.getNumFieldDims() != 1)
    throw poputil::poplibs_error(fn + "params must describe a 1-d convolution but has " +
                                 std::to_string(params.getNumFieldDims()) + " field dimensions");
  params.validate();
  convolutionValidateOptions(options);
  const std::size_t groups = params.getNumConvGroups();
  const std::size_t inChans = params.getNumInputChansPerConvGroup();
  const std::size_t outChans = params.getNumOutputChansPerConvGroup();
  const std::size_t kernel = params.getKernelSize(0);
  // The weights of the forward layer: params with input and output channels swapped.
  const std::vector<std::size_t> expected{groups, inChans, outChans, kernel};
  if (activations.shape() != expected)
    throw poputil::poplibs_error(
        fn + "activations (the forward weights) must have shape " + poputil::shapeString(expected) +
        " ([groups][params' input channels][params' output channels][kernel]) but has shape " +
        poputil::shapeString(activations.shape()));
  if (activations.elementType() != params.inputType)
    throw poputil::poplibs_error(fn + "activations have type " +
                                 activations.elementType().toString() +
                                 " but params.inputType is " + params.inputType.toString());
  const std::string name = debugContext.getPathName().empty() ? "fullyConnectedWeightTranspose"
                                                              : debugContext.getPathName();
  // [G][IC][OC][K] as [G][K][IC][OC] matrices, transposed to [G][K][OC][IC].
  poplar::ComputeSet cs = graph.addComputeSet(name + "/transpose");
  poplar::Tensor transposed =
      popops::rearrange::partialTranspose(graph, activations.dimShuffle({0, 3, 1, 2}), cs, name);
  prog.add(poplar::program::Execute(cs));
  return transposed.dimShuffle({0, 2, 3, 1});
}

} // namespace poplin
