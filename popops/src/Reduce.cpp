// popops::reduce and friends: argument checks, then the two compute sets planned in ReducePlan.
#include <popops/Reduce.hpp>

#include <algorithm>
#include <sstream>

#include <poplar/exceptions.hpp>
#include <poputil/Describe.hpp>
#include <poputil/OptionParsing.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "ReducePlan.hpp"
#include "TileRegions.hpp"
#include "popops/ReduceKind.hpp"

namespace popops {

namespace {

namespace cp = tessera::codelets::popops;
using poplar::Tensor;
using poplar::Type;

bool isFloating(const Type &t) { return t == poplar::FLOAT || t == poplar::HALF; }

/// The accumulator type of the partials: float for FLOAT/HALF, else the input type.
Type accumulatorType(const Type &in) { return isFloating(in) ? poplar::FLOAT : in; }

/// Sorted reduced dimensions; throws for a dimension `in` lacks or a repeated one.
std::vector<std::size_t> checkDims(const Tensor &in, const std::vector<std::size_t> &dims) {
  std::vector<std::size_t> sorted = dims;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] >= in.rank())
      throw poputil::poplibs_error("popops::reduce: dimension " + std::to_string(sorted[i]) +
                                   " does not exist in " + poputil::describe(in) + " (rank " +
                                   std::to_string(in.rank()) + ")");
    if (i && sorted[i] == sorted[i - 1])
      throw poputil::poplibs_error("popops::reduce: dimension " + std::to_string(sorted[i]) +
                                   " is listed twice for " + poputil::describe(in));
  }
  return sorted;
}

void checkTypes(const Tensor &in, const Type &outType, const ReduceParams &params) {
  const Type t = in.elementType();
  const bool logical = params.op == Operation::LOGICAL_AND || params.op == Operation::LOGICAL_OR;
  std::ostringstream op;
  op << params.op;
  if (logical && t != poplar::BOOL)
    throw poputil::poplibs_error("popops::reduce: " + op.str() + " needs a BOOL input, not " +
                                 poputil::describe(in));
  if (!logical && !(isFloating(t) || (t == poplar::INT && params.op != Operation::LOG_ADD)))
    throw poputil::poplibs_error(
        "popops::reduce: " + op.str() + " does not support input " + poputil::describe(in) +
        (params.op == Operation::LOG_ADD ? " (FLOAT or HALF only)" : " (FLOAT, HALF or INT)"));
  const bool outOk = isFloating(t) ? isFloating(outType) : outType == t;
  if (!outOk)
    throw poputil::poplibs_error("popops::reduce: cannot reduce " + poputil::describe(in) +
                                 " to output type " + outType.toString());
  const bool scalable = params.op == Operation::ADD || params.op == Operation::SQUARE_ADD ||
                        params.op == Operation::LOG_ADD;
  if ((params.update || params.useScale) && !scalable)
    throw poputil::poplibs_error("popops::reduce: " + op.str() +
                                 " takes no scale or update (only ADD, SQUARE_ADD, LOG_ADD), "
                                 "reducing " +
                                 poputil::describe(in));
  if (params.useScale &&
      (params.scale.elementType() != poplar::FLOAT || params.scale.numElements() != 1))
    throw poputil::poplibs_error("popops::reduce: the scale must be a FLOAT tensor of one "
                                 "element, not " +
                                 poputil::describe(params.scale));
}

/// The options reduce() understands: PopLibs' accumulator types. Tessera always accumulates
/// FLOAT and HALF input in float, so "half" is accepted and changes nothing.
void checkOptions(const poplar::OptionFlags &options) {
  using H = poputil::OptionHandler;
  std::string interTile, inVertex;
  const std::vector<std::string> accumTypes = {"float", "half"};
  poputil::OptionSpec("popops::reduce",
                      {{"accumType.interTile", H::createWithChoice(interTile, accumTypes)},
                       {"accumType.inVertex", H::createWithChoice(inVertex, accumTypes)}})
      .parse(options);
}

