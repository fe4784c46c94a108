#include "TileRegions.hpp"

#include <algorithm>

namespace popops::detail {

std::vector<std::vector<poplar::Interval>> contiguousRunsPerTile(const poplar::Graph &graph,
                                                                 const poplar::Tensor &t) {
  const auto mapping = graph.getTileMapping(t); // throws if incomplete
  const auto runs = t.getContiguousRegions();   // sorted, covering [0, numElements)
  std::vector<std::vector<poplar::Interval>> out(mapping.size());
  for (std::size_t tile = 0; tile < mapping.size(); ++tile) {
    for (const auto &iv : mapping[tile]) {
      // Cut the tile interval at every contiguous-region boundary inside it.
      auto it =
          std::upper_bound(runs.begin(), runs.end(), iv.begin(),
                           [](std::size_t x, const poplar::Interval &r) { return x < r.begin(); });
      if (it != runs.begin())
        --it;
      for (std::size_t b = iv.begin(); b < iv.end(); ++it) {
        const std::size_t e = std::min(iv.end(), it->end());
        if (e > b)
          out[tile].emplace_back(b, e);
        b = std::max(b, e);
      }
    }
  }
  return out;
}

std::vector<std::vector<std::vector<poplar::Interval>>>
memoryOrderedRunsPerTile(const poplar::Graph &graph, const poplar::Tensor &t) {
  const auto runs = contiguousRunsPerTile(graph, t);
  const auto varRegions = t.getVarRegions(); // in view order, one per contiguous region
  std::vector<std::size_t> starts(varRegions.size());
  for (std::size_t i = 0, at = 0; i < varRegions.size(); ++i) {
    starts[i] = at;
    at += varRegions[i].interval.size();
  }
  struct Placed {
    poplar::Interval run;
    unsigned var;
    std::size_t offset; ///< Of run.begin() within the variable.
  };
  std::vector<std::vector<std::vector<poplar::Interval>>> out(runs.size());
  std::vector<Placed> placed;
  for (std::size_t tile = 0; tile < runs.size(); ++tile) {
    placed.clear();
    for (const auto &run : runs[tile]) {
      // Each run lies inside one variable region: the last one starting at or before it.
      const std::size_t r =
          std::upper_bound(starts.begin(), starts.end(), run.begin()) - starts.begin() - 1;
      placed.push_back(
          {run, varRegions[r].var.id, varRegions[r].interval.begin() + (run.begin() - starts[r])});
    }
    std::stable_sort(placed.begin(), placed.end(), [](const Placed &a, const Placed &b) {
      return a.var != b.var ? a.var < b.var : a.offset < b.offset;
    });
    for (std::size_t i = 0; i < placed.size(); ++i) {
      const bool continues = i > 0 && placed[i].var == placed[i - 1].var &&
                             placed[i - 1].offset + placed[i - 1].run.size() == placed[i].offset;
      if (!continues)
        out[tile].emplace_back();
      out[tile].back().push_back(placed[i].run);
    }
  }
  return out;
}

std::pair<std::size_t, std::size_t>
countGroups(const std::vector<std::vector<std::vector<poplar::Interval>>> &groups) {
  std::size_t n = 0, tiles = 0;
  for (const auto &t : groups) {
    n += t.size();
    tiles += !t.empty();
  }
  return {n, tiles};
}

} // namespace popops::detail
