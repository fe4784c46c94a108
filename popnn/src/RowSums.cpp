#include "RowSums.hpp"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

namespace popnn::detail {
namespace {

/// One row's piece of one tile run: where its pair of partial sums sits, on which tile.
struct Piece {
  std::size_t row, begin, partial;
  unsigned tile;
};

/// Stage 1: one vertex per tile run of x writes a (Σx, Σx·y) pair per row it touches into a
/// partials tensor kept on the vertex's tile. Returns the partials and, per statistic, its pieces
/// in the fixed order stage 2 adds them in.
std::pair<poplar::Tensor, std::vector<std::vector<Piece>>>
partialSums(poplar::Graph &graph, const poplar::Tensor &x, const poplar::Tensor &y,
            const RowStats &stats, poplar::program::Sequence &prog,
            const poplar::DebugContext &dc) {
  const std::size_t rowLength = x.dim(1);
  const poplar::Tensor xf = x.flatten();
  const bool withY = y.valid();
  const poplar::Tensor yf = withY ? y.flatten() : poplar::Tensor();
  const auto mapping = graph.getTileMapping(x);
  struct Run {
    unsigned tile;
    std::size_t begin, end, r0, r1, partial;
  };
  std::vector<Run> runs;
  std::size_t numPartials = 0;
  for (unsigned tile = 0; tile < mapping.size(); ++tile)
    for (const auto &interval : mapping[tile]) {
      const std::size_t begin = interval.begin(), end = interval.end();
      if (begin == end)
        continue;
      const std::size_t r0 = begin / rowLength, r1 = (end - 1) / rowLength + 1;
      runs.push_back({tile, begin, end, r0, r1, numPartials});
      numPartials += 2 * (r1 - r0);
    }
  const poplar::Tensor partials = graph.addVariable(poplar::FLOAT, {numPartials}, {dc, "partials"});
  poplar::ComputeSet cs = graph.addComputeSet({dc, withY ? "rowSums" : "rowSquareSums"});
  std::vector<std::vector<Piece>> pieces(stats.numStats);
  for (const Run &r : runs) {
    const poplar::Tensor out = partials.slice(r.partial, r.partial + 2 * (r.r1 - r.r0));
    graph.setTileMapping(out, r.tile);
    const poplar::Tensor xs = xf.slice(r.begin, r.end);
    poplar::VertexRef v =
        withY ? graph.addVertex(cs, "popnn::RowSums<float>",
                                {{"x", xs}, {"y", yf.slice(r.begin, r.end)}, {"sums", out}})
              : graph.addVertex(cs, "popnn::RowSquareSums<float>", {{"x", xs}, {"sums", out}});
    graph.setInitialValue(v["rowLength"], static_cast<unsigned>(rowLength));
    graph.setInitialValue(v["offset"], static_cast<unsigned>(r.begin - r.r0 * rowLength));
    graph.setTileMapping(v, r.tile);
    for (std::size_t row = r.r0; row < r.r1; ++row)
      pieces[stats.statOf(row)].push_back(
          {row, std::max(r.begin, row * rowLength), r.partial + 2 * (row - r.r0), r.tile});
  }
  prog.add(poplar::program::Execute(cs, {dc, "rowSums"}));
  for (auto &list : pieces)
    std::sort(list.begin(), list.end(), [](const Piece &a, const Piece &b) {
      return std::tie(a.row, a.begin) < std::tie(b.row, b.begin);
    });
  return {partials, std::move(pieces)};
}

/// Stage 2: two [numStats] outputs; statistic s lives on the tile of its first partial, and one
/// `vertexType` vertex per run of consecutive statistics on the same tile reads their partial
/// lists. `configure` sets the vertex's own fields.
std::pair<poplar::Tensor, poplar::Tensor>
finishSums(poplar::Graph &graph, const poplar::Tensor &partials,
           const std::vector<std::vector<Piece>> &pieces, const char *vertexType, const char *first,
           const char *second, const std::function<void(poplar::VertexRef)> &configure,
           poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const std::size_t numStats = pieces.size();
  poplar::Tensor a = graph.addVariable(poplar::FLOAT, {numStats}, {dc, first});
  poplar::Tensor b = graph.addVariable(poplar::FLOAT, {numStats}, {dc, second});
  poplar::ComputeSet cs = graph.addComputeSet({dc, "sumPartials"});
  auto tileOf = [&](std::size_t s) { return pieces[s].empty() ? 0u : pieces[s].front().tile; };
  for (std::size_t s0 = 0; s0 < numStats;) {
    const unsigned tile = tileOf(s0);
    std::size_t s1 = s0 + 1;
    while (s1 < numStats && tileOf(s1) == tile)
      ++s1;
    std::vector<poplar::Tensor> lists;
    for (std::size_t s = s0; s < s1; ++s) {
      std::vector<poplar::Tensor> parts;
      for (const Piece &p : pieces[s])
        parts.push_back(partials.slice(p.partial, p.partial + 2));
      lists.push_back(parts.empty() ? partials.slice(0, 0) : poplar::concat(parts));
    }
    graph.setTileMapping(a.slice(s0, s1), tile);
    graph.setTileMapping(b.slice(s0, s1), tile);
    poplar::VertexRef v = graph.addVertex(
        cs, vertexType, {{"partials", lists}, {first, a.slice(s0, s1)}, {second, b.slice(s0, s1)}});
    if (configure)
      configure(v);
    graph.setTileMapping(v, tile);
    s0 = s1;
  }
  prog.add(poplar::program::Execute(cs, {dc, "sumPartials"}));
  return {a, b};
}

} // namespace

StatSums rowSums(poplar::Graph &graph, const poplar::Tensor &x, const poplar::Tensor &y,
                 const RowStats &stats, poplar::program::Sequence &prog,
                 const poplar::DebugContext &dc) {
  const auto [partials, pieces] = partialSums(graph, x, y, stats, prog, dc);
  const auto [sumX, sumXY] =
      finishSums(graph, partials, pieces, "popnn::SumPartialPairs", "sumX", "sumXY", {}, prog, dc);
  return {sumX, sumXY};
}

std::pair<poplar::Tensor, poplar::Tensor> rowMoments(poplar::Graph &graph, const poplar::Tensor &x,
                                                     const RowStats &stats, float invN, float eps,
                                                     float correction,
                                                     poplar::program::Sequence &prog,
                                                     const poplar::DebugContext &dc) {
  const auto [partials, pieces] = partialSums(graph, x, {}, stats, prog, dc);
  return finishSums(
      graph, partials, pieces, "popnn::MomentsFromPartials", "mean", "invStdDev",
      [&](poplar::VertexRef v) {
        graph.setInitialValue(v["invN"], invN);
        graph.setInitialValue(v["correction"], correction);
        graph.setInitialValue(v["eps"], eps);
      },
      prog, dc);
}

} // namespace popnn::detail
