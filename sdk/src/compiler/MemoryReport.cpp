// Compiler stage, memory report: bytes per tile by kind, and what overflows.
#include "compiler/MemoryReport.hpp"

#include <algorithm>
#include <map>
#include <sstream>

namespace poplar::compiler {

namespace {
constexpr std::uint64_t kArenaAlign = 64;
} // namespace

std::string outOfMemoryReport(const CompilerContext &ctx) {
  const std::uint64_t limit = ctx.graph.target.getBytesPerTile();
  unsigned worst = 0, overflowing = 0;
  std::uint64_t worstBytes = 0;
  for (unsigned t = 0; t < ctx.allocator.numTiles(); ++t) {
    const std::uint64_t used = ctx.allocator.top(t);
    if (used > limit) {
      ++overflowing;
      if (used > worstBytes) {
        worstBytes = used;
        worst = t;
      }
    }
  }
  if (overflowing == 0)
    return {};
  // The tile's users in allocation order (variables, vertex state, exchange areas); variables and
  // vertex state are named here rather than when they were allocated.
  using Use = TileAllocator::Use;
  struct Entry {
    std::uint64_t bytes;
    Use use;
    std::size_t count;
    const std::string *what = nullptr; ///< Exchange areas.
    unsigned index = 0;                ///< Variables: the variable. Vertex state: the compute set.
    std::uint64_t begin = 0, end = 0;  ///< Variables: the elements on the tile.
  };
  std::vector<Entry> users;
  for (const auto &v : ctx.allocator.variables(worst))
    users.push_back({v.bytes, Use::Variable, 1, nullptr, v.variable, v.begin, v.end});
  const auto &vertexState = ctx.allocator.vertexState(worst);
  for (const auto &v : vertexState)
    users.push_back({v.bytes, Use::VertexState, v.vertices, nullptr, v.computeSet});
  for (const auto &u : ctx.allocator.users(worst))
    users.push_back({u.bytes, u.use, 1, &u.what});
  auto computeSetName = [&](unsigned cs) -> const std::string & {
    return ctx.graph.computeSets[cs].name;
  };
  std::stable_sort(users.begin(), users.end(),
                   [](const auto &a, const auto &b) { return a.bytes > b.bytes; });
  std::ostringstream msg;
  msg << "Out of memory on tile " << worst << ": " << worstBytes << " bytes needed, " << limit
      << " available";
  if (overflowing > 1)
    msg << " (" << overflowing - 1 << " other tiles also overflow)";
  msg << ". Largest users on tile " << worst << ":";
  for (std::size_t i = 0; i < users.size() && i < 5; ++i) {
    msg << (i ? ";" : "") << ' ';
    const auto &u = users[i];
    if (u.what) {
      msg << *u.what;
    } else if (u.use == Use::VertexState) {
      msg << "vertex state in compute set '" << computeSetName(u.index) << "'";
    } else {
      const auto &var = ctx.graph.variables[u.index];
      msg << "variable '" << (var.name.empty() ? "var" + std::to_string(u.index) : var.name) << "'";
      if (u.begin != 0 || u.end != var.numElements)
        msg << " [" << u.begin << ", " << u.end << ")";
    }
    msg << " (" << u.bytes << " bytes)";
  }
  // A tile can also fill up with thousands of small users none of which makes the list above:
  // say how much each kind adds up to, and how many there are.
  std::uint64_t bytes[3] = {0, 0, 0};
  std::size_t counts[3] = {0, 0, 0};
  for (const auto &u : users) {
    const auto kind = static_cast<std::size_t>(u.use);
    bytes[kind] += u.bytes;
    counts[kind] += u.count;
  }
  msg << ". In all on tile " << worst << ": " << counts[std::size_t(Use::Variable)]
      << " variable regions (" << bytes[std::size_t(Use::Variable)] << " bytes), "
      << counts[std::size_t(Use::VertexState)] << " vertices' state ("
      << bytes[std::size_t(Use::VertexState)] << " bytes), exchange buffers ("
      << bytes[std::size_t(Use::Exchange)] << " bytes)";
  // Vertex state adds up per compute set: name the compute sets that put most on the tile.
  std::map<std::string, std::pair<std::uint64_t, std::size_t>> perComputeSet;
  for (const auto &v : vertexState) {
    auto &entry = perComputeSet[computeSetName(v.computeSet)];
    entry.first += v.bytes;
    entry.second += v.vertices;
  }
  std::vector<std::pair<std::string, std::pair<std::uint64_t, std::size_t>>> ranked(
      perComputeSet.begin(), perComputeSet.end());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto &a, const auto &b) { return a.second.first > b.second.first; });
  for (std::size_t i = 0; i < ranked.size() && i < 3; ++i)
    msg << (i ? "; " : "; most vertex state from compute set ") << "'" << ranked[i].first << "' ("
        << ranked[i].second.second << " vertices, " << ranked[i].second.first << " bytes)";
  msg << ". Spread the largest tensors over more tiles, or set debug.allowOutOfMemory to "
         "compile anyway.";
  return msg.str();
}

void recordMemory(CompilerContext &ctx) {
  auto &r = ctx.result;
  const unsigned n = ctx.allocator.numTiles();
  r.memory.assign(n, {});
  r.tileBytes.assign(n, 0);
  for (unsigned t = 0; t < n; ++t) {
    for (const auto &u : ctx.allocator.users(t))
      (u.use == TileAllocator::Use::Exchange ? r.memory[t].exchange : r.memory[t].variables) +=
          u.bytes;
    for (const auto &v : ctx.allocator.variables(t))
      r.memory[t].variables += v.bytes;
    for (const auto &v : ctx.allocator.vertexState(t))
      r.memory[t].vertexState += v.bytes;
    // Variables that share bytes are counted once.
    const std::uint64_t used =
        r.memory[t].variables + r.memory[t].vertexState + r.memory[t].exchange;
    const std::uint64_t top = ctx.allocator.top(t);
    if (used > top)
      r.memory[t].variables -= used - top;
    r.memory[t].padding = used > top ? 0 : top - used;
    r.tileBytes[t] = alignUp(ctx.allocator.top(t), kArenaAlign);
  }
}

} // namespace poplar::compiler
