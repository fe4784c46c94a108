#include "engine/TileByTileRuns.hpp"

#include <map>

namespace poplar::engine {

TileByTileRuns buildTileByTileRuns(const compiler::CompiledGraph &plan) {
  TileByTileRuns result;
  result.stepRun.assign(plan.steps.size(), {0, 0});
  for (std::size_t i = 0; i < plan.steps.size();) {
    const auto &s = plan.steps[i];
    // Steps are visited from the left, so a step with count > 1 here starts a maximal run.
    if (s.kind != compiler::StepKind::Execute || s.count <= 1) {
      ++i;
      continue;
    }
    const std::size_t length = s.count;
    std::map<unsigned, std::vector<TileByTileRun::Entry>> perTile;
    for (std::size_t p = 0; p < length; ++p) {
      result.stepRun[i + p] = {result.runs.size(), p};
      const auto &cs = plan.computeSets[plan.steps[i + p].index];
      for (std::size_t t = 0; t < cs.tiles.size(); ++t)
        perTile[cs.tiles[t].tile].push_back({p, t});
    }
    TileByTileRun run;
    for (auto &[tile, entries] : perTile) {
      run.tiles.push_back(tile);
      run.entryBegin.push_back(run.entries.size());
      run.entries.insert(run.entries.end(), entries.begin(), entries.end());
    }
    run.entryBegin.push_back(run.entries.size());
    result.runs.push_back(std::move(run));
    i += length;
  }
  return result;
}

} // namespace poplar::engine