std::vector<std::size_t> reducedShape(const Tensor &in, const std::vector<std::size_t> &sorted) {
  std::vector<std::size_t> shape;
  for (std::size_t d = 0; d < in.rank(); ++d)
    if (!std::binary_search(sorted.begin(), sorted.end(), d))
      shape.push_back(in.dim(d));
  return shape;
}

/// How stage 2 combines partials: sums of squares are plain sums by then.
cp::ReduceKind combineKind(Operation op) {
  return op == Operation::SQUARE_ADD ? cp::ReduceKind::Add : static_cast<cp::ReduceKind>(op);
}

std::string kindName(cp::ReduceKind k) { return cp::reduceKindName(k); }

/// Adds vertices of `vertexType` on `tile` folding `regions` of `source` into `dest` (region i
/// at destOffsets[i]), one vertex per worker-sized group of regions. A region never spans two
/// vertices, so the grouping changes no result.
void addRegionVertices(poplar::Graph &graph, poplar::ComputeSet cs, const std::string &vertexType,
                       unsigned tile, const Tensor &source, const Tensor &dest,
                       const std::vector<detail::ReduceRegion> &regions,
                       const std::vector<std::size_t> &destOffsets, const Tensor *scale) {
  const unsigned workers = graph.getTarget().getNumWorkerContexts();
  for (const auto &[begin, end] : detail::splitAmongWorkers(regions, workers)) {
    std::vector<Tensor> ins, outs;
    std::vector<unsigned> runsPerRegion;
    for (std::size_t i = begin; i < end; ++i) {
      for (const auto &run : regions[i].runs)
        ins.push_back(source.slice(run));
      outs.push_back(dest.slice(destOffsets[i], destOffsets[i] + regions[i].width));
      runsPerRegion.push_back(static_cast<unsigned>(regions[i].runs.size()));
    }
    auto v = graph.addVertex(cs, vertexType);
    graph.connect(v["in"], ins);
    graph.connect(v["out"], outs);
    graph.setInitialValue(v["runsPerRegion"], poplar::ArrayRef<unsigned>(runsPerRegion));
    if (scale)
      graph.connect(v["scale"], *scale);
    graph.setTileMapping(v, tile);
  }
}

