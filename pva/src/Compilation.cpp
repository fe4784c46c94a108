// The compilation side of a report: version, target, graph counts, tiles and programs, built
// once from the graph profile by openReport.
#include <pva/pva.hpp>

#include <regex>

#include "ReportData.hpp"

namespace pva {

namespace tp = tessera::profile;

namespace detail {

Version Access::version(const std::string &text) {
  Version v;
  v.text_ = text;
  // "Tessera 0.1.0 (hash)": the numbers are the first "a.b.c" in the string.
  static const std::regex kNumbers(R"((\d{1,9})\.(\d{1,9})\.(\d{1,9}))");
  std::smatch m;
  if (std::regex_search(text, m, kNumbers)) {
    v.major_ = static_cast<unsigned>(std::stoul(m[1].str()));
    v.minor_ = static_cast<unsigned>(std::stoul(m[2].str()));
    v.point_ = static_cast<unsigned>(std::stoul(m[3].str()));
  }
  return v;
}

Target Access::target(const tp::TargetInfo &info) {
  Target t;
  t.info_ = info;
  return t;
}

Graph Access::graph(const tp::GraphProfile &g) {
  Graph out;
  out.numComputeSets_ = g.computeSets.size();
  for (const auto &cs : g.computeSets)
    out.numVertices_ += cs.vertices;
  out.numVars_ = g.numVariables;
  return out;
}

MemorySize Access::memorySize(std::uint64_t includingGaps, std::uint64_t excludingGaps) {
  MemorySize m;
  m.including_ = includingGaps;
  m.excluding_ = excludingGaps;
  return m;
}

Tile Access::tile(unsigned number, const tp::TileMemory &bytes) {
  Tile t;
  t.number_ = number;
  t.memory_.bytes_ = bytes;
  return t;
}

ComputeSet Access::computeSet(const tp::ComputeSet &cs) {
  ComputeSet out;
  out.name_ = cs.name;
  for (const auto &vt : cs.vertexTypes) {
    Vertex v;
    v.type_.name_ = vt.type;
    v.count_ = vt.count;
    out.vertices_.push_back(std::move(v));
  }
  out.numVertices_ = cs.vertices;
  out.numTiles_ = cs.tiles;
  return out;
}

std::shared_ptr<Program> Access::program(const tp::GraphProfile &g, std::size_t index) {
  const tp::Step &step = g.steps[index];
  std::shared_ptr<Program> p;
  if (step.kind == "Execute") {
    auto e = std::make_shared<OnTileExecuteProgram>();
    e->computeSet_ = computeSet(g.computeSets[static_cast<std::size_t>(step.computeSet)]);
    e->type_ = Program::Type::OnTileExecute;
    p = std::move(e);
  } else if (step.kind == "Copy") {
    p = std::make_shared<DoExchangeProgram>();
    p->type_ = Program::Type::DoExchange;
  } else if (step.kind == "StreamIn" || step.kind == "StreamOut") {
    auto s = std::make_shared<StreamCopyMidProgram>();
    s->fromHost_ = step.kind == "StreamIn";
    s->type_ = Program::Type::StreamCopyMid;
    p = std::move(s);
  } else {
    return nullptr; // control flow: jumps, loops, calls, prints
  }
  p->name_ = step.name;
  p->id_ = index;
  p->cycles_ = step.estimatedCycles;
  p->exchangeBytes_ = step.exchangeBytes;
  return p;
}

} // namespace detail

MemorySize TileMemory::total() const {
  return detail::Access::memorySize(bytes_.total(), bytes_.total() - bytes_.padding);
}

void OnTileExecuteProgram::accept(ProgramVisitor &visitor) const {
  visitor.visitOnTileExecute(*this);
}
void DoExchangeProgram::accept(ProgramVisitor &visitor) const { visitor.visitDoExchange(*this); }
void StreamCopyMidProgram::accept(ProgramVisitor &visitor) const {
  visitor.visitStreamCopyMid(*this);
}

const Target &Compilation::target() const { return data_->target; }
const Graph &Compilation::graph() const { return data_->graphCounts; }
const std::vector<Tile> &Compilation::tiles() const { return data_->tiles; }
const std::vector<std::shared_ptr<Program>> &Compilation::programs() const {
  return data_->programs;
}

const Version &Report::poplarVersion() const { return data_->version; }

} // namespace pva
