// Text views of profiles: the summary, the top compute sets, the tile memory table, diffs.
#include <tessera/profile/ProfileReader.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>

#include <poputil/Describe.hpp>

namespace tessera::profile {

namespace {

/// Poplar's number style: thousands separated by commas ("1,472").
std::string grouped(std::uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return out;
}

/// One decimal, thousands grouped ("1,330.0").
std::string grouped1(double v) {
  const auto tenths = static_cast<std::uint64_t>(std::llround(v * 10));
  return grouped(tenths / 10) + "." + std::to_string(tenths % 10);
}

/// A byte count the way Poplar's summary shows memory sizes: "624.0 kB", "897.0 MB".
std::string binarySize(double bytes) {
  if (bytes >= 1024.0 * 1024)
    return grouped1(bytes / (1024.0 * 1024)) + " MB";
  return grouped1(bytes / 1024.0) + " kB";
}

/// "  Label:" padded so the values of one block line up, as in Poplar's summary.
void field(std::ostream &out, int indent, const std::string &label, int width,
           const std::string &value) {
  out << std::string(static_cast<std::size_t>(indent), ' ') << std::left << std::setw(width)
      << label + ":" << std::right << value << '\n';
}

/// Graph-section counts: the label, then the value right-aligned to a fixed column.
void count(std::ostream &out, const std::string &label, std::uint64_t value) {
  const std::string text = label + ":";
  out << "  " << text
      << std::setw(static_cast<int>(std::max<std::size_t>(36, text.size() + 1) - text.size()))
      << grouped(value) << '\n';
}

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

/// A "By Data Type" line: Poplar's "Label:  N B", then Tessera's per-tile spread.
void printSpread(std::ostream &out, const char *label, const Spread &s) {
  out << "          " << std::left << std::setw(22) << std::string(label) + ":" << std::right
      << std::setw(14) << grouped(s.total) << " B  (per tile max " << grouped(s.max) << " on tile "
      << s.maxTile << ", min " << grouped(s.min) << ", mean " << grouped1(s.mean) << ")\n";
}

std::uint64_t withoutGaps(const TileMemory &m) { return m.total() - m.padding; }

/// Poplar's per-tile histogram of memory excluding gaps, in power-of-two KB buckets (at most
/// 32 of them), 40 stars for the fullest bucket.
void printTileHistogram(std::ostream &out, const std::vector<TileMemory> &tiles) {
  if (tiles.empty())
    return;
  std::uint64_t lo = withoutGaps(tiles[0]), hi = lo;
  for (const auto &m : tiles) {
    lo = std::min(lo, withoutGaps(m));
    hi = std::max(hi, withoutGaps(m));
  }
  std::uint64_t bucketKB = 1;
  while ((hi / 1024 / bucketKB) - (lo / 1024 / bucketKB) + 1 > 32)
    bucketKB *= 2;
  const std::uint64_t first = lo / 1024 / bucketKB, last = hi / 1024 / bucketKB;
  std::vector<std::uint64_t> counts(last - first + 1);
  for (const auto &m : tiles)
    ++counts[withoutGaps(m) / 1024 / bucketKB - first];
  const std::uint64_t most = *std::max_element(counts.begin(), counts.end());
  out << "    Range (KB) Histogram (Excluding Gaps)               Count (tiles)\n";
  for (std::size_t b = 0; b < counts.size(); ++b) {
    const std::uint64_t from = (first + b) * bucketKB;
    const std::size_t stars =
        counts[b] ? std::max<std::size_t>(1, static_cast<std::size_t>(40 * counts[b] / most)) : 0;
    std::ostringstream range;
    range << std::setw(4) << from << " - " << std::setw(3) << from + bucketKB;
    out << "    " << std::setw(12) << range.str() << ' ' << std::left << std::setw(40)
        << std::string(stars, '*') << std::right << std::setw(8) << grouped(counts[b]) << '\n';
  }
}

/// "Maximum (…): 49,184 (48.0 K) on tile 0".
void printMaximum(std::ostream &out, const char *which, const std::vector<TileMemory> &tiles,
                  std::uint64_t (*get)(const TileMemory &)) {
  std::uint64_t best = 0;
  unsigned tile = 0;
  for (unsigned t = 0; t < tiles.size(); ++t)
    if (get(tiles[t]) > best) {
      best = get(tiles[t]);
      tile = t;
    }
  out << "    Maximum (" << which << "): " << grouped(best) << " ("
      << grouped1(static_cast<double>(best) / 1024.0) << " K) on tile " << tile << '\n';
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

void printTarget(std::ostream &out, const TargetInfo &t) {
  const double bytesPerIPU = static_cast<double>(t.bytesPerTile) * t.tilesPerIPU;
  out << "Target:\n";
  field(out, 2, "Number of IPUs", 24, grouped(t.numIPUs));
  field(out, 2, "Tiles per IPU", 24, grouped(t.tilesPerIPU));
  field(out, 2, "Total Tiles", 24, grouped(t.numTiles));
  field(out, 2, "Memory Per-Tile", 24, binarySize(static_cast<double>(t.bytesPerTile)));
  field(out, 2, "Total Memory", 24, binarySize(bytesPerIPU * t.numIPUs));
  field(out, 2, "Clock Speed (approx)", 24, grouped1(t.clockHz / 1e6) + " MHz");
  // Tessera's cost-model parameters, after Poplar's lines.
  field(out, 2, "Architecture", 24, t.arch);
  field(out, 2, "Worker Contexts", 24, std::to_string(t.workerContexts));
  field(out, 2, "Exchange Bytes/Cycle", 24, std::to_string(t.exchangeBytesPerCycle));
  field(out, 2, "Sync Cycles", 24, std::to_string(t.syncCycles));
}

void printGraph(std::ostream &out, const GraphProfile &g, const ExecutionProfile *e) {
  std::uint64_t vertices = 0, exchangeBytes = 0;
  for (const auto &c : g.computeSets)
    vertices += c.vertices;
  for (const auto &s : g.steps)
    exchangeBytes += s.exchangeBytes;
  out << "\nGraph:\n";
  count(out, "Number of vertices", vertices);
  count(out, "Number of compute sets", g.computeSets.size());
  count(out, "Number of steps", g.steps.size());
  // Tessera's estimates per compute set and the exchange total, inside Poplar's section.
  const auto runs = computeSetRuns(g, e);
  out << "  Compute sets (estimated cycles per execution: compute + exchange + sync):\n";
  for (std::size_t i = 0; i < g.computeSets.size(); ++i) {
    const auto &c = g.computeSets[i];
    out << "    " << std::left << std::setw(32) << c.name << std::right << std::setw(12)
        << c.totalCycles() << " cycles (" << c.computeCycles << " + " << c.exchangeCycles << " + "
        << c.syncCycles << "), " << c.vertices << " vertices on " << c.tiles << " tiles, "
        << c.exchangeBytes << " exchange bytes";
    if (e)
      out << ", ran " << runs[i].first << "x"
          << (e->instrumented ? ", host " + us(runs[i].second) : std::string());
    out << '\n';
  }
  out << "  Exchange: " << exchangeBytes << " bytes over all steps (each counted once)\n";
}

void printMemory(std::ostream &out, const GraphProfile &g) {
  const auto &tiles = g.tiles;
  const Spread total = spread(tiles, [](const TileMemory &m) { return m.total(); });
  const Spread gaps = spread(tiles, [](const TileMemory &m) { return m.padding; });
  out << "\nMemory Usage:\n  Total:\n";
  field(out, 4, "Including Gaps", 20, grouped(total.total) + " B");
  out << "    Excluding Gaps:\n";
  field(out, 6, "Total", 18, grouped(total.total - gaps.total) + " B");
  out << "      By Data Type:\n";
  printSpread(out, "Variables", spread(tiles, [](const TileMemory &m) { return m.variables; }));
  printSpread(out, "Vertex State",
              spread(tiles, [](const TileMemory &m) { return m.vertexState; }));
  printSpread(out, "Exchange Buffers",
              spread(tiles, [](const TileMemory &m) { return m.exchange; }));
  out << "      Gaps (alignment padding): " << grouped(gaps.total) << " B\n";
  out << "\n  By Tile (Excluding Gaps):\n";
  printTileHistogram(out, tiles);
  out << '\n';
  printMaximum(out, "Including Gaps", tiles, [](const TileMemory &m) { return m.total(); });
  printMaximum(out, "Excluding Gaps", tiles, withoutGaps);
  unsigned over = 0;
  for (const auto &m : tiles)
    over += m.total() > g.target.bytesPerTile;
  out << "    " << over << " tile(s) out of memory\n";
  if (over)
    out << "    OUT OF MEMORY: " << over << " tile(s) exceed " << g.target.bytesPerTile
        << " bytes\n";
  out << "\n  Largest Variables:\n";
  for (std::size_t i = 0; i < g.variables.size() && i < 10; ++i) {
    const auto &v = g.variables[i];
    out << "    " << std::left << std::setw(32) << (v.name.empty() ? "(unnamed)" : v.name)
        << std::right << std::setw(12) << grouped(v.bytes) << " B  " << v.type
        << poputil::shapeString(v.shape) << " on " << v.tiles << " tile(s)"
        << (v.constant ? " (constant)" : "") << '\n';
  }
}

void printExecution(std::ostream &out, const GraphProfile &g, const ExecutionProfile *e,
                    const SummaryOptions &options) {
  if (!e && !options.showExecutionSteps)
    return;
  out << "\nExecution:\n";
  if (e) {
    const double clock = g.target.clockHz > 0 ? g.target.clockHz : 1;
    out << "\n  Total cycles:" << std::string(41, ' ') << grouped(e->totalEstimatedCycles)
        << " (approx " << grouped1(static_cast<double>(e->totalEstimatedCycles) / clock * 1e6)
        << " microseconds)\n";
    out << "  Runs: " << e->runs << " (cycles are the cost model's estimates"
        << (e->instrumented ? "; measured host time " + us(e->totalHostNs) : std::string())
        << ")\n";
  }
  if (!options.showExecutionSteps)
    return;
  out << "\n  Execution steps:\n";
  std::map<unsigned, const StepRun *> ran;
  if (e)
    for (const auto &s : e->steps)
      ran[s.step] = &s;
  for (std::size_t i = 0; i < g.steps.size(); ++i) {
    const auto &s = g.steps[i];
    out << "    " << std::setw(5) << i << "  " << std::left << std::setw(10) << s.kind
        << std::setw(28) << s.name << std::right << std::setw(12) << s.estimatedCycles << " cycles";
    if (auto it = ran.find(static_cast<unsigned>(i)); it != ran.end())
      out << ", ran " << it->second->runs << "x"
          << (e->instrumented ? ", host " + us(it->second->hostNs) : std::string());
    out << '\n';
  }
}

} // namespace

// Poplar's summary has the sections "Target:", "Graph:", "Memory Usage:" and "Execution:" in
// that order, with "Label:   value" lines and comma-grouped numbers, so scripts written for its
// output find the same headings here. Tessera's extra detail sits inside those sections.
void printSummary(std::ostream &out, const GraphProfile &g, const ExecutionProfile *e,
                  const SummaryOptions &options) {
  printTarget(out, g.target);
  if (!g.error.empty())
    out << "  Compilation failed: " << g.error << '\n';
  printGraph(out, g, e);
  printMemory(out, g);
  printExecution(out, g, e, options);
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
