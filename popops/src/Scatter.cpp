// scatter: the index vectors and update windows are viewed as [windows][K] and
// [windows][windowSize]; each tile runs ScatterRegions over the operand regions it holds, all
// windows at once (later windows overwrite earlier ones). With an update computation, a counted
// loop takes one window per pass: GatherRegions rows summed over tiles give the current values,
// the user's computation combines them with the window's updates, ScatterRegions writes back.
#include <popops/Scatter.hpp>

#include <algorithm>
#include <numeric>
#include <string>

#include <popops/DynamicSlice.hpp>
#include <popops/Loop.hpp>
#include <popops/Reduce.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "TileRegions.hpp"

namespace popops {

namespace {

/// Regions one vertex takes at most (its state grows with them).
constexpr std::size_t kRegionsPerVertex = 1024;

[[noreturn]] void fail(const std::string &what) {
  throw poputil::poplibs_error("popops::scatter: " + what);
}

std::string listString(const std::vector<std::size_t> &v) {
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i)
      s += ',';
    s += std::to_string(v[i]);
  }
  s += '}';
  return s;
}

bool strictlyAscending(const std::vector<std::size_t> &v) {
  return std::adjacent_find(v.begin(), v.end(), [](auto a, auto b) { return a >= b; }) == v.end();
}

/// Everything the vertices need, worked out on the host from the shapes.
struct ScatterPlan {
  poplar::Tensor indexVectors;  // [windows * K], window-major
  poplar::Tensor updateWindows; // [windows][windowSize]
  std::vector<std::size_t> windowShape;
  std::vector<unsigned> startStride;
  std::vector<int> maxStart;
  std::vector<unsigned> windowDelta;
  std::size_t windows = 0, windowSize = 0;
};

