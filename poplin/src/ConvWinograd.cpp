#include "ConvWinograd.hpp"

#include <algorithm>
#include <vector>

#include <poputil/TileMapping.hpp>
#include <poputil/VertexTemplates.hpp>

#include "ConvAsMatMul.hpp"
#include "ConvPlaneVertices.hpp"
#include "MatMulBuild.hpp"
#include "MatMulPlanner.hpp"

namespace poplin::detail {
namespace {

/// Elements of the 4x4 transformed patch: each is one group of the product.
constexpr std::size_t kElements = 16;
/// Host cost model: nanoseconds per transformed value, counting the transform itself and the
/// product's exchange of it. Checked with conv_bench's forward passes (full-width ResNet-50 at
/// 32 x 32): stage 1's 3x3 is estimated at 18.5 ms with its product and measured at 22, stage
/// 3's at 11.8 and 12.3.
constexpr double kTransformNsPerValue = 0.6;

struct Shape {
  std::size_t groups, inChans, outChans, batch, height, width, padTop, padLeft, outHeight, outWidth,
      tilesY, tilesX;
  std::size_t tilesPerPlane() const { return tilesY * tilesX; }
  std::size_t tiles() const { return batch * tilesPerPlane(); } // T
};

Shape shapeOf(const ConvParams &p) {
  Shape s{};
  s.groups = p.numConvGroups;
  s.inChans = p.inputChannelsPerConvGroup;
  s.outChans = p.outputChannelsPerConvGroup;
  s.batch = p.batchSize;
  s.height = p.inputFieldShape[0];
  s.width = p.inputFieldShape[1];
  // Truncated outputs (as an input gradient has) only drop padding: winogradApplies checks.
  s.padTop = p.inputTransform.paddingLower[0] - p.outputTransform.truncationLower[0];
  s.padLeft = p.inputTransform.paddingLower[1] - p.outputTransform.truncationLower[1];
  s.outHeight = p.getOutputSize(0);
  s.outWidth = p.getOutputSize(1);
  s.tilesY = (s.outHeight + 1) / 2;
  s.tilesX = (s.outWidth + 1) / 2;
  return s;
}

/// The 16 element rows of group g of a transformed [16·G][rows][cols] operand, each sliced to
/// [begin, end) of its flattened (rows, cols): a transform vertex's element-major side.
poplar::Tensor elementSlices(const poplar::Tensor &t, std::size_t g, std::size_t begin,
                             std::size_t end) {
  std::vector<poplar::Tensor> parts;
  for (std::size_t e = 0; e < kElements; ++e)
    parts.push_back(t[g * kElements + e].flatten().slice(begin, end));
  return poplar::concat(parts);
}

/// One `type` vertex per chunk of each group's `chans`·B planes of `activations`, reading or
/// writing those planes' tiles in the element-major `transformed` ([16·G][chans][T]): the input
/// and gradient transforms write it (on their own tiles), the output transform
/// (`toActivations`) reads it. `configure` sets the vertex type's own fields.
template <class Configure>
void addPlaneVertices(poplar::Graph &graph, poplar::ComputeSet &cs, const Shape &s,
                      const std::string &type, std::size_t chans, const poplar::Tensor &activations,
                      const poplar::Tensor &transformed, bool toActivations,
                      Configure &&configure) {
  const poplar::Tensor planes = planesOf(activations, s.groups);
  const std::size_t T1 = s.tilesPerPlane(), count = chans * s.batch;
  const auto parts = itemChunks(count, kElements * T1, s.groups, graph.getTarget().getNumTiles());
  VertexPlacer placer(graph, s.groups * parts.size());
  for (std::size_t g = 0; g < s.groups; ++g)
    for (const auto &[p0, p1] : parts) {
      const poplar::Tensor plane = planes[g].slice(p0, p1).flatten();
      const poplar::Tensor elems = elementSlices(transformed, g, p0 * T1, p1 * T1);
      auto v = graph.addVertex(
          cs, type,
          {{"in", toActivations ? elems : plane}, {"out", toActivations ? plane : elems}});
      graph.setInitialValue(v["planes"], unsigned(p1 - p0));
      graph.setInitialValue(v["tilesY"], unsigned(s.tilesY));
      graph.setInitialValue(v["tilesX"], unsigned(s.tilesX));
      configure(v);
      placer.place(v, toActivations ? nullptr : &elems);
    }
}

/// V[16·G][IC][T] = Bᵀ d B of every input tile.
void addInputTransform(poplar::Graph &graph, poplar::ComputeSet &cs, const Shape &s,
                       const poplar::Tensor &in, const poplar::Tensor &V) {
  addPlaneVertices(graph, cs, s, "poplin::WinogradInputTransform", s.inChans, in, V, false,
                   [&](poplar::VertexRef v) {
                     graph.setInitialValue(v["height"], unsigned(s.height));
                     graph.setInitialValue(v["width"], unsigned(s.width));
                     graph.setInitialValue(v["padTop"], unsigned(s.padTop));
                     graph.setInitialValue(v["padLeft"], unsigned(s.padLeft));
                   });
}

/// The output transform (`toActivations`: element-major `transformed` [16·G][OC][T] into the
/// planes of `activations` [B][G·OC][outH][outW]) or the gradient transform (the other way), by
/// vertex `type`.
void addPlaneTransform(poplar::Graph &graph, poplar::ComputeSet &cs, const Shape &s,
                       const std::string &type, const poplar::Tensor &activations,
                       const poplar::Tensor &transformed, bool toActivations) {
  addPlaneVertices(graph, cs, s, type, s.outChans, activations, transformed, toActivations,
                   [&](poplar::VertexRef v) {
                     graph.setInitialValue(v["outHeight"], unsigned(s.outHeight));
                     graph.setInitialValue(v["outWidth"], unsigned(s.outWidth));
                   });
}

/// Per group, the kernels of `weights` ([G][A][B][3][3], A·B kernels in order) against the
/// element-major [16·G][A][B] tensor `transformed`, by vertex `type`; `configure` sets the
/// remaining fields.
template <class Configure>
void addKernelVertices(poplar::Graph &graph, poplar::ComputeSet &cs, const Shape &s,
                       const std::string &type, const poplar::Tensor &weights,
                       const poplar::Tensor &transformed, bool toWeights, Configure &&configure) {
  const std::size_t count = s.inChans * s.outChans;
  const auto parts = itemChunks(count, kElements, s.groups, graph.getTarget().getNumTiles());
  VertexPlacer placer(graph, s.groups * parts.size());
  for (std::size_t g = 0; g < s.groups; ++g)
    for (const auto &[q0, q1] : parts) {
      const poplar::Tensor kernels = weights[g].flatten().slice(9 * q0, 9 * q1);
      const poplar::Tensor elems = elementSlices(transformed, g, q0, q1);
      auto v = graph.addVertex(
          cs, type, {{"in", toWeights ? elems : kernels}, {"out", toWeights ? kernels : elems}});
      configure(v);
      placer.place(v, toWeights ? nullptr : &elems);
    }
}

/// A new [16·G][rows][cols] FLOAT tensor for a transform to write: the transform maps each
/// vertex's part of it to the vertex's tile.
poplar::Tensor transformedTensor(poplar::Graph &graph, const Shape &s, std::size_t rows,
                                 std::size_t cols, const std::string &name) {
  return graph.addVariable(poplar::FLOAT, {s.groups * kElements, rows, cols}, name);
}

} // namespace

bool winogradApplies(const ConvParams &p) {
  if (p.getNumFieldDims() != 2 || p.inputType != poplar::FLOAT || p.outputType != poplar::FLOAT ||
      p.kernelShape != std::vector<std::size_t>{3, 3})
    return false;
  const auto &in = p.inputTransform, &k = p.kernelTransform;
  const auto &out = p.outputTransform;
  for (unsigned d = 0; d < 2; ++d) {
    if (in.truncationLower[d] || in.truncationUpper[d] || in.dilation[d] != 1 || in.flip[d] ||
        k.truncationLower[d] || k.truncationUpper[d] || k.dilation[d] != 1 || k.paddingLower[d] ||
        k.paddingUpper[d] || out.stride[d] != 1 || out.paddingLower[d] || out.paddingUpper[d])
      return false;
    // Truncating outputs at stride 1 is the same as padding the input less, while there is
    // padding to take away (an input gradient pads by 2 and truncates by 1).
    if (out.truncationLower[d] > in.paddingLower[d] || out.truncationUpper[d] > in.paddingUpper[d])
      return false;
    if (p.inputFieldShape[d] + in.paddingLower[d] + in.paddingUpper[d] <
        3 + out.truncationLower[d] + out.truncationUpper[d])
      return false;
  }
  return p.batchSize > 0 && p.inputChannelsPerConvGroup > 0 && p.outputChannelsPerConvGroup > 0;
}

MatMulPlan planWinograd(const poplar::Target &target, const ConvParams &params, ConvPass pass,
                        const ConvOptions &options) {
  const Shape s = shapeOf(params);
  const std::size_t G = s.groups * kElements, T = s.tiles();
  return pass == ConvPass::FORWARD
             ? planMatMul(target, poplar::FLOAT, poplar::FLOAT, G, s.outChans, T, s.inChans,
                          convMatMulOptions(options, ProductShare::BESIDE_TRANSFORMS), nullptr)
             : planMatMul(target, poplar::FLOAT, poplar::FLOAT, G, s.outChans, s.inChans, T,
                          convMatMulOptions(options, ProductShare::BESIDE_TRANSFORMS), nullptr);
}

std::uint64_t winogradTransformNanoseconds(const ConvParams &params) {
  const Shape s = shapeOf(params);
  const double T = double(s.tiles()), perGroup = double(kElements * s.groups);
  // Forward: input, kernels and output; weight gradient: input, output gradients and kernels.
  const double values = perGroup * (double(s.inChans) * T + double(s.outChans) * T +
                                    double(s.inChans) * double(s.outChans));
  return std::uint64_t(values * kTransformNsPerValue);
}

poplar::Tensor createWinogradTensor(poplar::Graph &graph, const ConvPlan &plan,
                                    const ConvParams &params, ConvOperand which,
                                    const poplar::Type &type, const std::string &name) {
  (void)plan;
  if (which == ConvOperand::Weights) {
    poplar::Tensor w = graph.addVariable(type,
                                         {params.numConvGroups, params.outputChannelsPerConvGroup,
                                          params.inputChannelsPerConvGroup, 3, 3},
                                         name);
    poputil::mapTensorLinearly(graph, w);
    return w;
  }
  const bool input = which == ConvOperand::Input;
  return createChannelMajorActivations(
      graph, type, params.batchSize, input ? params.getNumInputChans() : params.getNumOutputChans(),
      input ? params.inputFieldShape : params.getOutputFieldShape(), name);
}

void buildWinogradConvolution(poplar::Graph &graph, const ConvPlan &plan, const ConvParams &params,
                              const poplar::Tensor &in, const poplar::Tensor &weights,
                              bool weightsTransposed, const poplar::Tensor &out,
                              poplar::program::Sequence &prog, const std::string &name) {
  const Shape s = shapeOf(params);
  const MatMulPlan &mm = *plan.product;
  // U, or for transposed weights its transpose [16·G][IC][OC] (the stored kernel order), which
  // the product reads by rows. The product's result stays in its own layout, on the tiles
  // that accumulate it.
  const poplar::Tensor U =
      weightsTransposed ? transformedTensor(graph, s, s.inChans, s.outChans, name + "/kernels")
                        : transformedTensor(graph, s, s.outChans, s.inChans, name + "/kernels");
  const poplar::Tensor V = transformedTensor(graph, s, s.inChans, s.tiles(), name + "/inputTiles");
  const poplar::Tensor M =
      createBlockedTensor(graph, mm, Operand::Output, poplar::FLOAT, name + "/products");

  poplar::ComputeSet transform = graph.addComputeSet(name + "/winogradTransform");
  // The input gradient flips the stored kernels; a flipped convolution flips them once more.
  const bool flipY = params.kernelTransform.flip[0] != weightsTransposed;
  const bool flipX = params.kernelTransform.flip[1] != weightsTransposed;
  // Transposed weights are stored kernel by kernel in (IC, OC) order, U's transpose's order.
  addKernelVertices(graph, transform, s, "poplin::WinogradKernelTransform", weights, U, false,
                    [&](poplar::VertexRef v) {
                      graph.setInitialValue(v["flipY"], flipY);
                      graph.setInitialValue(v["flipX"], flipX);
                    });
  addInputTransform(graph, transform, s, in, V);
  prog.add(poplar::program::Execute(transform, name + "/winogradTransform"));

  buildMatMul(graph, mm, U, V, M, std::nullopt, prog, name + "/matMul", weightsTransposed, false);

  poplar::ComputeSet inverse = graph.addComputeSet(name + "/winogradOutput");
  addPlaneTransform(graph, inverse, s, "poplin::WinogradOutputTransform", out, M, true);
  prog.add(poplar::program::Execute(inverse, name + "/winogradOutput"));
}

void buildWinogradWeightGradient(poplar::Graph &graph, const ConvPlan &plan,
                                 const ConvParams &params, const poplar::Tensor &zDeltas,
                                 const poplar::Tensor &activations, const poplar::Tensor &dW,
                                 std::optional<float> scale, poplar::program::Sequence &prog,
                                 const std::string &name) {
  const Shape s = shapeOf(params);
  const MatMulPlan &mm = *plan.product;
  const poplar::Tensor dM =
      transformedTensor(graph, s, s.outChans, s.tiles(), name + "/gradientTiles");
  // V is the product's B read transposed: [16·G][IC][T], by rows.
  const poplar::Tensor V = transformedTensor(graph, s, s.inChans, s.tiles(), name + "/inputTiles");
  const poplar::Tensor dU =
      createBlockedTensor(graph, mm, Operand::Output, poplar::FLOAT, name + "/kernelGradients");

  poplar::ComputeSet transform = graph.addComputeSet(name + "/winogradTransform");
  addPlaneTransform(graph, transform, s, "poplin::WinogradGradientTransform", zDeltas, dM, false);
  addInputTransform(graph, transform, s, activations, V);
  prog.add(poplar::program::Execute(transform, name + "/winogradTransform"));

  buildMatMul(graph, mm, dM, V, dU, std::nullopt, prog, name + "/matMul", false, true);

  poplar::ComputeSet inverse = graph.addComputeSet(name + "/winogradKernelGradient");
  addKernelVertices(graph, inverse, s,
                    poputil::templateVertex("poplin::WinogradKernelGradient", dW.elementType()), dW,
                    dU, true, [&](poplar::VertexRef v) {
                      graph.setInitialValue(v["flipY"], bool(params.kernelTransform.flip[0]));
                      graph.setInitialValue(v["flipX"], bool(params.kernelTransform.flip[1]));
                      graph.setInitialValue(v["accumulate"], scale.has_value());
                      graph.setInitialValue(v["scale"], scale.value_or(1.0f));
                    });
  prog.add(poplar::program::Execute(inverse, name + "/winogradKernelGradient"));
}

} // namespace poplin::detail
