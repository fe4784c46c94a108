// poputil::TensorUseTracker (declared in poputil/TileMapping.hpp): which tiles use which
// variable elements, and a tile mapping that follows the uses.
#include <poputil/TileMapping.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include <poputil/Util.hpp>
#include <poputil/exceptions.hpp>

namespace poputil {

using poplar::Interval;

/// Per variable id, the uses as (interval, tile); after resolve() each element has one use.
class TensorUseTrackerState {
public:
  explicit TensorUseTrackerState(unsigned numTiles) : numTiles(numTiles) {}
  unsigned numTiles;
  std::map<unsigned, std::vector<std::pair<Interval, unsigned>>> uses;
};

namespace {

/// A run of consecutive elements of one variable and the tiles (ascending) that use them all.
struct UseRun {
  Interval elements;
  std::vector<unsigned> tiles;
};

/// The uses of one variable as runs with the same users, in element order (unused gaps left
/// out).
std::vector<UseRun> runsOf(const std::vector<std::pair<Interval, unsigned>> &uses) {
  std::vector<std::pair<std::size_t, std::pair<int, unsigned>>> events; // (at, (+1/-1, tile))
  for (const auto &[iv, tile] : uses)
    if (iv.size() != 0) {
      events.push_back({iv.begin(), {+1, tile}});
      events.push_back({iv.end(), {-1, tile}});
    }
  std::sort(events.begin(), events.end());
  std::map<unsigned, unsigned> active; // tile -> number of open uses (uses may overlap)
  std::vector<UseRun> runs;
  for (std::size_t i = 0; i < events.size();) {
    const std::size_t at = events[i].first;
    for (; i < events.size() && events[i].first == at; ++i) {
      const unsigned tile = events[i].second.second;
      if (events[i].second.first > 0)
        ++active[tile];
      else if (--active[tile] == 0)
        active.erase(tile);
    }
    if (i == events.size() || active.empty())
      continue;
    std::vector<unsigned> tiles;
    for (const auto &entry : active)
      tiles.push_back(entry.first);
    const Interval segment(at, events[i].first);
    if (!runs.empty() && runs.back().elements.end() == at && runs.back().tiles == tiles)
      runs.back().elements = Interval(runs.back().elements.begin(), segment.end());
    else
      runs.push_back({segment, std::move(tiles)});
  }
  return runs;
}

/// Gives each unused gap of a variable of `size` elements the users of the run before it (the
/// first run's users for a gap at the start).
void extendToWholeVariable(std::vector<UseRun> &runs, std::size_t size) {
  if (runs.empty())
    return;
  std::vector<UseRun> out;
  std::size_t at = 0;
  for (auto &run : runs) {
    if (run.elements.begin() > at) {
      const auto &users = out.empty() ? run.tiles : out.back().tiles;
      out.push_back({Interval(at, run.elements.begin()), users});
    }
    at = run.elements.end();
    out.push_back(std::move(run));
  }
  if (at < size)
    out.push_back({Interval(at, size), out.back().tiles});
  runs = std::move(out);
}

bool isSubset(const std::vector<unsigned> &small, const std::vector<unsigned> &big) {
  return std::includes(big.begin(), big.end(), small.begin(), small.end());
}

} // namespace

TensorUseTracker::TensorUseTracker(unsigned numTiles)
    : st(std::make_unique<TensorUseTrackerState>(numTiles)) {}
TensorUseTracker::TensorUseTracker(const TensorUseTracker &other)
    : st(std::make_unique<TensorUseTrackerState>(*other.st)) {}
TensorUseTracker::TensorUseTracker(TensorUseTracker &&other)
    : st(std::make_unique<TensorUseTrackerState>(other.st->numTiles)) {
  std::swap(st, other.st);
}
TensorUseTracker &TensorUseTracker::operator=(const TensorUseTracker &other) {
  if (this != &other)
    *st = *other.st;
  return *this;
}
TensorUseTracker &TensorUseTracker::operator=(TensorUseTracker &&other) {
  if (this != &other) {
    *st = std::move(*other.st);
    other.st->uses.clear();
  }
  return *this;
}
TensorUseTracker::~TensorUseTracker() = default;

void TensorUseTracker::add(const poplar::Graph &, unsigned tile, const poplar::Tensor &t) {
  if (tile >= st->numTiles)
    throw poplibs_error("poputil::TensorUseTracker::add: tile " + std::to_string(tile) +
                        " is out of range for a tracker of " + std::to_string(st->numTiles) +
                        " tiles");
  for (const auto &r : t.getVarRegions())
    st->uses[r.var.id].emplace_back(r.interval, tile);
}

void TensorUseTracker::add(TensorUseTracker other) {
  if (other.st->numTiles != st->numTiles)
    throw poplibs_error("poputil::TensorUseTracker::add: cannot merge a tracker of " +
                        std::to_string(other.st->numTiles) + " tiles into one of " +
                        std::to_string(st->numTiles));
  for (auto &[var, list] : other.st->uses) {
    auto &mine = st->uses[var];
    mine.insert(mine.end(), list.begin(), list.end());
  }
}

void TensorUseTracker::resolve(const poplar::Graph &graph, unsigned grainSize,
                               unsigned minElementsPerTile, bool extendPartialUsage,
                               MappingMethod mappingMethod) {
  if (grainSize == 0)
    throw poplibs_error("poputil::TensorUseTracker::resolve: grainSize must be at least 1");
  for (auto &[var, list] : st->uses) {
    auto runs = runsOf(list);
    if (extendPartialUsage)
      extendToWholeVariable(runs, graph.getVariable(poplar::VariableRef{var}).numElements());
    std::vector<std::pair<Interval, unsigned>> decided;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const auto &run = runs[i];
      if (mappingMethod == MappingMethod::OptimizeHaloRegions && run.tiles.size() > 1) {
        // A halo: next to a run used by only some of these tiles, it goes whole to that run's
        // lowest tile.
        const UseRun *neighbour = nullptr;
        for (std::size_t j : {i - 1, i + 1})
          if (j < runs.size() && runs[j].elements.end() >= run.elements.begin() &&
              runs[j].elements.begin() <= run.elements.end() &&
              runs[j].tiles.size() < run.tiles.size() && isSubset(runs[j].tiles, run.tiles)) {
            neighbour = &runs[j];
            break;
          }
        if (neighbour) {
          decided.emplace_back(run.elements, neighbour->tiles.front());
          continue;
        }
      }
      const auto parts = splitRegions({run.elements}, grainSize,
                                      static_cast<unsigned>(run.tiles.size()), minElementsPerTile);
      for (std::size_t p = 0; p < parts.size(); ++p)
        for (const auto &iv : parts[p])
          decided.emplace_back(iv, run.tiles[p]);
    }
    list = std::move(decided);
  }
}

void TensorUseTracker::mapTensorsByUse(poplar::Graph &graph, unsigned grainSize,
                                       unsigned minElementsPerTile, bool extendPartialUsage,
                                       MappingMethod mappingMethod) {
  resolve(graph, grainSize, minElementsPerTile, extendPartialUsage, mappingMethod);
  for (const auto &[var, list] : st->uses) {
    const poplar::Tensor whole = graph.getVariable(poplar::VariableRef{var});
    for (const auto &[iv, tile] : list)
      graph.setTileMapping(whole.slice(iv.begin(), iv.end()), tile);
  }
}

bool TensorUseTracker::empty() const { return st->uses.empty(); }

} // namespace poputil
