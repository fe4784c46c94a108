#include "ConvAsMatMul.hpp"

#include <functional>
#include <numeric>
#include <vector>

#include <popops/Fill.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/VertexTemplates.hpp>
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

/// `t` ([B][C][field…]) with every field dimension but the last taken at multiples of its
/// step, flattened to rows of the last dimension: the rows a strided product reads or writes.
poplar::Tensor sampledRows(const poplar::Tensor &t, const std::vector<unsigned> &step) {
  poplar::Tensor v = t;
  for (unsigned d = 0; d + 1 < step.size(); ++d)
    if (step[d] > 1)
      v = v.subSample(step[d], 2 + d);
  return v.flatten(0, v.rank() - 1);
}

/// Copies rows between `full` ([rows][fullLen]) and `compact` ([rows][compactLen]) with
/// SampleRows (full → compact) or SpreadRows (compact → full, zeros between), in about one
/// vertex per tile.
void stridedRows(poplar::Graph &graph, const poplar::Tensor &full, const poplar::Tensor &compact,
                 unsigned step, bool sample, poplar::program::Sequence &prog,
                 const std::string &name) {
  const std::size_t rows = full.dim(0), tiles = graph.getTarget().getNumTiles();
  const std::size_t chunks = std::min(rows, tiles);
  const std::string type = poputil::templateVertex(
      sample ? "poplin::SampleRows" : "poplin::SpreadRows", full.elementType());
  poplar::ComputeSet cs = graph.addComputeSet(name);
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t r0 = rows * c / chunks, r1 = rows * (c + 1) / chunks;
    const poplar::Tensor f = full.slice(r0, r1).flatten(), k = compact.slice(r0, r1).flatten();
    auto v = graph.addVertex(cs, type, {{"in", sample ? f : k}, {"out", sample ? k : f}});
    graph.setInitialValue(v["inLen"], unsigned(sample ? full.dim(1) : compact.dim(1)));
    graph.setInitialValue(v["outLen"], unsigned(sample ? compact.dim(1) : full.dim(1)));
    graph.setInitialValue(v["step"], step);
    graph.setTileMapping(v, unsigned(c * tiles / chunks));
  }
  prog.add(poplar::program::Execute(cs, name));
}

/// `compact` (a new tensor for the compact side), filled from the sampled positions of `t`
/// (the full side).
poplar::Tensor compactOf(poplar::Graph &graph, const poplar::Tensor &t,
                         const poplar::Tensor &compact, const std::vector<unsigned> &step,
                         poplar::program::Sequence &prog, const std::string &name) {
  stridedRows(graph, sampledRows(t, step),
              sampledRows(compact, std::vector<unsigned>(step.size(), 1)), step.back(), true, prog,
              name + "/sample");
  return compact;
}

/// [G][O][I][1…] ↔ [G][O][I].
poplar::Tensor weightMatrix(const poplar::Tensor &w) { return w.flatten(2, w.rank()); }

} // namespace

MatMulOptions convMatMulOptions(const ConvOptions &options, ProductShare share) {
  // Measured on conv_bench's layers: a pass's own inputs and results sit on the first tiles
  // with its product's blocks and exchange buffers, and overflow them when the product takes
  // the whole proportion; beside transforms, a bigger share gives Winograd products plans no
  // faster, and lowered ones plans whose blocks and gather buffers overflow.
  constexpr double kShareWholePass = 2.0 / 3, kShareBesideTransforms = 1.0 / 3;
  MatMulOptions m;
  m.availableMemoryProportion =
      options.availableMemoryProportion *
      (share == ProductShare::WHOLE_PASS ? kShareWholePass : kShareBesideTransforms);
  m.partialsType = options.partialsType;
  m.objective = options.objective;
  return m;
}

bool isPointwise(const ConvParams &params) {
  return pointwiseForm(params).kind != PointwiseForm::NONE;
}

MatMulPlan planPointwise(const poplar::Target &target, const ConvParams &params, ConvPass pass,
                         const ConvOptions &options) {
  const std::size_t G = params.numConvGroups, O = params.outputChannelsPerConvGroup,
                    I = params.inputChannelsPerConvGroup,
                    P = positions(params, pointwiseForm(params));
  return pass == ConvPass::FORWARD
             ? planMatMul(target, params.inputType, params.outputType, G, O, P, I,
                          convMatMulOptions(options, ProductShare::WHOLE_PASS), nullptr)
             : planMatMul(target, params.inputType, params.outputType, G, O, I, P,
                          convMatMulOptions(options, ProductShare::WHOLE_PASS), nullptr);
}

