#include "ReducePlan.hpp"

#include <algorithm>
#include <map>

#include "TileRegions.hpp"

namespace popops::detail {

namespace {

/// A piece of one contiguous run lying in one row of the 2-D view.
struct Segment {
  std::size_t row, colBegin, colEnd;
  std::size_t runId; ///< Which contiguous run it came from (pieces of one run are adjacent).
};

std::vector<Segment> splitIntoRows(const std::vector<poplar::Interval> &runs,
                                   std::size_t rowLength) {
  std::vector<Segment> out;
  for (std::size_t id = 0; id < runs.size(); ++id)
    for (std::size_t b = runs[id].begin(); b < runs[id].end();) {
      const std::size_t row = b / rowLength;
      const std::size_t e = std::min(runs[id].end(), (row + 1) * rowLength);
      out.push_back({row, b - row * rowLength, e - row * rowLength, id});
      b = e;
    }
  return out;
}

/// Inner view [O][R]: every row piece folds into one output (width 1).
std::vector<ReduceRegion> innerRegions(const std::vector<Segment> &segments, std::size_t rowLen) {
  std::map<std::size_t, std::vector<poplar::Interval>> byOutput;
  for (const auto &s : segments)
    byOutput[s.row].emplace_back(s.row * rowLen + s.colBegin, s.row * rowLen + s.colEnd);
  std::vector<ReduceRegion> out;
  for (auto &[o, runs] : byOutput) {
    std::sort(runs.begin(), runs.end(), [](const poplar::Interval &a, const poplar::Interval &b) {
      return a.begin() < b.begin();
    });
    out.push_back({o, 1, std::move(runs)});
  }
  return out;
}

/// Outer view [R][O]: cut the output columns at every piece boundary; each elementary column
/// range folds the rows covering it, in row order, merging rows that are adjacent in memory.
std::vector<ReduceRegion> outerRegions(std::vector<Segment> segments, std::size_t rowLen) {
  std::sort(segments.begin(), segments.end(), [](const Segment &a, const Segment &b) {
    return a.row != b.row ? a.row < b.row : a.colBegin < b.colBegin;
  });
  std::vector<std::size_t> cuts;
  for (const auto &s : segments) {
    cuts.push_back(s.colBegin);
    cuts.push_back(s.colEnd);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<ReduceRegion> out;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    const std::size_t a = cuts[k], b = cuts[k + 1];
    ReduceRegion region{a, b - a, {}};
    std::size_t lastRun = ~std::size_t(0);
    for (const auto &s : segments) {
      if (s.colBegin > a || s.colEnd < b)
        continue;
      const poplar::Interval piece(s.row * rowLen + a, s.row * rowLen + b);
      // A whole-row column range of consecutive rows of one run is one longer run.
      if (a == 0 && b == rowLen && !region.runs.empty() && lastRun == s.runId &&
          region.runs.back().end() == piece.begin())
        region.runs.back() = poplar::Interval(region.runs.back().begin(), piece.end());
      else
        region.runs.push_back(piece);
      lastRun = s.runId;
    }
    if (!region.runs.empty())
      out.push_back(std::move(region));
  }
  return out;
}

} // namespace

ReduceInputView orientInput(const poplar::Graph &graph, const poplar::Tensor &in,
                            const std::vector<std::size_t> &reduced) {
  const auto shape = in.shape();
  std::vector<unsigned> kept, red;
  std::size_t numOutputs = 1, numReduced = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (std::binary_search(reduced.begin(), reduced.end(), d)) {
      red.push_back(static_cast<unsigned>(d));
      numReduced *= shape[d];
    } else {
      kept.push_back(static_cast<unsigned>(d));
      numOutputs *= shape[d];
    }
  }
  auto permuted = [&](const std::vector<unsigned> &first, const std::vector<unsigned> &second) {
    std::vector<unsigned> perm = first;
    perm.insert(perm.end(), second.begin(), second.end());
    return (perm.empty() ? in : in.dimShuffle(perm)).flatten();
  };
  ReduceInputView inner{permuted(kept, red), true, numOutputs, numReduced};
  if (numOutputs == 1 || numReduced == 1 || in.numElements() == 0)
    return numReduced == 1 && numOutputs > 1
               ? ReduceInputView{permuted(red, kept), false, numOutputs, numReduced}
               : inner;
  ReduceInputView outer{permuted(red, kept), false, numOutputs, numReduced};
  const std::size_t innerRuns = inner.flat.getContiguousRegions().size();
  const std::size_t outerRuns = outer.flat.getContiguousRegions().size();
  (void)graph;
  return outerRuns < innerRuns ? outer : inner;
}

