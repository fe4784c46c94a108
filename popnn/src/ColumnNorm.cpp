#include "ColumnNorm.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace popnn::detail {
namespace {

/// One tile run [begin, end) of a flattened [rows][C] tensor and the columns [c0, c1) it
/// touches: the run's own columns when it stays within a row, else all of them.
struct ColumnRun {
  unsigned tile;
  std::size_t begin, end, c0, c1;
};

std::vector<ColumnRun> columnRuns(const poplar::Graph &graph, const poplar::Tensor &x) {
  const std::size_t c = x.dim(1);
  const auto mapping = graph.getTileMapping(x);
  std::vector<ColumnRun> runs;
  for (unsigned tile = 0; tile < mapping.size(); ++tile)
    for (const auto &interval : mapping[tile]) {
      const std::size_t begin = interval.begin(), end = interval.end();
      if (begin == end)
        continue;
      const std::size_t first = begin % c;
      if (first + (end - begin) <= c)
        runs.push_back({tile, begin, end, first, first + (end - begin)});
      else
        runs.push_back({tile, begin, end, 0, c});
    }
  return runs;
}

void setColumnFields(poplar::Graph &graph, poplar::VertexRef v, const ColumnRun &r, std::size_t c) {
  graph.setInitialValue(v["rowLength"], static_cast<unsigned>(c));
  graph.setInitialValue(v["firstColumn"], static_cast<unsigned>(r.begin % c));
  graph.setInitialValue(v["columnBegin"], static_cast<unsigned>(r.c0));
  graph.setTileMapping(v, r.tile);
}

} // namespace

std::pair<poplar::Tensor, poplar::Tensor>
columnNormalise(poplar::Graph &graph, const poplar::Tensor &x, const poplar::Tensor &mean,
                const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                const poplar::Tensor &beta, std::size_t segLength, poplar::program::Sequence &prog,
                const poplar::DebugContext &dc) {
  const std::size_t c = x.dim(1);
  const poplar::Tensor out = graph.clone(x, {dc, "out"});
  const poplar::Tensor whitened = graph.clone(x, {dc, "whitened"});
  const poplar::Tensor xf = x.flatten(), of = out.flatten(), wf = whitened.flatten();
  const poplar::Tensor mf = mean.flatten(), sf = invStdDev.flatten();
  poplar::ComputeSet cs = graph.addComputeSet({dc, "columnNormalise"});
  for (const ColumnRun &r : columnRuns(graph, out)) {
    const std::size_t s0 = r.begin / segLength, s1 = (r.end - 1) / segLength + 1;
    poplar::VertexRef v = graph.addVertex(cs, "popnn::RowNormaliseColumns<float>",
                                          {{"x", xf.slice(r.begin, r.end)},
                                           {"whitened", wf.slice(r.begin, r.end)},
                                           {"out", of.slice(r.begin, r.end)},
                                           {"mean", mf.slice(s0, s1)},
                                           {"invStdDev", sf.slice(s0, s1)},
                                           {"gamma", gamma.slice(r.c0, r.c1)},
                                           {"beta", beta.slice(r.c0, r.c1)}});
    graph.setInitialValue(v["segLength"], static_cast<unsigned>(segLength));
    graph.setInitialValue(v["offset"], static_cast<unsigned>(r.begin - s0 * segLength));
    setColumnFields(graph, v, r, c);
  }
  prog.add(poplar::program::Execute(cs, {dc, "columnNormalise"}));
  return {out, whitened};
}

poplar::Tensor columnScale(poplar::Graph &graph, const poplar::Tensor &x,
                           const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                           const poplar::DebugContext &dc) {
  const std::size_t c = x.dim(1);
  const poplar::Tensor out = graph.clone(x, {dc, "out"});
  const poplar::Tensor xf = x.flatten(), of = out.flatten();
  poplar::ComputeSet cs = graph.addComputeSet({dc, "columnScale"});
  for (const ColumnRun &r : columnRuns(graph, out)) {
    poplar::VertexRef v = graph.addVertex(cs, "popnn::ColumnScale<float>",
                                          {{"x", xf.slice(r.begin, r.end)},
                                           {"gamma", gamma.slice(r.c0, r.c1)},
                                           {"out", of.slice(r.begin, r.end)}});
    setColumnFields(graph, v, r, c);
  }
  prog.add(poplar::program::Execute(cs, {dc, "columnScale"}));
  return out;
}