ScatterPlan planScatter(const poplar::Tensor &operand, const poplar::Tensor &indices,
                        const poplar::Tensor &updates, std::size_t indexVectorDim,
                        const std::vector<unsigned> &updateWindowDimsIn,
                        const std::vector<std::size_t> &insertWindowDims,
                        const std::vector<unsigned> &scatterDimsToOperandDims) {
  const poplar::Type type = operand.elementType();
  if (type != poplar::FLOAT && type != poplar::HALF && type != poplar::INT &&
      type != poplar::UNSIGNED_INT)
    fail("operand must be FLOAT, HALF, INT or UNSIGNED_INT, got " + operand.shortString());
  if (updates.elementType() != type)
    fail("updates " + updates.shortString() + " must have operand's type " + type.toString());
  if (indices.elementType() != poplar::INT && indices.elementType() != poplar::UNSIGNED_INT)
    fail("indices must be INT or UNSIGNED_INT, got " + indices.shortString());
  if (indexVectorDim > indices.rank())
    fail("indexVectorDim " + std::to_string(indexVectorDim) + " is beyond the rank of indices " +
         indices.shortString());
  const std::vector<std::size_t> updateWindowDims(updateWindowDimsIn.begin(),
                                                  updateWindowDimsIn.end());
  if (!strictlyAscending(updateWindowDims) ||
      (!updateWindowDims.empty() && updateWindowDims.back() >= updates.rank()))
    fail("updateWindowDims " + listString(updateWindowDims) +
         " must be ascending dimensions of updates " + updates.shortString());
  if (!strictlyAscending(insertWindowDims) ||
      (!insertWindowDims.empty() && insertWindowDims.back() >= operand.rank()))
    fail("insertWindowDims " + listString(insertWindowDims) +
         " must be ascending dimensions of operand " + operand.shortString());
  if (updateWindowDims.size() + insertWindowDims.size() != operand.rank())
    fail("updateWindowDims (" + std::to_string(updateWindowDims.size()) +
         ") and insertWindowDims (" + std::to_string(insertWindowDims.size()) +
         ") must together list one entry per dimension of operand " + operand.shortString());
  const bool implicitVector = indexVectorDim == indices.rank();
  const std::size_t k = implicitVector ? 1 : indices.dim(indexVectorDim);
  if (scatterDimsToOperandDims.size() != k)
    fail("scatterDimsToOperandDims has " + std::to_string(scatterDimsToOperandDims.size()) +
         " entries, expected one per index vector component (" + std::to_string(k) + ")");
  std::vector<bool> seen(operand.rank(), false);
  for (unsigned d : scatterDimsToOperandDims) {
    if (d >= operand.rank() || seen[d])
      fail("scatterDimsToOperandDims must list distinct dimensions of operand " +
           operand.shortString() + ", got dimension " + std::to_string(d));
    seen[d] = true;
  }
  // Scatter dimensions of updates, matching indices' dimensions other than indexVectorDim.
  std::vector<unsigned> updateScatterDims, indexBatchDims;
  for (unsigned d = 0; d < updates.rank(); ++d)
    if (!std::binary_search(updateWindowDims.begin(), updateWindowDims.end(), d))
      updateScatterDims.push_back(d);
  for (unsigned d = 0; d < indices.rank(); ++d)
    if (d != indexVectorDim)
      indexBatchDims.push_back(d);
  if (updateScatterDims.size() != indexBatchDims.size())
    fail("updates " + updates.shortString() + " has " + std::to_string(updateScatterDims.size()) +
         " scatter dimensions but indices " + indices.shortString() + " has " +
         std::to_string(indexBatchDims.size()) + " besides indexVectorDim");
  for (std::size_t i = 0; i < updateScatterDims.size(); ++i)
    if (updates.dim(updateScatterDims[i]) != indices.dim(indexBatchDims[i]))
      fail("scatter dimension " + std::to_string(updateScatterDims[i]) + " of updates " +
           updates.shortString() + " must match dimension " + std::to_string(indexBatchDims[i]) +
           " of indices " + indices.shortString());

  ScatterPlan plan;
  // Operand strides and window sizes per operand dimension.
  const std::size_t rank = operand.rank();
  std::vector<std::size_t> stride(rank, 1), windowSizeOf(rank, 1);
  for (std::size_t d = rank; d-- > 1;)
    stride[d - 1] = stride[d] * operand.dim(d);
  std::vector<std::size_t> windowOperandDims;
  for (unsigned d = 0; d < rank; ++d)
    if (!std::binary_search(insertWindowDims.begin(), insertWindowDims.end(), d))
      windowOperandDims.push_back(d);
  for (std::size_t i = 0; i < windowOperandDims.size(); ++i) {
    const std::size_t d = windowOperandDims[i], size = updates.dim(updateWindowDims[i]);
    if (size > operand.dim(d))
      fail("window dimension " + std::to_string(updateWindowDims[i]) + " of updates " +
           updates.shortString() + " is larger than dimension " + std::to_string(d) +
           " of operand " + operand.shortString());
    windowSizeOf[d] = size;
    plan.windowShape.push_back(size);
  }
  for (unsigned d : scatterDimsToOperandDims) {
    plan.startStride.push_back(static_cast<unsigned>(stride[d]));
    plan.maxStart.push_back(static_cast<int>(operand.dim(d) - windowSizeOf[d]));
  }
  plan.windowSize = 1;
  for (auto s : plan.windowShape)
    plan.windowSize *= s;
  plan.windows = 1;
  for (unsigned d : updateScatterDims)
    plan.windows *= updates.dim(d);
  // Operand offset of each window element, window dimensions row-major.
  plan.windowDelta.assign(plan.windowSize, 0);
  for (std::size_t j = 0; j < plan.windowSize; ++j) {
    std::size_t rest = j, delta = 0;
    for (std::size_t i = windowOperandDims.size(); i-- > 0;) {
      const std::size_t size = plan.windowShape[i];
      delta += (rest % size) * stride[windowOperandDims[i]];
      rest /= size;
    }
    plan.windowDelta[j] = static_cast<unsigned>(delta);
  }
  // Views: index vectors window-major, update windows [windows][windowSize].
  poplar::Tensor idx = implicitVector ? indices.expand({indices.rank()}) : indices;
  std::vector<unsigned> idxOrder = indexBatchDims;
  idxOrder.push_back(static_cast<unsigned>(implicitVector ? indices.rank() : indexVectorDim));
  plan.indexVectors = idx.dimShuffle(idxOrder).flatten();
  std::vector<unsigned> updOrder = updateScatterDims;
  updOrder.insert(updOrder.end(), updateWindowDimsIn.begin(), updateWindowDimsIn.end());
  plan.updateWindows = updates.dimShuffle(updOrder).reshape({plan.windows, plan.windowSize});
  return plan;
}

