// Graph::getSortedContiguousRegions: a tensor's elements grouped by where they lie in memory.
//
// "Contiguous in memory" is decided from the graph, before any layout exists: consecutive
// elements of one variable on one tile, which the memory layout always places at consecutive
// addresses. Pieces of the tensor that reach the same variable elements (aliases) are first
// cut at each other's boundaries, so any two pieces either cover the same elements or none in
// common; the first in tensor order is the one kept.
#include <poplar/Graph.hpp>

#include <algorithm>

#include "core/GraphChecks.hpp"
#include "core/GraphData.hpp"
#include "core/TensorData.hpp"

namespace poplar {

namespace {

/// Variable elements [varBegin, varEnd) on one tile, reached at tensor index tensorBegin.
struct Piece {
  unsigned var;
  std::size_t varBegin, varEnd;
  unsigned tile;
  std::size_t tensorBegin;
};

/// Cuts each piece at every boundary of the others on the same variable.
std::vector<Piece> cutAtAliasBoundaries(std::vector<Piece> pieces) {
  std::sort(pieces.begin(), pieces.end(), [](const Piece &a, const Piece &b) {
    return a.var != b.var ? a.var < b.var : a.varBegin < b.varBegin;
  });
  bool overlaps = false;
  std::size_t reach = 0;
  for (std::size_t i = 0; i < pieces.size() && !overlaps; ++i) {
    if (i && pieces[i].var != pieces[i - 1].var)
      reach = 0;
    overlaps = pieces[i].varBegin < reach;
    reach = std::max(reach, pieces[i].varEnd);
  }
  if (!overlaps)
    return pieces;
  std::vector<Piece> out;
  for (std::size_t first = 0; first < pieces.size();) {
    std::size_t last = first;
    while (last < pieces.size() && pieces[last].var == pieces[first].var)
      ++last;
    std::vector<std::size_t> cuts;
    for (std::size_t i = first; i < last; ++i) {
      cuts.push_back(pieces[i].varBegin);
      cuts.push_back(pieces[i].varEnd);
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    for (std::size_t i = first; i < last; ++i) {
      Piece p = pieces[i];
      auto c = std::upper_bound(cuts.begin(), cuts.end(), p.varBegin);
      for (; c != cuts.end() && *c < p.varEnd; ++c) {
        Piece head = p;
        head.varEnd = *c;
        out.push_back(head);
        p.tensorBegin += *c - p.varBegin;
        p.varBegin = *c;
      }
      out.push_back(p);
    }
    first = last;
  }
  return out;
}

} // namespace

std::vector<std::vector<Interval>>
Graph::getSortedContiguousRegions(const Tensor &t, ArrayRef<Interval> regions,
                                  bool removeAliasedIntervals,
                                  std::vector<std::size_t> *aliases) const {
  core::requireSameGraph(*data_, t, "getSortedContiguousRegions");
  const auto &d = t.data();
  core::RegionIndex index(d);
  std::vector<Piece> pieces;
  for (const auto &iv : regions) {
    if (iv.begin() > iv.end() || iv.end() > d.numElements)
      throw index_error("getSortedContiguousRegions of " + core::describe(t) + ": interval [" +
                        std::to_string(iv.begin()) + ", " + std::to_string(iv.end()) +
                        ") is outside its " + std::to_string(d.numElements) + " elements");
    core::RegionList strided;
    index.append(strided, iv.begin(), iv.end());
    const core::RegionList runs = core::unitRuns(strided);
    std::size_t at = iv.begin();
    for (const auto &r : runs) {
      // Split the run where its elements change tile (unmapped elements count as one tile).
      std::size_t pos = r.begin;
      auto emit = [&](std::size_t b, std::size_t e, unsigned tile) {
        if (b < e)
          pieces.push_back({r.var, b, e, tile, at + (b - r.begin)});
      };
      data_->variables[r.var].mapping.forEachOverlap(r.begin, r.next(),
                                                     [&](const core::TileIntervalMap::Entry &e) {
                                                       emit(pos, e.begin, core::kNoTile);
                                                       emit(e.begin, e.end, e.tile);
                                                       pos = e.end;
                                                     });
      emit(pos, r.next(), core::kNoTile);
      at += r.size();
    }
  }
  pieces = cutAtAliasBoundaries(std::move(pieces));
  // Memory order; among pieces over the same elements, tensor order (the first is kept).
  std::sort(pieces.begin(), pieces.end(), [](const Piece &a, const Piece &b) {
    if (a.var != b.var)
      return a.var < b.var;
    if (a.varBegin != b.varBegin)
      return a.varBegin < b.varBegin;
    return a.tensorBegin < b.tensorBegin;
  });

  std::vector<std::vector<Interval>> out;
  std::vector<std::size_t> aliasOf; // per flattened output interval
  std::vector<Interval> pendingAliases;
  std::vector<std::size_t> pendingAliasOf;
  auto flushAliases = [&] {
    for (std::size_t i = 0; i < pendingAliases.size(); ++i) {
      out.push_back({pendingAliases[i]});
      aliasOf.push_back(pendingAliasOf[i]);
    }
    pendingAliases.clear();
    pendingAliasOf.clear();
  };
  const Piece *prev = nullptr; // last kept piece
  bool prevHasAliases = false;
  for (std::size_t i = 0; i < pieces.size();) {
    const Piece &p = pieces[i];
    std::size_t j = i + 1;
    while (j < pieces.size() && pieces[j].var == p.var && pieces[j].varBegin == p.varBegin)
      ++j;
    const bool hasAliases = j > i + 1 && !removeAliasedIntervals;
    const bool memoryContinues =
        prev && prev->var == p.var && prev->varEnd == p.varBegin && prev->tile == p.tile;
    if (!memoryContinues) {
      flushAliases();
      out.emplace_back();
    }
    auto &seq = out.back();
    const bool extend =
        memoryContinues && !hasAliases && !prevHasAliases && seq.back().end() == p.tensorBegin;
    if (extend) {
      seq.back() = Interval(seq.back().begin(), p.tensorBegin + (p.varEnd - p.varBegin));
    } else {
      seq.emplace_back(p.tensorBegin, p.tensorBegin + (p.varEnd - p.varBegin));
      aliasOf.push_back(p.tensorBegin);
    }
    if (hasAliases)
      for (std::size_t k = i + 1; k < j; ++k) {
        const Piece &a = pieces[k];
        pendingAliases.emplace_back(a.tensorBegin, a.tensorBegin + (a.varEnd - a.varBegin));
        pendingAliasOf.push_back(p.tensorBegin);
      }
    prev = &p;
    prevHasAliases = hasAliases;
    i = j;
  }
  flushAliases();
  if (aliases)
    *aliases = std::move(aliasOf);
  return out;
}

} // namespace poplar