StatSums columnSums(poplar::Graph &graph, const poplar::Tensor &x, const poplar::Tensor &y,
                    poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const std::size_t c = x.dim(1);
  const std::vector<ColumnRun> runs = columnRuns(graph, x);
  // Stage 1: run i's partials are c1 - c0 sums of x, then as many of x·y, from partialAt[i].
  std::vector<std::size_t> partialAt;
  std::size_t numPartials = 0;
  for (const ColumnRun &r : runs) {
    partialAt.push_back(numPartials);
    numPartials += 2 * (r.c1 - r.c0);
  }
  const poplar::Tensor partials = graph.addVariable(poplar::FLOAT, {numPartials}, {dc, "partials"});
  const poplar::Tensor xf = x.flatten(), yf = y.flatten();
  poplar::ComputeSet partialCs = graph.addComputeSet({dc, "columnSums"});
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const ColumnRun &r = runs[i];
    const poplar::Tensor out = partials.slice(partialAt[i], partialAt[i] + 2 * (r.c1 - r.c0));
    graph.setTileMapping(out, r.tile);
    poplar::VertexRef v = graph.addVertex(
        partialCs, "popnn::ColumnSumsPartial<float>",
        {{"x", xf.slice(r.begin, r.end)}, {"y", yf.slice(r.begin, r.end)}, {"sums", out}});
    setColumnFields(graph, v, r, c);
  }
  prog.add(poplar::program::Execute(partialCs, {dc, "columnSums"}));

  // Stage 2: chunks of columns that every run either covers whole or not at all, no wider than
  // an even share of the tiles; one vertex per chunk, the chunks spread over the tiles.
  const std::size_t numTiles = graph.getTarget().getNumTiles();
  const std::size_t maxWidth = std::max<std::size_t>(32, (c + numTiles - 1) / numTiles);
  std::vector<std::size_t> bounds{0, c};
  for (const ColumnRun &r : runs) {
    bounds.push_back(r.c0);
    bounds.push_back(r.c1);
  }
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  std::vector<std::pair<std::size_t, std::size_t>> chunks;
  for (std::size_t b = 0; b + 1 < bounds.size(); ++b)
    for (std::size_t c0 = bounds[b]; c0 < bounds[b + 1]; c0 += maxWidth)
      chunks.push_back({c0, std::min(bounds[b + 1], c0 + maxWidth)});
  poplar::Tensor sumX = graph.addVariable(poplar::FLOAT, {c}, {dc, "sumX"});
  poplar::Tensor sumXY = graph.addVariable(poplar::FLOAT, {c}, {dc, "sumXY"});
  poplar::ComputeSet finishCs = graph.addComputeSet({dc, "sumColumnPartials"});
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    const auto [c0, c1] = chunks[k];
    std::vector<poplar::Tensor> listX, listXY;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const ColumnRun &r = runs[i];
      if (r.c0 > c0 || r.c1 < c1)
        continue;
      const std::size_t at = partialAt[i] + (c0 - r.c0), width = r.c1 - r.c0;
      listX.push_back(partials.slice(at, at + (c1 - c0)));
      listXY.push_back(partials.slice(at + width, at + width + (c1 - c0)));
    }
    const auto tile = static_cast<unsigned>(k * numTiles / chunks.size());
    graph.setTileMapping(sumX.slice(c0, c1), tile);
    graph.setTileMapping(sumXY.slice(c0, c1), tile);
    poplar::VertexRef v = graph.addVertex(finishCs, "popnn::ColumnSumsFinish",
                                          {{"partialX", listX},
                                           {"partialXY", listXY},
                                           {"sumX", sumX.slice(c0, c1)},
                                           {"sumXY", sumXY.slice(c0, c1)}});
    graph.setTileMapping(v, tile);
  }
  prog.add(poplar::program::Execute(finishCs, {dc, "sumColumnPartials"}));
  return {sumX, sumXY};
}

} // namespace popnn::detail
