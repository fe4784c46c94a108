// Text views of profiles: the summary, the top compute sets, the tile memory table, diffs.
#include <tessera/profile/ProfileReader.hpp>

#include <algorithm>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>

#include <poputil/Describe.hpp>

namespace tessera::profile {

namespace {

struct Spread {
  std::uint64_t max = 0, min = 0, total = 0;
  unsigned maxTile = 0;
  double mean = 0;
};

template <class Get> Spread spread(const std::vector<TileMemory> &tiles, Get get) {
  Spread s;
  if (tiles.empty())
    return s;
  s.min = get(tiles[0]);
  for (unsigned t = 0; t < tiles.size(); ++t) {
    const std::uint64_t v = get(tiles[t]);
    s.total += v;
    s.min = std::min(s.min, v);
    if (v > s.max) {
      s.max = v;
      s.maxTile = t;
    }
  }
  s.mean = static_cast<double>(s.total) / static_cast<double>(tiles.size());
  return s;
}

void printSpread(std::ostream &out, const char *label, const Spread &s) {
  out << "  " << std::left << std::setw(16) << label << std::right << std::setw(14) << s.total
      << " B total; per tile max " << s.max << " (tile " << s.maxTile << "), min " << s.min
      << ", mean " << std::fixed << std::setprecision(1) << s.mean << '\n';
  out.unsetf(std::ios::floatfield);
}

/// Per compute set index: (executions, measured host ns), from the execution profile.
std::vector<std::pair<std::uint64_t, std::uint64_t>> computeSetRuns(const GraphProfile &g,
                                                                    const ExecutionProfile *e) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> runs(g.computeSets.size());
  if (!e)
    return runs;
  for (const auto &s : e->steps)
    if (s.step < g.steps.size() && g.steps[s.step].computeSet >= 0) {
      auto &r = runs[static_cast<std::size_t>(g.steps[s.step].computeSet)];
      r.first += s.runs;
      r.second += s.hostNs;
    }
  return runs;
}

std::string us(std::uint64_t ns) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << static_cast<double>(ns) / 1000.0 << " us";
  return s.str();
}

} // namespace

void printSummary(std::ostream &out, const GraphProfile &g, const ExecutionProfile *e,
                  const SummaryOptions &options) {
  const auto &t = g.target;
  out << "Target:\n  " << t.arch << ", " << t.numIPUs << " IPU(s), " << t.numTiles << " tiles, "
      << t.workerContexts << " worker contexts, " << t.bytesPerTile << " bytes per tile, "
      << t.clockHz / 1e9 << " GHz, " << t.exchangeBytesPerCycle << " exchange bytes/cycle, "
      << t.syncCycles << " sync cycles\n";
  if (!g.error.empty())
    out << "Compilation failed: " << g.error << '\n';

  out << "Memory:\n";
  const Spread total = spread(g.tiles, [](const TileMemory &m) { return m.total(); });
  printSpread(out, "total", total);
  printSpread(out, "variables", spread(g.tiles, [](const TileMemory &m) { return m.variables; }));
  printSpread(out, "vertex state",
              spread(g.tiles, [](const TileMemory &m) { return m.vertexState; }));
  printSpread(out, "exchange buffers",
              spread(g.tiles, [](const TileMemory &m) { return m.exchange; }));
  printSpread(out, "padding", spread(g.tiles, [](const TileMemory &m) { return m.padding; }));
  unsigned over = 0;
  for (const auto &m : g.tiles)
    over += m.total() > t.bytesPerTile;
  if (over)
    out << "  OUT OF MEMORY: " << over << " tile(s) exceed " << t.bytesPerTile << " bytes\n";

  out << "Largest variables:\n";
  for (std::size_t i = 0; i < g.variables.size() && i < 10; ++i) {
    const auto &v = g.variables[i];
    out << "  " << std::left << std::setw(32) << (v.name.empty() ? "(unnamed)" : v.name)
        << std::right << std::setw(12) << v.bytes << " B  " << v.type
        << poputil::shapeString(v.shape);
    out << " on " << v.tiles << " tile(s)" << (v.constant ? " (constant)" : "") << '\n';
  }

  const auto runs = computeSetRuns(g, e);
  std::uint64_t exchangeBytes = 0;
  out << "Compute sets (estimated cycles per execution: compute + exchange + sync):\n";
  for (std::size_t i = 0; i < g.computeSets.size(); ++i) {
    const auto &c = g.computeSets[i];
    out << "  " << std::left << std::setw(32) << c.name << std::right << std::setw(12)
        << c.totalCycles() << " cycles (" << c.computeCycles << " + " << c.exchangeCycles << " + "
        << c.syncCycles << "), " << c.vertices << " vertices on " << c.tiles << " tiles, "
        << c.exchangeBytes << " exchange bytes";
    if (e)
      out << ", ran " << runs[i].first << "x"
          << (e->instrumented ? ", host " + us(runs[i].second) : std::string());
    out << '\n';
  }
  for (const auto &s : g.steps)
    exchangeBytes += s.exchangeBytes;
  out << "Exchange:\n  " << exchangeBytes << " bytes over all steps (each counted once)\n";
  if (e)
    out << "Execution:\n  " << e->runs << " run(s), " << e->totalEstimatedCycles
        << " estimated cycles ("
        << static_cast<double>(e->totalEstimatedCycles) / (t.clockHz > 0 ? t.clockHz : 1) * 1e6
        << " us on the IPU)" << (e->instrumented ? ", host " + us(e->totalHostNs) : std::string())
        << '\n';

  if (options.showExecutionSteps) {
    out << "Execution steps:\n";
    std::map<unsigned, const StepRun *> ran;
    if (e)
      for (const auto &s : e->steps)
        ran[s.step] = &s;
    for (std::size_t i = 0; i < g.steps.size(); ++i) {
      const auto &s = g.steps[i];
      out << "  " << std::setw(5) << i << "  " << std::left << std::setw(10) << s.kind
          << std::setw(28) << s.name << std::right << std::setw(12) << s.estimatedCycles
          << " cycles";
      if (auto it = ran.find(static_cast<unsigned>(i)); it != ran.end())
        out << ", ran " << it->second->runs << "x"
            << (e->instrumented ? ", host " + us(it->second->hostNs) : std::string());
      out << '\n';
    }
  }
}

