#include "ConvBuild.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "ConvAsMatMul.hpp"
#include "ConvIndexing.hpp"
#include "ConvLowered.hpp"
#include "ConvWinograd.hpp"

namespace poplin::detail {
namespace {

struct Range {
  std::size_t begin, end;
  std::size_t size() const { return end - begin; }
};

Range blockRange(std::size_t index, std::size_t perBlock, std::size_t total) {
  return {std::min(total, index * perBlock), std::min(total, (index + 1) * perBlock)};
}

/// [B][G*IC][fields…] → [G][IC][B][fields…] (views).
poplar::Tensor groupMajor(const poplar::Tensor &t, std::size_t groups) {
  poplar::Tensor r = t.reshapePartial(1, 2, {groups, t.dim(1) / groups});
  std::vector<unsigned> perm = {1, 2, 0};
  for (unsigned d = 3; d < r.rank(); ++d)
    perm.push_back(d);
  return r.dimShuffle(perm);
}

/// The input slice, index tables and shape fields one unit reads for output rows `rows`.
struct UnitInput {
  std::vector<int> indices;
  std::array<unsigned, 3> kernel{1, 1, 1}, outSize{1, 1, 1}, inSize{1, 1, 1};
  std::vector<std::size_t> inBegin, inEnd; // per spatial dimension
};

UnitInput unitInput(const ConvParams &params, Range rows) {
  UnitInput u;
  const unsigned dims = static_cast<unsigned>(params.getNumFieldDims());
  for (unsigned d = 0; d < dims; ++d) {
    const Range out = d == 0 ? rows : Range{0, params.getOutputSize(d)};
    std::pair<std::size_t, std::size_t> range;
    std::vector<int> table = inputIndexTable(params, d, out.begin, out.end, range);
    if (range.first == range.second)
      range = {0, 1}; // reads nothing: any one row keeps the field non-empty
    u.indices.insert(u.indices.end(), table.begin(), table.end());
    u.inBegin.push_back(range.first);
    u.inEnd.push_back(range.second);
    if (d < 3) {
      u.kernel[d] = static_cast<unsigned>(params.kernelShape[d]);
      u.outSize[d] = static_cast<unsigned>(out.size());
      u.inSize[d] = static_cast<unsigned>(range.second - range.first);
    }
  }
  // More than three spatial dimensions fold into the third.
  for (unsigned d = 3; d < dims; ++d) {
    u.kernel[2] *= static_cast<unsigned>(params.kernelShape[d]);
    u.outSize[2] *= static_cast<unsigned>(params.getOutputSize(d));
    u.inSize[2] *= static_cast<unsigned>(u.inEnd[d] - u.inBegin[d]);
  }
  return u;
}

void setShape(poplar::Graph &graph, poplar::VertexRef v, const UnitInput &u, std::size_t dims,
              Range g, Range o, Range i, Range b) {
  graph.setInitialValue(v["indices"], poplar::ArrayRef<int>(u.indices));
  graph.setInitialValue(v["dims"], static_cast<unsigned>(std::min<std::size_t>(dims, 3)));
  graph.setInitialValue(v["groups"], static_cast<unsigned>(g.size()));
  graph.setInitialValue(v["outChans"], static_cast<unsigned>(o.size()));
  graph.setInitialValue(v["inChans"], static_cast<unsigned>(i.size()));
  graph.setInitialValue(v["batch"], static_cast<unsigned>(b.size()));
  const char *k[] = {"k0", "k1", "k2"}, *os[] = {"o0", "o1", "o2"}, *is[] = {"i0", "i1", "i2"};
  for (unsigned d = 0; d < 3; ++d) {
    graph.setInitialValue(v[k[d]], u.kernel[d]);
    graph.setInitialValue(v[os[d]], u.outSize[d]);
    graph.setInitialValue(v[is[d]], u.inSize[d]);
  }
}

/// in[G][IC][B][fields…] sliced to the unit's block, flattened [g][ic][b][positions].
poplar::Tensor inputBlock(const poplar::Tensor &inG, const UnitInput &u, Range g, Range i,
                          Range b) {
  std::vector<std::size_t> begin = {g.begin, i.begin, b.begin}, end = {g.end, i.end, b.end};
  begin.insert(begin.end(), u.inBegin.begin(), u.inBegin.end());
  end.insert(end.end(), u.inEnd.begin(), u.inEnd.end());
  return inG.slice(begin, end).flatten();
}

/// out[G][OC][B][out fields…] sliced to (g, o, b, rows), flattened [g][oc][n].
poplar::Tensor outputBlock(const poplar::Tensor &outG, Range g, Range o, Range b, Range rows) {
  std::vector<std::size_t> begin = {g.begin, o.begin, b.begin, rows.begin};
  std::vector<std::size_t> end = {g.end, o.end, b.end, rows.end};
  for (unsigned d = 4; d < outG.rank(); ++d) {
    begin.push_back(0);
    end.push_back(outG.dim(d));
  }
  return outG.slice(begin, end).flatten();
}

poplar::Tensor weightBlock(const poplar::Tensor &w, Range g, Range o, Range i) {
  std::vector<std::size_t> begin = {g.begin, o.begin, i.begin}, end = {g.end, o.end, i.end};
  for (unsigned d = 3; d < w.rank(); ++d) {
    begin.push_back(0);
    end.push_back(w.dim(d));
  }
  return w.slice(begin, end).flatten();
}

struct Blocks {
  const ConvPlan &p;
  Range g(std::size_t x) const { return blockRange(x, p.groupsPerBlock, p.groups); }
  Range o(std::size_t x) const { return blockRange(x, p.outChansPerBlock, p.outChans); }
  Range i(std::size_t x) const { return blockRange(x, p.inChansPerBlock, p.inChans); }
  Range b(std::size_t x) const { return blockRange(x, p.batchPerBlock, p.batch); }
  Range r(std::size_t x) const { return blockRange(x, p.rowsPerBlock, p.rows); }
};

/// Calls f(g, o, i, b, r) for every unit with a non-empty block, in unit order.
template <class F> void forEachUnit(const ConvPlan &p, F &&f) {
  const Blocks bl{p};
  for (std::size_t g = 0; g < p.groupBlocks; ++g)
    for (std::size_t o = 0; o < p.outChanBlocks; ++o)
      for (std::size_t i = 0; i < p.inChanBlocks; ++i)
        for (std::size_t b = 0; b < p.batchBlocks; ++b)
          for (std::size_t r = 0; r < p.rowBlocks; ++r)
            if (bl.g(g).size() && bl.o(o).size() && bl.i(i).size() && bl.b(b).size() &&
                bl.r(r).size())
              f(g, o, i, b, r);
}

/// Sums `parts` (equal-length fp32 tensors) into `out` piece by piece: piece q on tiles[q].
void reduceInto(poplar::Graph &graph, poplar::ComputeSet &cs,
                const std::vector<poplar::Tensor> &parts, const poplar::Tensor &out,
                const std::vector<unsigned> &tiles, const std::string &type) {
  const std::size_t n = out.numElements(), pieces = tiles.size();
  for (std::size_t q = 0; q < pieces; ++q) {
    const std::size_t b = n * q / pieces, e = n * (q + 1) / pieces;
    if (b == e)
      continue;
    std::vector<poplar::Tensor> slices;
    for (const auto &part : parts)
      slices.push_back(part.slice(b, e));
    auto v = graph.addVertex(cs, type, {{"out", out.slice(b, e)}});
    graph.connect(v["partials"], slices);
    graph.setInitialValue(v["scale"], 1.0f);
    graph.setTileMapping(v, tiles[q]);
  }
}

} // namespace

namespace {

/// Maps `var` (flattened) from a tile per element, in address order with equal neighbours
/// merged: one setTileMapping call per run keeps mapping cost linear in the runs.
void mapRuns(poplar::Graph &graph, const poplar::Tensor &var, const std::vector<unsigned> &tile) {
  const poplar::Tensor flat = var.flatten();
  std::size_t begin = 0;
  for (std::size_t i = 1; i <= tile.size(); ++i)
    if (i == tile.size() || tile[i] != tile[begin]) {
      graph.setTileMapping(flat.slice(begin, i), tile[begin]);
      begin = i;
    }
}

/// Assigns `pieces` consecutive pieces of a block's elements (offsets listed in block order)
/// to tiles tileOfPiece(q).
template <class TileOf>
void assignPieces(std::vector<unsigned> &tile, const std::vector<std::size_t> &offsets,
                  std::size_t pieces, TileOf &&tileOfPiece) {
  const std::size_t n = offsets.size();
  for (std::size_t q = 0; q < pieces; ++q) {
    const unsigned t = tileOfPiece(q);
    for (std::size_t e = n * q / pieces; e < n * (q + 1) / pieces; ++e)
      tile[offsets[e]] = t;
  }
}

} // namespace

poplar::Tensor createConvTensor(poplar::Graph &graph, const ConvPlan &p, const ConvParams &params,
                                ConvOperand which, const poplar::Type &type,
                                const std::string &name) {
  switch (p.method) {
  case ConvMethod::POINTWISE:
    return createPointwiseTensor(graph, p, params, which, type, name);
  case ConvMethod::WINOGRAD:
    return createWinogradTensor(graph, p, params, which, type, name);
  case ConvMethod::IM2COL:
  case ConvMethod::COL2IM:
    return createLoweredTensor(graph, p, params, which, type, name);
  case ConvMethod::BLOCKS:
    break;
  }
  const Blocks bl{p};
  if (which == ConvOperand::Weights) {
    std::vector<std::size_t> shape = {p.groups, p.outChans, p.inChans};
    shape.insert(shape.end(), params.kernelShape.begin(), params.kernelShape.end());
    poplar::Tensor w = graph.addVariable(type, shape, name);
    const std::size_t kElems = w.numElements() / (p.groups * p.outChans * p.inChans);
    std::vector<unsigned> tile(w.numElements(), 0);
    // A weight block is spread over the tiles of the (batch, rows) units sharing it: forward
    // units each read it whole, weight-gradient reductions write it in these pieces.
    const std::size_t pieces = p.batchBlocks * p.rowBlocks;
    std::vector<std::size_t> offsets;
    for (std::size_t g = 0; g < p.groupBlocks; ++g)
      for (std::size_t o = 0; o < p.outChanBlocks; ++o)
        for (std::size_t i = 0; i < p.inChanBlocks; ++i) {
          offsets.clear();
          for (std::size_t gg = bl.g(g).begin; gg < bl.g(g).end; ++gg)
            for (std::size_t oc = bl.o(o).begin; oc < bl.o(o).end; ++oc)
              for (std::size_t ic = bl.i(i).begin; ic < bl.i(i).end; ++ic)
                for (std::size_t k = 0; k < kElems; ++k)
                  offsets.push_back(((gg * p.outChans + oc) * p.inChans + ic) * kElems + k);
          assignPieces(tile, offsets, pieces, [&](std::size_t q) {
            return p.tileOf(g, o, i, q / p.rowBlocks, q % p.rowBlocks);
          });
        }
    mapRuns(graph, w, tile);
    return w;
  }
  const bool input = which == ConvOperand::Input;
  const std::vector<std::size_t> field =
      input ? params.inputFieldShape : params.getOutputFieldShape();
  const std::size_t chansPerGroup = input ? p.inChans : p.outChans;
  const std::size_t chans = p.groups * chansPerGroup, rows = field[0];
  std::size_t rest = 1;
  for (std::size_t d = 1; d < field.size(); ++d)
    rest *= field[d];
  // Memory order [G*C][B][rows][rest…]: channel-major, so a tile's GEMM columns (batch, field)
  // are contiguous.
  std::vector<std::size_t> memShape = {chans, p.batch};
  memShape.insert(memShape.end(), field.begin(), field.end());
  poplar::Tensor var = graph.addVariable(type, memShape, name);
  std::vector<unsigned> tile(var.numElements(), 0);
  auto offset = [&](std::size_t g, std::size_t c, std::size_t b, std::size_t row) {
    return (((g * chansPerGroup + c) * p.batch + b) * rows + row) * rest;
  };
  const std::size_t pieces = !input && p.pass == ConvPass::FORWARD ? p.reduceCount() : 1;
  std::vector<std::size_t> offsets;
  for (std::size_t g = 0; g < p.groupBlocks; ++g)
    for (std::size_t c = 0; c < (input ? p.inChanBlocks : p.outChanBlocks); ++c)
      for (std::size_t b = 0; b < p.batchBlocks; ++b)
        for (std::size_t r = 0; r < p.rowBlocks; ++r) {
          const Range cr = input ? bl.i(c) : bl.o(c);
          // Input rows are shared out in proportion (blocks' halos overlap); output rows follow
          // the plan exactly.
          const Range rr =
              input ? Range{rows * r / p.rowBlocks, rows * (r + 1) / p.rowBlocks} : bl.r(r);
          offsets.clear();
          // Block order [g][c][b][rows][rest…], as buildConvolution flattens output blocks.
          for (std::size_t gg = bl.g(g).begin; gg < bl.g(g).end; ++gg)
            for (std::size_t cc = cr.begin; cc < cr.end; ++cc)
              for (std::size_t bb = bl.b(b).begin; bb < bl.b(b).end; ++bb)
                for (std::size_t row = rr.begin; row < rr.end; ++row)
                  for (std::size_t x = 0, o = offset(gg, cc, bb, row); x < rest; ++x)
                    offsets.push_back(o + x);
          assignPieces(tile, offsets, pieces, [&](std::size_t q) {
            return input ? p.tileOf(g, 0, c, b, r) : p.tileOf(g, c, q, b, r);
          });
        }
  mapRuns(graph, var, tile);
  std::vector<unsigned> perm = {1, 0};
  for (unsigned d = 2; d < var.rank(); ++d)
    perm.push_back(d);
  return var.dimShuffle(perm);
}

void buildConvolution(poplar::Graph &graph, const ConvPlan &p, const ConvParams &params,
                      const poplar::Tensor &in, const poplar::Tensor &weights,
                      const poplar::Tensor &out, poplar::program::Sequence &prog,
                      const std::string &name) {
  if (p.method != ConvMethod::BLOCKS)
    return buildProductConvolution(graph, p, params, in, weights, false, out, prog, name);
  const Blocks bl{p};
  const poplar::Tensor inG = groupMajor(in, p.groups), outG = groupMajor(out, p.groups);
  const bool partials = p.inChanBlocks > 1;
  const std::string type =
      poputil::templateVertex("poplin::ConvBlock", params.inputType,
                              partials ? poplar::Type(poplar::FLOAT) : out.elementType());
  poplar::ComputeSet cs = graph.addComputeSet(name + "/convolve");
  // Input dilation (a strided convolution's input gradient) is split into output phases by
  // the codelet, so each unit stays one vertex over its contiguous output block.
  std::vector<UnitInput> rowInputs(p.rowBlocks);
  for (std::size_t r = 0; r < p.rowBlocks; ++r)
    if (bl.r(r).size())
      rowInputs[r] = unitInput(params, bl.r(r));
  // partial[unit] for K-split units, indexed [g][o][b][r][i].
  std::vector<poplar::Tensor> partial(p.units());
  auto partialIndex = [&](std::size_t g, std::size_t o, std::size_t i, std::size_t b,
                          std::size_t r) {
    return (((g * p.outChanBlocks + o) * p.batchBlocks + b) * p.rowBlocks + r) * p.inChanBlocks + i;
  };
  forEachUnit(p, [&](std::size_t g, std::size_t o, std::size_t i, std::size_t b, std::size_t r) {
    const unsigned tile = p.tileOf(g, o, i, b, r);
    std::vector<std::size_t> begin = {bl.g(g).begin, bl.o(o).begin, bl.b(b).begin, bl.r(r).begin};
    std::vector<std::size_t> end = {bl.g(g).end, bl.o(o).end, bl.b(b).end, bl.r(r).end};
    for (unsigned d = 4; d < outG.rank(); ++d) {
      begin.push_back(0);
      end.push_back(outG.dim(d));
    }
    poplar::Tensor block = outG.slice(begin, end);
    if (partials) {
      block = graph.addVariable(poplar::FLOAT, block.shape(), name + "/partials");
      graph.setTileMapping(block, tile);
      partial[partialIndex(g, o, i, b, r)] = block.flatten();
    }
    const UnitInput &u = rowInputs[r];
    auto v = graph.addVertex(cs, type,
                             {{"in", inputBlock(inG, u, bl.g(g), bl.i(i), bl.b(b))},
                              {"weights", weightBlock(weights, bl.g(g), bl.o(o), bl.i(i))},
                              {"out", block.flatten()}});
    setShape(graph, v, u, params.getNumFieldDims(), bl.g(g), bl.o(o), bl.i(i), bl.b(b));
    graph.setTileMapping(v, tile);
  });
  prog.add(poplar::program::Execute(cs, name + "/convolve"));
  if (!partials)
    return;
  poplar::ComputeSet reduce = graph.addComputeSet(name + "/reducePartials");
  const std::string reduceType =
      poputil::templateVertex("poplin::ReducePartials", out.elementType());
  for (std::size_t g = 0; g < p.groupBlocks; ++g)
    for (std::size_t o = 0; o < p.outChanBlocks; ++o)
      for (std::size_t b = 0; b < p.batchBlocks; ++b)
        for (std::size_t r = 0; r < p.rowBlocks; ++r) {
          if (!bl.g(g).size() || !bl.o(o).size() || !bl.b(b).size() || !bl.r(r).size())
            continue;
          std::vector<poplar::Tensor> parts;
          std::vector<unsigned> tiles;
          for (std::size_t i = 0; i < p.inChanBlocks; ++i) {
            if (!bl.i(i).size())
              continue;
            parts.push_back(partial[partialIndex(g, o, i, b, r)]);
            tiles.push_back(p.tileOf(g, o, i, b, r));
          }
          reduceInto(graph, reduce, parts, outputBlock(outG, bl.g(g), bl.o(o), bl.b(b), bl.r(r)),
                     tiles, reduceType);
        }
  prog.add(poplar::program::Execute(reduce, name + "/reducePartials"));
}

void buildProductConvolution(poplar::Graph &graph, const ConvPlan &plan, const ConvParams &params,
                             const poplar::Tensor &in, const poplar::Tensor &weights,
                             bool weightsTransposed, const poplar::Tensor &out,
                             poplar::program::Sequence &prog, const std::string &name) {
  switch (plan.method) {
  case ConvMethod::POINTWISE:
    return buildPointwiseConvolution(graph, plan, params, in, weights, weightsTransposed, out, prog,
                                     name);
  case ConvMethod::WINOGRAD:
    return buildWinogradConvolution(graph, plan, params, in, weights, weightsTransposed, out, prog,
                                    name);
  case ConvMethod::IM2COL:
  case ConvMethod::COL2IM:
    return buildLoweredConvolution(graph, plan, params, in, weights, weightsTransposed, out, prog,
                                   name);
  case ConvMethod::BLOCKS:
    break;
  }
  throw poputil::poplibs_error("internal: a block plan is not a product");
}

void buildWeightGradient(poplar::Graph &graph, const ConvPlan &p, const ConvParams &params,
                         const poplar::Tensor &zDeltas, const poplar::Tensor &activations,
                         const poplar::Tensor &dW, std::optional<float> scale,
                         poplar::program::Sequence &prog, const std::string &name) {
  switch (p.method) {
  case ConvMethod::POINTWISE:
    return buildPointwiseWeightGradient(graph, p, params, zDeltas, activations, dW, scale, prog,
                                        name);
  case ConvMethod::WINOGRAD:
    return buildWinogradWeightGradient(graph, p, params, zDeltas, activations, dW, scale, prog,
                                       name);
  case ConvMethod::IM2COL:
  case ConvMethod::COL2IM:
    return buildLoweredWeightGradient(graph, p, params, zDeltas, activations, dW, scale, prog,
                                      name);
  case ConvMethod::BLOCKS:
    break;
  }
  const Blocks bl{p};
  const poplar::Tensor inG = groupMajor(activations, p.groups);
  const poplar::Tensor zG = groupMajor(zDeltas, p.groups);
  const std::string type = poputil::templateVertex("poplin::ConvWeightGradBlock", params.inputType);
  poplar::ComputeSet cs = graph.addComputeSet(name + "/weightGradient");
  std::vector<UnitInput> rowInputs(p.rowBlocks);
  for (std::size_t r = 0; r < p.rowBlocks; ++r)
    if (bl.r(r).size())
      rowInputs[r] = unitInput(params, bl.r(r));
  std::vector<poplar::Tensor> partial(p.units());
  auto unitIndex = [&](std::size_t g, std::size_t o, std::size_t i, std::size_t b, std::size_t r) {
    return (((g * p.outChanBlocks + o) * p.inChanBlocks + i) * p.batchBlocks + b) * p.rowBlocks + r;
  };
  forEachUnit(p, [&](std::size_t g, std::size_t o, std::size_t i, std::size_t b, std::size_t r) {
    const UnitInput &u = rowInputs[r];
    const unsigned tile = p.tileOf(g, o, i, b, r);
    poplar::Tensor dst =
        graph.addVariable(poplar::FLOAT, {weightBlock(dW, bl.g(g), bl.o(o), bl.i(i)).numElements()},
                          name + "/partials");
    graph.setTileMapping(dst, tile);
    partial[unitIndex(g, o, i, b, r)] = dst;
    auto v = graph.addVertex(cs, type,
                             {{"zDeltas", outputBlock(zG, bl.g(g), bl.o(o), bl.b(b), bl.r(r))},
                              {"in", inputBlock(inG, u, bl.g(g), bl.i(i), bl.b(b))},
                              {"out", dst}});
    setShape(graph, v, u, params.getNumFieldDims(), bl.g(g), bl.o(o), bl.i(i), bl.b(b));
    graph.setTileMapping(v, tile);
  });
  prog.add(poplar::program::Execute(cs, name + "/weightGradient"));

  // Each weight block's partials are summed in (batch, rows) unit order.
  poplar::ComputeSet reduce = graph.addComputeSet(name + "/reducePartials");
  const std::string reduceType = poputil::templateVertex(
      scale ? "poplin::ScaledAddPartials" : "poplin::ReducePartials", dW.elementType());
  for (std::size_t g = 0; g < p.groupBlocks; ++g)
    for (std::size_t o = 0; o < p.outChanBlocks; ++o)
      for (std::size_t i = 0; i < p.inChanBlocks; ++i) {
        if (!bl.g(g).size() || !bl.o(o).size() || !bl.i(i).size())
          continue;
        std::vector<poplar::Tensor> parts;
        std::vector<unsigned> tiles;
        for (std::size_t b = 0; b < p.batchBlocks; ++b)
          for (std::size_t r = 0; r < p.rowBlocks; ++r) {
            if (!bl.b(b).size() || !bl.r(r).size())
              continue;
            parts.push_back(partial[unitIndex(g, o, i, b, r)]);
            tiles.push_back(p.tileOf(g, o, i, b, r));
          }
        const poplar::Tensor target = weightBlock(dW, bl.g(g), bl.o(o), bl.i(i));
        const std::size_t n = target.numElements(), pieces = tiles.size();
        for (std::size_t q = 0; q < pieces; ++q) {
          const std::size_t b = n * q / pieces, e = n * (q + 1) / pieces;
          if (b == e)
            continue;
          std::vector<poplar::Tensor> slices;
          for (const auto &part : parts)
            slices.push_back(part.slice(b, e));
          auto v = graph.addVertex(reduce, reduceType, {{"out", target.slice(b, e)}});
          graph.connect(v["partials"], slices);
          graph.setInitialValue(v["scale"], scale.value_or(1.0f));
          graph.setTileMapping(v, tiles[q]);
        }
      }
  prog.add(poplar::program::Execute(reduce, name + "/reducePartials"));
}

} // namespace poplin::detail