/// The constants describing the window geometry, on tile 0.
struct GeometryTensors {
  poplar::Tensor startStride, maxStart, windowDelta;
};

GeometryTensors addGeometry(poplar::Graph &graph, const ScatterPlan &plan,
                            const poplar::DebugContext &dc) {
  GeometryTensors g;
  g.startStride = graph.addConstant<unsigned>(poplar::UNSIGNED_INT, {plan.startStride.size()},
                                              plan.startStride.data(), {dc, "startStride"});
  g.maxStart = graph.addConstant<int>(poplar::INT, {plan.maxStart.size()}, plan.maxStart.data(),
                                      {dc, "maxStart"});
  g.windowDelta = graph.addConstant<unsigned>(poplar::UNSIGNED_INT, {plan.windowDelta.size()},
                                              plan.windowDelta.data(), {dc, "windowDelta"});
  for (auto &t : {g.startStride, g.maxStart, g.windowDelta})
    graph.setTileMapping(t, 0);
  return g;
}

/// A batch of one tile's operand regions, ascending, and their start positions.
struct RegionBatch {
  unsigned tile;
  std::vector<poplar::Tensor> regions;
  poplar::Tensor starts;
};

std::vector<RegionBatch> regionBatches(poplar::Graph &graph, const poplar::Tensor &operand,
                                       const poplar::DebugContext &dc) {
  std::vector<RegionBatch> batches;
  const poplar::Tensor flat = operand.flatten();
  auto runs = detail::contiguousRunsPerTile(graph, operand);
  for (unsigned tile = 0; tile < runs.size(); ++tile) {
    auto &tileRuns = runs[tile];
    std::sort(
        tileRuns.begin(), tileRuns.end(),
        [](const poplar::Interval &a, const poplar::Interval &b) { return a.begin() < b.begin(); });
    for (std::size_t first = 0; first < tileRuns.size(); first += kRegionsPerVertex) {
      const std::size_t last = std::min(tileRuns.size(), first + kRegionsPerVertex);
      RegionBatch b{tile, {}, {}};
      std::vector<unsigned> starts;
      for (std::size_t r = first; r < last; ++r) {
        b.regions.push_back(flat.slice(tileRuns[r]));
        starts.push_back(static_cast<unsigned>(tileRuns[r].begin()));
      }
      b.starts = graph.addConstant<unsigned>(poplar::UNSIGNED_INT, {starts.size()}, starts.data(),
                                             {dc, "regionStarts"});
      graph.setTileMapping(b.starts, tile);
      batches.push_back(std::move(b));
    }
  }
  return batches;
}

void connectGeometry(poplar::Graph &graph, poplar::VertexRef v, const RegionBatch &b,
                     const ScatterPlan &plan, const GeometryTensors &g,
                     const poplar::Tensor &firstWindow) {
  graph.connect(v["regions"], b.regions);
  graph.connect(v["regionStarts"], b.starts);
  graph.connect(v["indices"], plan.indexVectors);
  graph.connect(v["startStride"], g.startStride);
  graph.connect(v["maxStart"], g.maxStart);
  graph.connect(v["windowDelta"], g.windowDelta);
  graph.connect(v["firstWindow"], firstWindow.reshape({}));
  graph.setTileMapping(v, b.tile);
}

/// One compute set writing `updates` ([numWindows * windowSize]) for windows
/// [firstWindow, firstWindow + numWindows).
poplar::ComputeSet addScatterSet(poplar::Graph &graph, const std::vector<RegionBatch> &batches,
                                 const ScatterPlan &plan, const GeometryTensors &g,
                                 const poplar::Tensor &firstWindow, const poplar::Tensor &updates,
                                 std::size_t numWindows, const poplar::Type &indexType,
                                 const poplar::DebugContext &dc) {
  poplar::ComputeSet cs = graph.addComputeSet({dc, "Scatter"});
  const std::string vertexType =
      poputil::templateVertex("popops::ScatterRegions", updates.elementType(), indexType);
  for (const auto &b : batches) {
    auto v = graph.addVertex(cs, vertexType);
    connectGeometry(graph, v, b, plan, g, firstWindow);
    graph.connect(v["updates"], updates);
    graph.setInitialValue(v["numWindows"], static_cast<unsigned>(numWindows));
  }
  return cs;
}

} // namespace