poplar::Tensor createPointwiseTensor(poplar::Graph &graph, const ConvPlan &plan,
                                     const ConvParams &params, ConvOperand which,
                                     const poplar::Type &type, const std::string &name) {
  const MatMulPlan &mm = *plan.product;
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
  const bool full = input ? f.kind == PointwiseForm::SAMPLED : f.kind == PointwiseForm::DILATED;
  if (full)
    return createChannelMajorActivations(
        graph, type, params.batchSize,
        params.numConvGroups *
            (input ? params.inputChannelsPerConvGroup : params.outputChannelsPerConvGroup),
        input ? params.inputFieldShape : params.getOutputFieldShape(), name);
  return asActivations(
      createBlockedTensor(graph, mm, input ? Operand::RHS : Operand::Output, type, name),
      params.batchSize, f.compactField);
}

void buildPointwiseConvolution(poplar::Graph &graph, const ConvPlan &plan, const ConvParams &params,
                               const poplar::Tensor &in, const poplar::Tensor &weights,
                               bool weightsTransposed, const poplar::Tensor &out,
                               poplar::program::Sequence &prog, const std::string &name) {
  const std::size_t G = params.numConvGroups;
  const MatMulPlan &mm = *plan.product;
  const PointwiseForm f = pointwiseForm(params);
  const std::vector<unsigned> ones(f.step.size(), 1);
  poplar::Tensor x = in, y = out;
  if (f.kind == PointwiseForm::SAMPLED)
    x = compactOf(graph, in,
                  asActivations(createBlockedTensor(graph, mm, Operand::RHS, in.elementType(),
                                                    name + "/input"),
                                params.batchSize, f.compactField),
                  f.step, prog, name + "/input");
  if (f.kind == PointwiseForm::DILATED)
    y = asActivations(
        createBlockedTensor(graph, mm, Operand::Output, out.elementType(), name + "/compactOutput"),
        params.batchSize, f.compactField);
  buildMatMul(graph, mm, weightMatrix(weights), asMatrix(x, G), asMatrix(y, G), std::nullopt, prog,
              name + "/matMul", weightsTransposed, false);
  if (f.kind == PointwiseForm::DILATED) {
    // Rows the product does not reach (outer dimensions off their step) read only zeros.
    popops::zero(graph, out, prog, name + "/zero");
    stridedRows(graph, sampledRows(out, f.step), sampledRows(y, ones), f.step.back(), false, prog,
                name + "/spread");
  }
}

void buildPointwiseWeightGradient(poplar::Graph &graph, const ConvPlan &plan,
                                  const ConvParams &params, const poplar::Tensor &zDeltas,
                                  const poplar::Tensor &activations, const poplar::Tensor &dW,
                                  std::optional<float> scale, poplar::program::Sequence &prog,
                                  const std::string &name) {
  const std::size_t G = params.numConvGroups;
  const MatMulPlan &mm = *plan.product;
  const PointwiseForm f = pointwiseForm(params);
  // The product's operands are the compact sides; a full side is sampled into a new tensor:
  // zDeltas as the product's A, activations channel-major (B is read transposed, by rows).
  const poplar::Tensor x =
      f.kind == PointwiseForm::SAMPLED
          ? compactOf(graph, activations,
                      createChannelMajorActivations(graph, activations.elementType(),
                                                    params.batchSize, activations.dim(1),
                                                    f.compactField, name + "/activations"),
                      f.step, prog, name + "/activations")
          : activations;
  const poplar::Tensor z =
      f.kind == PointwiseForm::DILATED
          ? compactOf(graph, zDeltas,
                      asActivations(createBlockedTensor(graph, mm, Operand::LHS,
                                                        zDeltas.elementType(), name + "/zDeltas"),
                                    params.batchSize, f.compactField),
                      f.step, prog, name + "/zDeltas")
          : zDeltas;
  buildMatMul(graph, *plan.product, asMatrix(z, G), asMatrix(x, G), weightMatrix(dW), scale, prog,
              name + "/matMul", false, true);
}

poplar::Tensor createChannelMajorActivations(poplar::Graph &graph, const poplar::Type &type,
                                             std::size_t batch, std::size_t chans,
                                             const std::vector<std::size_t> &field,
                                             const std::string &name) {
  std::vector<std::size_t> memShape = {chans, batch};
  memShape.insert(memShape.end(), field.begin(), field.end());
  poplar::Tensor var = graph.addVariable(type, memShape, name);
  poputil::mapTensorLinearly(graph, var);
  std::vector<unsigned> perm = {1, 0};
  for (unsigned d = 2; d < var.rank(); ++d)
    perm.push_back(d);
  return var.dimShuffle(perm);
}

poplar::Tensor asMatrix(const poplar::Tensor &t, std::size_t groups) {
  poplar::Tensor r = t.reshapePartial(1, 2, {groups, t.dim(1) / groups});
  std::vector<unsigned> perm = {1, 2, 0};
  for (unsigned d = 3; d < r.rank(); ++d)
    perm.push_back(d);
  return r.dimShuffle(perm).flatten(2, r.rank());
}

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

} // namespace poplin::detail