std::vector<std::vector<ReduceRegion>> planPartials(const poplar::Graph &graph,
                                                    const ReduceInputView &view) {
  const auto runs = contiguousRunsPerTile(graph, view.flat);
  const std::size_t rowLen = view.outputMajor ? view.numReduced : view.numOutputs;
  std::vector<std::vector<ReduceRegion>> out(runs.size());
  if (rowLen == 0)
    return out;
  for (std::size_t tile = 0; tile < runs.size(); ++tile) {
    auto segments = splitIntoRows(runs[tile], rowLen);
    out[tile] = view.outputMajor ? innerRegions(segments, rowLen)
                                 : outerRegions(std::move(segments), rowLen);
  }
  return out;
}

std::vector<std::vector<ReduceRegion>>
planFinal(const std::vector<TilePartials> &partials, const std::vector<std::size_t> &partialBase,
          const std::vector<std::vector<poplar::Interval>> &outRunsPerTile) {
  // Elementary output ranges: cut at every partial region and output run boundary.
  std::vector<std::size_t> cuts;
  for (const auto &tp : partials)
    for (const auto &r : tp.regions) {
      cuts.push_back(r.outBegin);
      cuts.push_back(r.outBegin + r.width);
    }
  struct OwnedRun {
    std::size_t begin, end;
    unsigned tile;
  };
  std::vector<OwnedRun> owned;
  for (unsigned tile = 0; tile < outRunsPerTile.size(); ++tile)
    for (const auto &iv : outRunsPerTile[tile]) {
      owned.push_back({iv.begin(), iv.end(), tile});
      cuts.push_back(iv.begin());
      cuts.push_back(iv.end());
    }
  std::sort(owned.begin(), owned.end(),
            [](const OwnedRun &a, const OwnedRun &b) { return a.begin < b.begin; });
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());

  // Each elementary range collects its partials in tile order.
  std::vector<std::vector<poplar::Interval>> sources(cuts.empty() ? 0 : cuts.size() - 1);
  for (std::size_t k = 0; k < partials.size(); ++k)
    for (std::size_t i = 0; i < partials[k].regions.size(); ++i) {
      const auto &r = partials[k].regions[i];
      const std::size_t base = partialBase[k] + partials[k].offsets[i];
      auto c = std::lower_bound(cuts.begin(), cuts.end(), r.outBegin) - cuts.begin();
      for (; static_cast<std::size_t>(c) + 1 < cuts.size() && cuts[c] < r.outBegin + r.width; ++c) {
        const std::size_t a = cuts[c] - r.outBegin, b = cuts[c + 1] - r.outBegin;
        sources[c].emplace_back(base + a, base + b);
      }
    }

  std::vector<std::vector<ReduceRegion>> out(outRunsPerTile.size());
  for (const auto &run : owned) {
    auto c = std::lower_bound(cuts.begin(), cuts.end(), run.begin) - cuts.begin();
    for (; static_cast<std::size_t>(c) + 1 < cuts.size() && cuts[c] < run.end; ++c)
      out[run.tile].push_back({cuts[c], cuts[c + 1] - cuts[c], sources[c]});
  }
  return out;
}

std::vector<std::pair<std::size_t, std::size_t>>
splitAmongWorkers(const std::vector<ReduceRegion> &regions, unsigned workers) {
  std::vector<std::size_t> elements(regions.size());
  std::size_t total = 0;
  for (std::size_t i = 0; i < regions.size(); ++i) {
    for (const auto &run : regions[i].runs)
      elements[i] += run.size();
    elements[i] += regions[i].width; // the cost of writing the outputs
    total += elements[i];
  }
  std::vector<std::pair<std::size_t, std::size_t>> groups;
  const std::size_t parts =
      std::max<std::size_t>(1, std::min<std::size_t>(workers, regions.size()));
  std::size_t begin = 0, done = 0;
  for (std::size_t i = 0; i < regions.size(); ++i) {
    done += elements[i];
    // Close a group once it reaches its share of the total (the last group takes the rest).
    if (groups.size() + 1 < parts && done * parts >= total * (groups.size() + 1)) {
      groups.emplace_back(begin, i + 1);
      begin = i + 1;
    }
  }
  if (begin < regions.size())
    groups.emplace_back(begin, regions.size());
  return groups;
}

} // namespace popops::detail
