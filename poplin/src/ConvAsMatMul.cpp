#include "ConvAsMatMul.hpp"

#include <numeric>
#include <vector>

#include <poputil/exceptions.hpp>

#include "ConvIndexing.hpp"
#include "MatMulBuild.hpp"
#include "MatMulPlanner.hpp"

namespace poplin::detail {
namespace {

std::size_t positions(const ConvParams &params) {
  return params.batchSize * std::accumulate(params.inputFieldShape.begin(),
                                            params.inputFieldShape.end(), std::size_t(1),
                                            std::multiplies<>());
}

/// [B][G·C][fields…] → [G][C][P] (a view).
poplar::Tensor asMatrix(const poplar::Tensor &t, std::size_t groups) {
  poplar::Tensor r = t.reshapePartial(1, 2, {groups, t.dim(1) / groups});
  std::vector<unsigned> perm = {1, 2, 0};
  for (unsigned d = 3; d < r.rank(); ++d)
    perm.push_back(d);
  return r.dimShuffle(perm).flatten(2, r.rank());
}

/// [G][C][P] → [B][G·C][fields…] (a view): the inverse of asMatrix.
poplar::Tensor asActivations(const poplar::Tensor &m, const ConvParams &params) {
  std::vector<std::size_t> split = {params.batchSize};
  split.insert(split.end(), params.inputFieldShape.begin(), params.inputFieldShape.end());
  poplar::Tensor r = m.reshapePartial(2, 3, split); // [G][C][B][fields…]
  std::vector<unsigned> perm = {2, 0, 1};
  for (unsigned d = 3; d < r.rank(); ++d)
    perm.push_back(d);
  return r.dimShuffle(perm).flatten(1, 3);
}

/// [G][O][I][1…] ↔ [G][O][I].
poplar::Tensor weightMatrix(const poplar::Tensor &w) { return w.flatten(2, w.rank()); }

/// A layer's three passes keep their operands and results on the same tiles from the first
/// (every plan numbers its units from tile 0), so each product gets a third of the budget — the
/// convolution planner's rule for its own blocks.
constexpr double kPassesSharingTiles = 3;

MatMulOptions matMulOptions(const ConvOptions &options) {
  MatMulOptions m;
  m.availableMemoryProportion = options.availableMemoryProportion / kPassesSharingTiles;
  m.partialsType = options.partialsType;
  return m;
}

} // namespace

bool isPointwise(const ConvParams &params) {
  if (params.getOutputFieldShape() != params.inputFieldShape)
    return false;
  for (unsigned d = 0; d < params.getNumFieldDims(); ++d) {
    if (params.kernelShape[d] != 1 || params.getTransformedKernelSize(d) != 1)
      return false;
    for (std::size_t o = 0; o < params.inputFieldShape[d]; ++o)
      if (inputIndex(params, d, o, 0) != long(o))
        return false;
  }
  return true;
}

MatMulPlan planPointwise(const poplar::Target &target, const ConvParams &params, ConvPass pass,
                         const ConvOptions &options) {
  const std::size_t G = params.numConvGroups, O = params.outputChannelsPerConvGroup,
                    I = params.inputChannelsPerConvGroup, P = positions(params);
  return pass == ConvPass::FORWARD ? planMatMul(target, params.inputType, params.outputType, G, O,
                                                P, I, matMulOptions(options), nullptr)
                                   : planMatMul(target, params.inputType, params.outputType, G, O,
                                                I, P, matMulOptions(options), nullptr);
}

poplar::Tensor createPointwiseTensor(poplar::Graph &graph, const ConvPlan &plan,
                                     const ConvParams &params, ConvOperand which,
                                     const poplar::Type &type, const std::string &name) {
  const MatMulPlan &mm = *plan.matMul;
  const bool forward = plan.pass == ConvPass::FORWARD;
  if (which == ConvOperand::Weights) {
    // Forward: the product's A; weight gradient: its result.
    poplar::Tensor w =
        createBlockedTensor(graph, mm, forward ? Operand::LHS : Operand::Output, type, name);
    std::vector<std::size_t> shape = w.shape();
    shape.insert(shape.end(), params.kernelShape.begin(), params.kernelShape.end());
    return w.reshape(shape);
  }
  // Activations come from forward plans only (createInput, createConvOutput).
  if (!forward)
    throw poputil::poplibs_error("internal: a weight-gradient plan cannot lay out activations");
  const Operand op = which == ConvOperand::Input ? Operand::RHS : Operand::Output;
  return asActivations(createBlockedTensor(graph, mm, op, type, name), params);
}

void buildPointwiseConvolution(poplar::Graph &graph, const ConvPlan &plan, const ConvParams &params,
                               const poplar::Tensor &in, const poplar::Tensor &weights,
                               bool weightsTransposed, const poplar::Tensor &out,
                               poplar::program::Sequence &prog, const std::string &name) {
  const std::size_t G = params.numConvGroups;
  buildMatMul(graph, *plan.matMul, weightMatrix(weights), asMatrix(in, G), asMatrix(out, G),
              std::nullopt, prog, name + "/matMul", weightsTransposed, false);
}

void buildPointwiseWeightGradient(poplar::Graph &graph, const ConvPlan &plan,
                                  const ConvParams &params, const poplar::Tensor &zDeltas,
                                  const poplar::Tensor &activations, const poplar::Tensor &dW,
                                  std::optional<float> scale, poplar::program::Sequence &prog,
                                  const std::string &name) {
  const std::size_t G = params.numConvGroups;
  buildMatMul(graph, *plan.matMul, asMatrix(zDeltas, G), asMatrix(activations, G), weightMatrix(dW),
              scale, prog, name + "/matMul", false, true);
}

} // namespace poplin::detail