void scatter(poplar::Graph &graph, const poplar::Tensor &operand, const poplar::Tensor &indices,
             const poplar::Tensor &updates, std::size_t indexVectorDim,
             std::vector<unsigned> updateWindowDims, std::vector<std::size_t> insertWindowDims,
             std::vector<unsigned> scatterDimsToOperandDims, poplar::program::Sequence &prog,
             const poplar::DebugContext &debugContext) {
  const ScatterPlan plan = planScatter(operand, indices, updates, indexVectorDim, updateWindowDims,
                                       insertWindowDims, scatterDimsToOperandDims);
  if (plan.windows == 0 || plan.windowSize == 0 || operand.numElements() == 0)
    return;
  const GeometryTensors g = addGeometry(graph, plan, debugContext);
  poplar::Tensor first = graph.addConstant(poplar::UNSIGNED_INT, {}, 0u, {debugContext, "first"});
  graph.setTileMapping(first, 0);
  const auto batches = regionBatches(graph, operand, debugContext);
  prog.add(poplar::program::Execute(addScatterSet(graph, batches, plan, g, first,
                                                  plan.updateWindows.flatten(), plan.windows,
                                                  indices.elementType(), debugContext),
                                    {debugContext, "Scatter"}));
}

void scatter(poplar::Graph &graph, const poplar::Tensor &operand, const poplar::Tensor &indices,
             const poplar::Tensor &updates, std::size_t indexVectorDim,
             std::vector<unsigned> updateWindowDims, std::vector<std::size_t> insertWindowDims,
             std::vector<unsigned> scatterDimsToOperandDims,
             UpdateComputationFunc &updateComputation, poplar::program::Sequence &prog,
             const poplar::DebugContext &debugContext) {
  const ScatterPlan plan = planScatter(operand, indices, updates, indexVectorDim, updateWindowDims,
                                       insertWindowDims, scatterDimsToOperandDims);
  const poplar::Type type = operand.elementType();
  if (type == poplar::UNSIGNED_INT)
    fail("an update computation needs a FLOAT, HALF or INT operand, got " + operand.shortString());
  if (!updateComputation)
    fail("updateComputation is empty");
  if (plan.windows == 0 || plan.windowSize == 0 || operand.numElements() == 0)
    return;
  const GeometryTensors g = addGeometry(graph, plan, debugContext);
  const auto batches = regionBatches(graph, operand, debugContext);
  // One row of current values per batch (zeros where the batch holds none), on its tile.
  poplar::Tensor partials =
      graph.addVariable(type, {batches.size(), plan.windowSize}, {debugContext, "partials"});
  for (std::size_t b = 0; b < batches.size(); ++b)
    graph.setTileMapping(partials[b], batches[b].tile);
  const poplar::Type indexType = indices.elementType();
  const std::string gatherType = poputil::templateVertex("popops::GatherRegions", type, indexType);

  auto body = [&](const poplar::Tensor &window) -> poplar::program::Program {
    poplar::program::Sequence pass;
    poplar::ComputeSet gatherSet = graph.addComputeSet({debugContext, "ScatterGather"});
    for (std::size_t b = 0; b < batches.size(); ++b) {
      auto v = graph.addVertex(gatherSet, gatherType);
      connectGeometry(graph, v, batches[b], plan, g, window);
      graph.connect(v["out"], partials[b]);
    }
    pass.add(poplar::program::Execute(gatherSet, {debugContext, "ScatterGather"}));
    poplar::Tensor current =
        reduce(graph, partials, type, {0}, Operation::ADD, pass, {debugContext, "current"})
            .reshape(plan.windowShape);
    poplar::Tensor update =
        dynamicSlice(graph, plan.updateWindows, window, {0}, {1}, pass, {debugContext, "update"})
            .reshape(plan.windowShape);
    poplar::Tensor combined = updateComputation(graph, current, update, pass);
    if (combined.numElements() != plan.windowSize || combined.elementType() != type)
      fail("updateComputation returned " + combined.shortString() + ", expected " +
           std::to_string(plan.windowSize) + " elements of " + type.toString());
    pass.add(poplar::program::Execute(addScatterSet(graph, batches, plan, g, window,
                                                    combined.flatten(), 1, indexType, debugContext),
                                      {debugContext, "Scatter"}));
    return pass;
  };
  prog.add(countedLoop(graph, plan.windows, body, {debugContext, "scatterLoop"}));
}

} // namespace popops
