#include "ConvLowered.hpp"

#include <algorithm>
#include <vector>

#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "ConvAsMatMul.hpp"
#include "ConvIndexing.hpp"
#include "ConvPlaneVertices.hpp"
#include "MatMulBuild.hpp"
#include "MatMulPlanner.hpp"

namespace poplin::detail {
namespace {

/// Host cost model: nanoseconds per gathered value, counting the gather and the product's
/// exchange of it (the same order as Winograd's transforms, ConvWinograd.cpp).
constexpr double kGatherNsPerValue = 0.6;

/// The largest output field (positions per image) "auto" lowers. Measured with conv_bench on
/// full-width ResNet-50's strided 3x3 layers at a 32 x 32 input: lowering takes stage 3 (8 x 8
/// outputs) from 117 to 81 ms and stage 4 (4 x 4) from 160 to 75 ms, while on stage 2 (16 x 16)
/// the blocks are as fast (80 against 82 ms in alternating runs) and need no patch matrix.
constexpr std::size_t kMaxLoweredField = 64;

struct Shape {
  std::size_t groups, inChans, outChans, batch;
  std::size_t inH, inW, outH, outW, kernelH, kernelW;
  std::size_t kernel() const { return kernelH * kernelW; }
  std::size_t inPositions() const { return batch * inH * inW; }
  std::size_t outPositions() const { return batch * outH * outW; }
};

Shape shapeOf(const ConvParams &p) {
  return {p.numConvGroups,    p.inputChannelsPerConvGroup, p.outputChannelsPerConvGroup,
          p.batchSize,        p.inputFieldShape[0],        p.inputFieldShape[1],
          p.getOutputSize(0), p.getOutputSize(1),          p.kernelShape[0],
          p.kernelShape[1]};
}

/// table[k · outSize + o]: the input index kernel element k reads for output o along `dim`.
std::vector<int> indexTable(const ConvParams &p, unsigned dim) {
  const std::size_t outSize = p.getOutputSize(dim), kernel = p.kernelShape[dim];
  std::vector<int> table(kernel * outSize);
  for (std::size_t k = 0; k < kernel; ++k)
    for (std::size_t o = 0; o < outSize; ++o)
      table[k * outSize + o] = int(inputIndex(p, dim, o, k));
  return table;
}

/// Where each kernel element meets the input, per output row and column: the same for every
/// vertex of a pass, so built once.
struct IndexTables {
  std::vector<int> rows, cols;
  explicit IndexTables(const ConvParams &p) : rows(indexTable(p, 0)), cols(indexTable(p, 1)) {}
};

void setShapeFields(poplar::Graph &graph, poplar::VertexRef v, const IndexTables &tables,
                    const Shape &s, std::size_t chans, std::size_t batch) {
  graph.setInitialValue(v["rowTable"], poplar::ArrayRef<int>(tables.rows));
  graph.setInitialValue(v["colTable"], poplar::ArrayRef<int>(tables.cols));
  graph.setInitialValue(v["chans"], unsigned(chans));
  graph.setInitialValue(v["batch"], unsigned(batch));
  graph.setInitialValue(v["inHeight"], unsigned(s.inH));
  graph.setInitialValue(v["inWidth"], unsigned(s.inW));
  graph.setInitialValue(v["kernelHeight"], unsigned(s.kernelH));
  graph.setInitialValue(v["kernelWidth"], unsigned(s.kernelW));
  graph.setInitialValue(v["outHeight"], unsigned(s.outH));
  graph.setInitialValue(v["outWidth"], unsigned(s.outW));
}

/// Channels [c0, c1) × batch [b0, b1): one gather vertex's planes. Chunks hold whole channels
/// when a channel's planes are few enough for one vertex, else one channel's batch range.
struct PlaneChunk {
  std::size_t c0, c1, b0, b1;
};

/// At least kMinValuesPerVertex values per chunk and at most one chunk per tile in all, so no
/// vertex's rows crowd one tile's memory.
std::vector<PlaneChunk> planeChunks(std::size_t chans, std::size_t batch,
                                    std::size_t valuesPerPlane, std::size_t groups,
                                    std::size_t tiles) {
  const std::size_t planes = chans * batch;
  const std::size_t per = std::max((kMinValuesPerVertex + valuesPerPlane - 1) / valuesPerPlane,
                                   (groups * planes + tiles - 1) / tiles);
  std::vector<PlaneChunk> result;
  if (per >= batch) {
    for (const auto &[c0, c1] : itemChunks(chans, batch * valuesPerPlane, groups, tiles))
      result.push_back({c0, c1, 0, batch});
    return result;
  }
  const std::size_t pieces = (batch + per - 1) / per;
  for (std::size_t c = 0; c < chans; ++c)
    for (std::size_t q = 0; q < pieces; ++q)
      result.push_back({c, c + 1, batch * q / pieces, batch * (q + 1) / pieces});
  return result;
}

/// The rows of [G][C·kernel][B·plane] matrix `m` (group g) a chunk reads or writes, in
/// [channel][kernel element][batch][plane] order.
poplar::Tensor chunkRows(const poplar::Tensor &m, std::size_t g, const PlaneChunk &c,
                         std::size_t kernel, std::size_t plane) {
  std::vector<poplar::Tensor> rows;
  for (std::size_t ch = c.c0; ch < c.c1; ++ch)
    for (std::size_t k = 0; k < kernel; ++k)
      rows.push_back(m[g][ch * kernel + k].slice(c.b0 * plane, c.b1 * plane));
  return poplar::concat(rows);
}

/// The planes of channel-major activations (group g) a chunk reads or writes.
poplar::Tensor chunkPlanes(const poplar::Tensor &planes, std::size_t g, const PlaneChunk &c,
                           std::size_t batch) {
  std::vector<poplar::Tensor> parts;
  for (std::size_t ch = c.c0; ch < c.c1; ++ch)
    parts.push_back(planes[g].slice(ch * batch + c.b0, ch * batch + c.b1).flatten());
  return poplar::concat(parts);
}

/// A gather vertex's planes (group g, chunk c) and the tile it runs on, which also holds the
/// planes of the channel-major side when this plan laid that side out (createLoweredTensor).
struct PlacedChunk {
  std::size_t g;
  PlaneChunk c;
  unsigned tile;
};

/// Im2col's chunks, spread evenly over the tiles.
std::vector<PlacedChunk> im2colChunks(const poplar::Target &target, const Shape &s) {
  const std::size_t tiles = target.getNumTiles();
  const auto parts = planeChunks(s.inChans, s.batch, s.kernel() * s.outH * s.outW, s.groups, tiles);
  const std::size_t total = s.groups * parts.size();
  std::vector<PlacedChunk> result;
  for (std::size_t g = 0; g < s.groups; ++g)
    for (const PlaneChunk &c : parts)
      result.push_back({g, c, evenTile(result.size(), total, tiles)});
  return result;
}

/// Col2im's chunks: per output block of the product's result Z, the channels and batches whose
/// first Z row and column fall in it, on the block's tile, so Col2im reads its columns there.
std::vector<PlacedChunk> col2imChunks(const MatMulPlan &mm, const Shape &s) {
  const std::size_t K = s.kernel(), plane = s.inH * s.inW;
  const std::size_t rows = s.outChans * K, cols = s.batch * plane;
  auto firstAtOrAfter = [](std::size_t index, std::size_t unit) {
    return (index + unit - 1) / unit;
  };
  std::vector<PlacedChunk> result;
  for (std::size_t g = 0; g < s.groups; ++g)
    for (std::size_t i = 0; i < mm.rowBlocks; ++i) {
      const std::size_t r0 = std::min(rows, i * mm.rowsPerBlock);
      const std::size_t r1 = std::min(rows, (i + 1) * mm.rowsPerBlock);
      const std::size_t c0 = firstAtOrAfter(r0, K), c1 = firstAtOrAfter(r1, K);
      for (std::size_t j = 0; j < mm.colBlocks && c0 < c1; ++j) {
        const std::size_t k0 = std::min(cols, j * mm.colsPerBlock);
        const std::size_t k1 = std::min(cols, (j + 1) * mm.colsPerBlock);
        const std::size_t b0 = firstAtOrAfter(k0, plane), b1 = firstAtOrAfter(k1, plane);
        if (b0 < b1)
          result.push_back({g, {c0, c1, b0, b1}, mm.tileOf(g / mm.groupsPerBlock, i, j, 0)});
      }
    }
  return result;
}

/// A new [B][G·C][field] tensor in channel-major memory order whose planes sit on the tiles of
/// the chunks that gather from or into them.
poplar::Tensor channelMajorOnChunks(poplar::Graph &graph, const poplar::Type &type, const Shape &s,
                                    std::size_t chans, const std::vector<std::size_t> &field,
                                    const std::vector<PlacedChunk> &chunks,
                                    const std::string &name) {
  poplar::Tensor var =
      graph.addVariable(type, {s.groups * chans, s.batch, field[0], field[1]}, name);
  const poplar::Tensor view = var.dimShuffle({1, 0, 2, 3});
  const poplar::Tensor planes = planesOf(view, s.groups);
  for (const PlacedChunk &pc : chunks)
    graph.setTileMapping(chunkPlanes(planes, pc.g, pc.c, s.batch), pc.tile);
  return view;
}

/// patches[G][IC·kernel][B·out] gathered from `in` by Im2col vertices, each writing its rows
/// on its own tile.
poplar::Tensor gatherPatches(poplar::Graph &graph, const ConvParams &p, const poplar::Tensor &in,
                             poplar::program::Sequence &prog, const std::string &name) {
  const Shape s = shapeOf(p);
  const std::size_t K = s.kernel(), P = s.outPositions();
  poplar::Tensor patches =
      graph.addVariable(poplar::FLOAT, {s.groups, s.inChans * K, P}, name + "/patches");
  const poplar::Tensor planes = planesOf(in, s.groups);
  const std::size_t outPlane = s.outH * s.outW;
  const IndexTables tables(p);
  poplar::ComputeSet cs = graph.addComputeSet(name + "/im2col");
  for (const PlacedChunk &pc : im2colChunks(graph.getTarget(), s)) {
    const poplar::Tensor rows = chunkRows(patches, pc.g, pc.c, K, outPlane);
    auto v = graph.addVertex(cs, "poplin::Im2col",
                             {{"in", chunkPlanes(planes, pc.g, pc.c, s.batch)}, {"out", rows}});
    setShapeFields(graph, v, tables, s, pc.c.c1 - pc.c.c0, pc.c.b1 - pc.c.b0);
    graph.setTileMapping(v, pc.tile);
    graph.setTileMapping(rows, pc.tile);
  }
  prog.add(poplar::program::Execute(cs, name + "/im2col"));
  return patches;
}

/// The stored weights as the product's A: [G][OC][IC·kernel] (IM2COL) or, given transposed,
/// [G][IC][OC·kernel] (COL2IM), copied into `layout` when the stored order is the other one
/// (transposed weights going to IM2COL's order are flipped on the way).
poplar::Tensor weightOperand(ConvMethod method, const poplar::Tensor &weights,
                             bool weightsTransposed, const poplar::Tensor &layout,
                             poplar::program::Sequence &prog, const std::string &name) {
  const bool wantTransposed = method == ConvMethod::COL2IM;
  if (weightsTransposed == wantTransposed)
    return weights.flatten(2, weights.rank());
  // Swap the channel dimensions; going to IM2COL's order also applies the flip.
  poplar::Tensor view = weights.dimShuffle({0, 2, 1, 3, 4});
  if (weightsTransposed)
    view = view.reverse(3).reverse(4);
  prog.add(poplar::program::Copy(view, layout, false, name + "/arrangeWeights"));
  return layout.flatten(2, layout.rank());
}

} // namespace

ConvMethod loweredMethod(const ConvParams &p, ConvPass pass) {
  if (p.getNumFieldDims() != 2 || p.inputType != poplar::FLOAT || p.outputType != poplar::FLOAT ||
      p.kernelShape[0] * p.kernelShape[1] <= 1 || p.getOutputSize(0) == 0 ||
      p.getOutputSize(1) == 0 || p.batchSize == 0)
    return ConvMethod::BLOCKS;
  const auto &dil = p.inputTransform.dilation;
  const bool dilated = dil[0] > 1 || dil[1] > 1;
  return pass == ConvPass::FORWARD && dilated ? ConvMethod::COL2IM : ConvMethod::IM2COL;
}

bool loweringPays(const ConvParams &p, ConvMethod method) {
  const auto &dil = p.inputTransform.dilation, &stride = p.outputTransform.stride;
  const bool dilated = dil[0] > 1 || dil[1] > 1, strided = stride[0] > 1 || stride[1] > 1;
  // The strided layer's own output field (COL2IM's input field) decides: on large fields the
  // blocks' in-place kernels stay efficient while the patch matrix grows with the field.
  const Shape s = shapeOf(p);
  const std::size_t field = method == ConvMethod::COL2IM ? s.inH * s.inW : s.outH * s.outW;
  return field <= kMaxLoweredField &&
         (method == ConvMethod::COL2IM ? dilated : strided && !dilated);
}

MatMulPlan planLowered(const poplar::Target &target, const ConvParams &params, ConvPass pass,
                       ConvMethod method, const ConvOptions &options) {
  const Shape s = shapeOf(params);
  const std::size_t K = s.kernel();
  const MatMulOptions mmOptions = convMatMulOptions(options, ProductShare::BESIDE_TRANSFORMS);
  if (method == ConvMethod::COL2IM)
    return planMatMul(target, poplar::FLOAT, poplar::FLOAT, s.groups, s.outChans * K,
                      s.inPositions(), s.inChans, mmOptions, nullptr);
  return pass == ConvPass::FORWARD
             ? planMatMul(target, poplar::FLOAT, poplar::FLOAT, s.groups, s.outChans,
                          s.outPositions(), s.inChans * K, mmOptions, nullptr)
             : planMatMul(target, poplar::FLOAT, poplar::FLOAT, s.groups, s.outChans, s.inChans * K,
                          s.outPositions(), mmOptions, nullptr);
}

std::uint64_t loweredTransformNanoseconds(const ConvParams &params, ConvMethod method) {
  const Shape s = shapeOf(params);
  const double values = method == ConvMethod::COL2IM
                            ? double(s.groups * s.outChans * s.kernel() * s.inPositions())
                            : double(s.groups * s.inChans * s.kernel() * s.outPositions());
  return std::uint64_t(values * kGatherNsPerValue);
}

poplar::Tensor createLoweredTensor(poplar::Graph &graph, const ConvPlan &plan,
                                   const ConvParams &params, ConvOperand which,
                                   const poplar::Type &type, const std::string &name) {
  const MatMulPlan &mm = *plan.product;
  const bool col2im = plan.method == ConvMethod::COL2IM;
  const bool forward = plan.pass == ConvPass::FORWARD;
  if (which == ConvOperand::Weights) {
    std::vector<std::size_t> shape = {params.numConvGroups, params.outputChannelsPerConvGroup,
                                      params.inputChannelsPerConvGroup};
    shape.insert(shape.end(), params.kernelShape.begin(), params.kernelShape.end());
    if (col2im) { // its product reads them transposed, through a copy
      poplar::Tensor w = graph.addVariable(type, shape, name);
      poputil::mapTensorLinearly(graph, w);
      return w;
    }
    // Forward: the product's A; weight gradient: its result.
    return createBlockedTensor(graph, mm, forward ? Operand::LHS : Operand::Output, type, name)
        .reshape(shape);
  }
  if (!forward)
    throw poputil::poplibs_error("internal: a weight-gradient plan cannot lay out activations");
  const bool input = which == ConvOperand::Input;
  // The side the product reads or writes directly takes its layout; the gathered side is
  // channel-major, for the plane-wise vertices.
  if (input == col2im)
    return asActivations(
        createBlockedTensor(graph, mm, input ? Operand::RHS : Operand::Output, type, name),
        params.batchSize, input ? params.inputFieldShape : params.getOutputFieldShape());
  const Shape s = shapeOf(params);
  return input ? channelMajorOnChunks(graph, type, s, s.inChans, params.inputFieldShape,
                                      im2colChunks(graph.getTarget(), s), name)
               : channelMajorOnChunks(graph, type, s, s.outChans, params.getOutputFieldShape(),
                                      col2imChunks(mm, s), name);
}

void buildLoweredConvolution(poplar::Graph &graph, const ConvPlan &plan, const ConvParams &params,
                             const poplar::Tensor &in, const poplar::Tensor &weights,
                             bool weightsTransposed, const poplar::Tensor &out,
                             poplar::program::Sequence &prog, const std::string &name) {
  const Shape s = shapeOf(params);
  const MatMulPlan &mm = *plan.product;
  const std::size_t K = s.kernel();
  if (plan.method == ConvMethod::IM2COL) {
    const poplar::Tensor layout =
        weightsTransposed
            ? createBlockedTensor(graph, mm, Operand::LHS, poplar::FLOAT, name + "/weights")
                  .reshape({s.groups, s.outChans, s.inChans, s.kernelH, s.kernelW})
            : poplar::Tensor();
    const poplar::Tensor A =
        weightOperand(plan.method, weights, weightsTransposed, layout, prog, name);
    const poplar::Tensor patches = gatherPatches(graph, params, in, prog, name);
    buildMatMul(graph, mm, A, patches, asMatrix(out, s.groups), std::nullopt, prog,
                name + "/matMul", false, false);
    return;
  }
  // COL2IM: Z = Wᵀ-stored · in, then each output gathers its kernel elements' columns.
  poplar::Tensor layout;
  if (!weightsTransposed) {
    layout = graph.addVariable(
        poplar::FLOAT, {s.groups, s.inChans, s.outChans, s.kernelH, s.kernelW}, name + "/weights");
    poputil::mapTensorLinearly(graph, layout);
  }
  const poplar::Tensor A =
      weightOperand(plan.method, weights, weightsTransposed, layout, prog, name);
  const poplar::Tensor Z =
      createBlockedTensor(graph, mm, Operand::Output, poplar::FLOAT, name + "/columns");
  buildMatMul(graph, mm, A, asMatrix(in, s.groups), Z, std::nullopt, prog, name + "/matMul", true,
              false);
  const poplar::Tensor planes = planesOf(out, s.groups);
  const std::size_t inPlane = s.inH * s.inW;
  const IndexTables tables(params);
  poplar::ComputeSet cs = graph.addComputeSet(name + "/col2im");
  for (const PlacedChunk &pc : col2imChunks(mm, s)) {
    auto v = graph.addVertex(cs, "poplin::Col2im",
                             {{"in", chunkRows(Z, pc.g, pc.c, K, inPlane)},
                              {"out", chunkPlanes(planes, pc.g, pc.c, s.batch)}});
    // The stored (transposed) weights list each kernel flipped relative to the one applied.
    graph.setInitialValue(v["flip"], weightsTransposed);
    // Col2im's "in" side is the product's columns: the convolution's input positions.
    setShapeFields(graph, v, tables, s, pc.c.c1 - pc.c.c0, pc.c.b1 - pc.c.b0);
    graph.setTileMapping(v, pc.tile);
  }
  prog.add(poplar::program::Execute(cs, name + "/col2im"));
}

void buildLoweredWeightGradient(poplar::Graph &graph, const ConvPlan &plan,
                                const ConvParams &params, const poplar::Tensor &zDeltas,
                                const poplar::Tensor &activations, const poplar::Tensor &dW,
                                std::optional<float> scale, poplar::program::Sequence &prog,
                                const std::string &name) {
  const Shape s = shapeOf(params);
  const poplar::Tensor patches = gatherPatches(graph, params, activations, prog, name);
  buildMatMul(graph, *plan.product, asMatrix(zDeltas, s.groups), patches, dW.flatten(2, dW.rank()),
              scale, prog, name + "/matMul", false, true);
}

} // namespace poplin::detail