/// Adds the reduction of `in` into `out` (already shaped and typed) to cs1 then cs2.
void addReduction(poplar::Graph &graph, const Tensor &in, const Tensor &out,
                  const std::vector<std::size_t> &sortedDims, const ReduceParams &params,
                  poplar::ComputeSet cs1, poplar::ComputeSet cs2,
                  const poplar::DebugContext &debugContext) {
  bool complete = false;
  graph.getTileMapping(out, &complete);
  if (!complete)
    poputil::mapTensorLinearly(graph, out);
  const Type accType = accumulatorType(in.elementType());
  const auto view = detail::orientInput(graph, in, sortedDims);

  // Stage 1: per-tile partials, each tile's in its own variable on that tile.
  const auto perTile = detail::planPartials(graph, view);
  const std::string partialsVertex = "popops::ReducePartials<" +
                                     kindName(static_cast<cp::ReduceKind>(params.op)) + "," +
                                     in.elementType().toString() + "," + accType.toString() + ">";
  std::vector<detail::TilePartials> partials;
  std::vector<Tensor> partialTensors;
  std::vector<std::size_t> partialBase;
  std::size_t total = 0;
  for (unsigned tile = 0; tile < perTile.size(); ++tile) {
    if (perTile[tile].empty())
      continue;
    detail::TilePartials tp{tile, perTile[tile], {}};
    std::size_t size = 0;
    for (const auto &r : tp.regions) {
      tp.offsets.push_back(size);
      size += r.width;
    }
    Tensor p = graph.addVariable(accType, {size}, {debugContext, "partials"});
    graph.setTileMapping(p, tile);
    addRegionVertices(graph, cs1, partialsVertex, tile, view.flat, p, tp.regions, tp.offsets,
                      nullptr);
    partialBase.push_back(total);
    total += size;
    partials.push_back(std::move(tp));
    partialTensors.push_back(p);
  }

  // Stage 2: the tiles owning the output combine partials in tile order.
  const Tensor allPartials =
      partialTensors.empty() ? graph.addVariable(accType, {0}) : poplar::concat(partialTensors);
  Tensor scale = params.scale;
  if (!params.useScale) {
    // The identity scale: x1, or +0 for LOG_ADD (a multiply in log space).
    const float identity = params.op == Operation::LOG_ADD ? 0.0f : 1.0f;
    scale = graph.addConstant(poplar::FLOAT, {1}, identity, {debugContext, "unitScale"});
    graph.setTileMapping(scale, 0);
  }
  const Tensor scaleElement = scale.flatten()[0];
  const Tensor outFlat = out.flatten();
  const auto outRuns = detail::contiguousRunsPerTile(graph, outFlat);
  const auto finals = detail::planFinal(partials, partialBase, outRuns);
  const std::string finalVertex = "popops::ReduceFinal<" + kindName(combineKind(params.op)) + "," +
                                  accType.toString() + "," + out.elementType().toString() + "," +
                                  (params.update ? "true" : "false") + ">";
  for (unsigned tile = 0; tile < finals.size(); ++tile) {
    if (finals[tile].empty())
      continue;
    std::vector<std::size_t> offsets;
    for (const auto &r : finals[tile])
      offsets.push_back(r.outBegin);
    addRegionVertices(graph, cs2, finalVertex, tile, allPartials, outFlat, finals[tile], offsets,
                      &scaleElement);
  }
}

struct ComputeSets {
  poplar::ComputeSet partials, final;
};

ComputeSets makeComputeSets(poplar::Graph &graph, const poplar::DebugContext &dc) {
  return {graph.addComputeSet({dc, "Reduce/Partials"}), graph.addComputeSet({dc, "Reduce/Final"})};
}

ComputeSets fromVector(poplar::Graph &graph, std::vector<poplar::ComputeSet> &css,
                       const poplar::DebugContext &dc) {
  if (css.size() < 2) {
    auto sets = makeComputeSets(graph, dc);
    css.resize(2);
    if (!css[0].valid())
      css[0] = sets.partials;
    if (!css[1].valid())
      css[1] = sets.final;
  }
  return {css[0], css[1]};
}

Tensor newOutput(poplar::Graph &graph, const Tensor &in, const Type &outType,
                 const std::vector<std::size_t> &dims, const ReduceParams &params,
                 const poplar::DebugContext &dc, const poplar::OptionFlags &options,
                 std::vector<std::size_t> &sorted) {
  checkOptions(options);
  sorted = checkDims(in, dims);
  checkTypes(in, outType, params);
  if (params.update)
    throw poputil::poplibs_error("popops::reduce: an update needs an output tensor (use "
                                 "reduceWithOutput), reducing " +
                                 poputil::describe(in));
  return graph.addVariable(outType, reducedShape(in, sorted), {dc, "output"});
}

void checkOutput(const Tensor &in, const Tensor &out, const std::vector<std::size_t> &dims,
                 const ReduceParams &params, const poplar::OptionFlags &options,
                 std::vector<std::size_t> &sorted) {
  checkOptions(options);
  sorted = checkDims(in, dims);
  checkTypes(in, out.elementType(), params);
  const auto want = reducedShape(in, sorted);
  if (out.shape() != want)
    throw poputil::poplibs_error("popops::reduceWithOutput: output " + poputil::describe(out) +
                                 " has the wrong shape: reducing " + poputil::describe(in) +
                                 " gives " + poputil::shapeString(want));
}

} // namespace