void printTopComputeSets(std::ostream &out, const GraphProfile &g, const ExecutionProfile *e,
                         std::size_t n) {
  const auto runs = computeSetRuns(g, e);
  std::vector<std::pair<std::uint64_t, std::size_t>> order;
  for (std::size_t i = 0; i < g.computeSets.size(); ++i)
    order.push_back({g.computeSets[i].totalCycles() * (e ? runs[i].first : 1), i});
  std::stable_sort(order.begin(), order.end(),
                   [](const auto &a, const auto &b) { return a.first > b.first; });
  out << "Top compute sets by estimated cycles" << (e ? " (all executions)" : " (per execution)")
      << ":\n";
  for (std::size_t k = 0; k < order.size() && k < n; ++k) {
    const auto &c = g.computeSets[order[k].second];
    out << "  " << std::setw(3) << k + 1 << ". " << std::left << std::setw(32) << c.name
        << std::right << std::setw(14) << order[k].first << " cycles, slowest tile "
        << c.slowestTile << '\n';
  }
}

void printTileMemoryTable(std::ostream &out, const GraphProfile &g) {
  out << std::setw(6) << "tile" << std::setw(12) << "variables" << std::setw(14) << "vertexState"
      << std::setw(12) << "exchange" << std::setw(10) << "padding" << std::setw(12) << "total"
      << '\n';
  for (std::size_t t = 0; t < g.tiles.size(); ++t) {
    const auto &m = g.tiles[t];
    if (m.total() == 0)
      continue;
    out << std::setw(6) << t << std::setw(12) << m.variables << std::setw(14) << m.vertexState
        << std::setw(12) << m.exchange << std::setw(10) << m.padding << std::setw(12) << m.total()
        << '\n';
  }
}

void printDiff(std::ostream &out, const GraphProfile &a, const GraphProfile &b) {
  auto line = [&](const std::string &what, std::uint64_t x, std::uint64_t y) {
    const auto delta = static_cast<long long>(y) - static_cast<long long>(x);
    out << "  " << std::left << std::setw(36) << what << std::right << std::setw(14) << x << " -> "
        << std::setw(14) << y << "  (" << (delta >= 0 ? "+" : "") << delta << ")\n";
  };
  auto sum = [](const GraphProfile &g, auto get) {
    std::uint64_t s = 0;
    for (const auto &m : g.tiles)
      s += get(m);
    return s;
  };
  out << "Memory (bytes, all tiles):\n";
  line("total", sum(a, [](const TileMemory &m) { return m.total(); }),
       sum(b, [](const TileMemory &m) { return m.total(); }));
  line("variables", sum(a, [](const TileMemory &m) { return m.variables; }),
       sum(b, [](const TileMemory &m) { return m.variables; }));
  line("vertex state", sum(a, [](const TileMemory &m) { return m.vertexState; }),
       sum(b, [](const TileMemory &m) { return m.vertexState; }));
  line("exchange buffers", sum(a, [](const TileMemory &m) { return m.exchange; }),
       sum(b, [](const TileMemory &m) { return m.exchange; }));
  out << "Compute sets (estimated cycles; exchange bytes):\n";
  std::map<std::string, std::pair<const ComputeSet *, const ComputeSet *>> byName;
  for (const auto &c : a.computeSets)
    byName[c.name].first = &c;
  for (const auto &c : b.computeSets)
    byName[c.name].second = &c;
  for (const auto &[name, pair] : byName) {
    const auto *x = pair.first;
    const auto *y = pair.second;
    if (!x || !y) {
      out << "  " << name
          << (x ? ": only in the first profile\n" : ": only in the second profile\n");
      continue;
    }
    line(name + " cycles", x->totalCycles(), y->totalCycles());
    line(name + " exchange bytes", x->exchangeBytes, y->exchangeBytes);
  }
}

} // namespace tessera::profile
