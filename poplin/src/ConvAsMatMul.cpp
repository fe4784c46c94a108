#include "ConvAsMatMul.hpp"

#include <functional>
#include <numeric>
#include <vector>

#include <popops/Fill.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "ConvIndexing.hpp"
#include "MatMulBuild.hpp"
#include "MatMulPlanner.hpp"

namespace poplin::detail {
namespace {

/// How the product's positions meet the field, per spatial dimension `step`:
///   PLAIN     output o reads input o;
///   SAMPLED   output o reads input o · step (a strided 1x1 convolution; input = step · output);
///   DILATED   output o reads input o / step when step divides o, and nothing otherwise (its
///             input gradient; output = step · input).
/// The product runs over the compact field (the smaller side); the other side is a
/// sub-sampled view of its tensor.
struct PointwiseForm {
  enum Kind { NONE, PLAIN, SAMPLED, DILATED } kind = NONE;
  std::vector<unsigned> step;
  std::vector<std::size_t> compactField;
};

PointwiseForm pointwiseForm(const ConvParams &params) {
  PointwiseForm f;
  const std::vector<std::size_t> out = params.getOutputFieldShape();
  const auto &in = params.inputFieldShape;
  bool sampled = false, dilated = false;
  for (unsigned d = 0; d < params.getNumFieldDims(); ++d) {
    if (params.kernelShape[d] != 1 || params.getTransformedKernelSize(d) != 1 || out[d] == 0 ||
        in[d] == 0)
      return {};
    const bool down = in[d] >= out[d];
    const std::size_t big = down ? in[d] : out[d], small = down ? out[d] : in[d];
    if (big % small != 0)
      return {};
    const unsigned step = unsigned(big / small);
    for (std::size_t o = 0; o < out[d]; ++o) {
      const long want = down ? long(o * step) : (o % step == 0 ? long(o / step) : -1);
      if (inputIndex(params, d, o, 0) != want)
        return {};
    }
    sampled |= step > 1 && down;
    dilated |= step > 1 && !down;
    f.step.push_back(step);
    f.compactField.push_back(small);
  }
  if (sampled && dilated)
    return {};
  f.kind = sampled   ? PointwiseForm::SAMPLED
           : dilated ? PointwiseForm::DILATED
                     : PointwiseForm::PLAIN;
  return f;
}

std::size_t positions(const ConvParams &params, const PointwiseForm &f) {
  return params.batchSize * std::accumulate(f.compactField.begin(), f.compactField.end(),
                                            std::size_t(1), std::multiplies<>());
}

/// [B][G·C][fields…] → [G][C][P] (a view).
poplar::Tensor asMatrix(const poplar::Tensor &t, std::size_t groups) {
  poplar::Tensor r = t.reshapePartial(1, 2, {groups, t.dim(1) / groups});
  std::vector<unsigned> perm = {1, 2, 0};
  for (unsigned d = 3; d < r.rank(); ++d)
    perm.push_back(d);
  return r.dimShuffle(perm).flatten(2, r.rank());
}

/// [G][C][P] → [B][G·C][field…] (a view): the inverse of asMatrix.
poplar::Tensor asActivations(const poplar::Tensor &m, std::size_t batch,
                             const std::vector<std::size_t> &field) {
  std::vector<std::size_t> split = {batch};
  split.insert(split.end(), field.begin(), field.end());
  poplar::Tensor r = m.reshapePartial(2, 3, split); // [G][C][B][field…]
  std::vector<unsigned> perm = {2, 0, 1};
  for (unsigned d = 3; d < r.rank(); ++d)
    perm.push_back(d);
  return r.dimShuffle(perm).flatten(1, 3);
}

/// The view of `t` ([B][C][field…]) at positions `phase` + step · q along each field dimension.
poplar::Tensor phaseView(const poplar::Tensor &t, const std::vector<unsigned> &step,
                         const std::vector<unsigned> &phase) {
  poplar::Tensor v = t;
  for (unsigned d = 0; d < step.size(); ++d)
    if (step[d] > 1)
      v = v.slice(phase[d], v.dim(2 + d), 2 + d).subSample(step[d], 2 + d);
  return v;
}

/// Every phase combination but the first (all zeros), in order.
std::vector<std::vector<unsigned>> otherPhases(const std::vector<unsigned> &step) {
  std::vector<std::vector<unsigned>> all = {{}};
  for (unsigned s : step) {
    std::vector<std::vector<unsigned>> next;
    for (const auto &prefix : all)
      for (unsigned r = 0; r < s; ++r) {
        next.push_back(prefix);
        next.back().push_back(r);
      }
    all = std::move(next);
  }
  all.erase(all.begin());
  return all;
}

/// A [B][C][step · compact field…] tensor whose phase 0 (positions step · q) is `compact`
/// ([B][C][compact field…]) and whose other phases are new variables mapped linearly: only
/// phase 0 takes part in the product, so only it gets the product's layout.
poplar::Tensor withOtherPhases(poplar::Graph &graph, const poplar::Tensor &compact,
                               const std::vector<unsigned> &step, const std::string &name) {
  const unsigned dims = unsigned(step.size());
  // [B][C][c0][1][c1][1]…: one phase of each dimension.
  std::vector<std::size_t> phaseShape = {compact.dim(0), compact.dim(1)};
  for (unsigned d = 0; d < dims; ++d) {
    phaseShape.push_back(compact.dim(2 + d));
    phaseShape.push_back(1);
  }
  std::function<poplar::Tensor(unsigned, std::vector<unsigned> &)> assemble =
      [&](unsigned d, std::vector<unsigned> &phase) -> poplar::Tensor {
    if (d == dims) {
      const bool first = std::all_of(phase.begin(), phase.end(), [](unsigned r) { return !r; });
      if (first)
        return compact.reshape(phaseShape);
      poplar::Tensor v = graph.addVariable(compact.elementType(), phaseShape, name + "/phase");
      poputil::mapTensorLinearly(graph, v);
      return v;
    }
    std::vector<poplar::Tensor> parts;
    for (unsigned r = 0; r < step[d]; ++r) {
      phase.push_back(r);
      parts.push_back(assemble(d + 1, phase));
      phase.pop_back();
    }
    return poplar::concat(parts, 3 + 2 * d);
  };
  std::vector<unsigned> phase;
  poplar::Tensor full = assemble(0, phase);
  for (unsigned d = 0; d < dims; ++d)
    full = full.flatten(2 + d, 4 + d);
  return full;
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
  return pointwiseForm(params).kind != PointwiseForm::NONE;
}

MatMulPlan planPointwise(const poplar::Target &target, const ConvParams &params, ConvPass pass,
                         const ConvOptions &options) {
  const std::size_t G = params.numConvGroups, O = params.outputChannelsPerConvGroup,
                    I = params.inputChannelsPerConvGroup,
                    P = positions(params, pointwiseForm(params));
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
  const PointwiseForm f = pointwiseForm(params);
  const bool input = which == ConvOperand::Input;
  poplar::Tensor compact = asActivations(
      createBlockedTensor(graph, mm, input ? Operand::RHS : Operand::Output, type, name),
      params.batchSize, f.compactField);
  const bool phased = input ? f.kind == PointwiseForm::SAMPLED : f.kind == PointwiseForm::DILATED;
  return phased ? withOtherPhases(graph, compact, f.step, name) : compact;
}

void buildPointwiseConvolution(poplar::Graph &graph, const ConvPlan &plan, const ConvParams &params,
                               const poplar::Tensor &in, const poplar::Tensor &weights,
                               bool weightsTransposed, const poplar::Tensor &out,
                               poplar::program::Sequence &prog, const std::string &name) {
  const std::size_t G = params.numConvGroups;
  const PointwiseForm f = pointwiseForm(params);
  const std::vector<unsigned> first(f.step.size(), 0);
  const poplar::Tensor x = f.kind == PointwiseForm::SAMPLED ? phaseView(in, f.step, first) : in;
  poplar::Tensor y = out;
  if (f.kind == PointwiseForm::DILATED) {
    // Outputs between the sampled ones read only zeros.
    std::vector<poplar::Tensor> zeros;
    for (const auto &phase : otherPhases(f.step))
      zeros.push_back(phaseView(out, f.step, phase).flatten());
    popops::zero(graph, poplar::concat(zeros), prog, name + "/zeroPhases");
    y = phaseView(out, f.step, first);
  }
  buildMatMul(graph, *plan.matMul, weightMatrix(weights), asMatrix(x, G), asMatrix(y, G),
              std::nullopt, prog, name + "/matMul", weightsTransposed, false);
}

void buildPointwiseWeightGradient(poplar::Graph &graph, const ConvPlan &plan,
                                  const ConvParams &params, const poplar::Tensor &zDeltas,
                                  const poplar::Tensor &activations, const poplar::Tensor &dW,
                                  std::optional<float> scale, poplar::program::Sequence &prog,
                                  const std::string &name) {
  const std::size_t G = params.numConvGroups;
  const PointwiseForm f = pointwiseForm(params);
  const std::vector<unsigned> first(f.step.size(), 0);
  const poplar::Tensor x =
      f.kind == PointwiseForm::SAMPLED ? phaseView(activations, f.step, first) : activations;
  const poplar::Tensor z =
      f.kind == PointwiseForm::DILATED ? phaseView(zDeltas, f.step, first) : zDeltas;
  buildMatMul(graph, *plan.matMul, asMatrix(z, G), asMatrix(x, G), weightMatrix(dW), scale, prog,
              name + "/matMul", false, true);
}

} // namespace poplin::detail