Tensor reduce(poplar::Graph &graph, const Tensor &in, const Type &outType,
              const std::vector<std::size_t> &dims, ReduceParams params,
              poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
              const poplar::OptionFlags &options) {
  std::vector<std::size_t> sorted;
  Tensor out = newOutput(graph, in, outType, dims, params, debugContext, options, sorted);
  auto cs = makeComputeSets(graph, debugContext);
  addReduction(graph, in, out, sorted, params, cs.partials, cs.final, debugContext);
  prog.add(poplar::program::Execute(cs.partials, {debugContext, "Reduce"}));
  prog.add(poplar::program::Execute(cs.final, {debugContext, "Reduce"}));
  return out;
}

Tensor reduce(poplar::Graph &graph, const Tensor &in, const std::vector<std::size_t> &dims,
              ReduceParams params, poplar::program::Sequence &prog,
              const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return reduce(graph, in, in.elementType(), dims, params, prog, debugContext, options);
}

void reduceWithOutput(poplar::Graph &graph, const Tensor &in, const Tensor &out,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &options) {
  std::vector<std::size_t> sorted;
  checkOutput(in, out, dims, params, options, sorted);
  auto cs = makeComputeSets(graph, debugContext);
  addReduction(graph, in, out, sorted, params, cs.partials, cs.final, debugContext);
  prog.add(poplar::program::Execute(cs.partials, {debugContext, "Reduce"}));
  prog.add(poplar::program::Execute(cs.final, {debugContext, "Reduce"}));
}

Tensor reduce(poplar::Graph &graph, const Tensor &in, const Type &outType,
              const std::vector<std::size_t> &dims, ReduceParams params,
              std::vector<poplar::ComputeSet> &css, const poplar::DebugContext &debugContext,
              const poplar::OptionFlags &options) {
  std::vector<std::size_t> sorted;
  Tensor out = newOutput(graph, in, outType, dims, params, debugContext, options, sorted);
  auto cs = fromVector(graph, css, debugContext);
  addReduction(graph, in, out, sorted, params, cs.partials, cs.final, debugContext);
  return out;
}

Tensor reduce(poplar::Graph &graph, const Tensor &in, const std::vector<std::size_t> &dims,
              ReduceParams params, std::vector<poplar::ComputeSet> &css,
              const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return reduce(graph, in, in.elementType(), dims, params, css, debugContext, options);
}

void reduceWithOutput(poplar::Graph &graph, const Tensor &in, const Tensor &out,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      std::vector<poplar::ComputeSet> &css,
                      const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &options) {
  std::vector<std::size_t> sorted;
  checkOutput(in, out, dims, params, options, sorted);
  auto cs = fromVector(graph, css, debugContext);
  addReduction(graph, in, out, sorted, params, cs.partials, cs.final, debugContext);
}

void reduceMany(poplar::Graph &graph, const std::vector<SingleReduceOp> &reductions,
                std::vector<Tensor> &outputs, poplar::program::Sequence &prog,
                const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  const bool create = outputs.empty();
  if (!create && outputs.size() != reductions.size())
    throw poputil::poplibs_error("popops::reduceMany: " + std::to_string(outputs.size()) +
                                 " outputs given for " + std::to_string(reductions.size()) +
                                 " reductions");
  std::vector<poplar::ComputeSet> css;
  if (create)
    outputs.resize(reductions.size());
  for (std::size_t i = 0; i < reductions.size(); ++i) {
    const auto &r = reductions[i];
    const poplar::DebugContext dc(debugContext, r.debugName);
    if (create)
      outputs[i] = reduce(graph, r.in, r.useOutType ? r.outType : r.in.elementType(), r.dims,
                          r.params, css, dc, options);
    else
      reduceWithOutput(graph, r.in, outputs[i], r.dims, r.params, css, dc, options);
  }
  for (const auto &cs : css)
    prog.add(poplar::program::Execute(cs, {debugContext, "ReduceMany"}));
}

} // namespace popops
