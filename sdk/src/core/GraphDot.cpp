// Graph::outputVertexGraph and Graph::outputComputeGraph: the graph as Graphviz dot text.
#include <poplar/Graph.hpp>

#include <map>
#include <ostream>
#include <set>

#include <tessera/VertexType.hpp>

#include "core/GraphData.hpp"
#include "core/ProgramNode.hpp"
#include "core/TensorData.hpp"

namespace poplar {

namespace {

/// `s` as a dot string literal.
std::string dotQuoted(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

const char *kindName(core::ProgramNode::Kind k) {
  using K = core::ProgramNode::Kind;
  switch (k) {
  case K::Sequence:
    return "Sequence";
  case K::Execute:
    return "Execute";
  case K::Copy:
    return "Copy";
  case K::StreamToDevice:
    return "Copy (host to device)";
  case K::StreamFromDevice:
    return "Copy (device to host)";
  case K::Repeat:
    return "Repeat";
  case K::RepeatWhile:
    return "RepeatWhile";
  case K::If:
    return "If";
  case K::Switch:
    return "Switch";
  case K::Call:
    return "Call";
  case K::Print:
    return "PrintTensor";
  case K::WriteUndef:
    return "WriteUndef";
  case K::Sync:
    return "Sync";
  case K::Abort:
    return "Abort";
  case K::AbortOnCondition:
    return "AbortOnCondition";
  case K::CrossReplica:
    return "CrossReplica";
  case K::CycleCount:
    return "cycleCount";
  case K::CycleStamp:
    return "cycleStamp";
  case K::FloatMode:
    return "setFloatingPointBehaviour";
  case K::RemoteToDevice:
    return "Copy (remote buffer to device)";
  case K::RemoteFromDevice:
    return "Copy (device to remote buffer)";
  }
  return "Program";
}

/// Walks programs (and the functions they call) once each, in order.
class ProgramWalk {
public:
  explicit ProgramWalk(const core::GraphData &g) : g_(g) {}
  /// Compute sets executed, by id.
  std::set<unsigned> computeSets;
  /// Nodes in the order first met, and edges parent → child (with the child's position).
  std::vector<const core::ProgramNode *> nodes;
  struct Edge {
    std::size_t from, to;
    std::size_t position;
  };
  std::vector<Edge> edges;

  std::size_t visit(const program::Program &p) {
    const core::ProgramNode *n = p.node().get();
    if (!n)
      return npos;
    if (auto it = ids_.find(n); it != ids_.end())
      return it->second;
    const std::size_t id = nodes.size();
    ids_[n] = id;
    nodes.push_back(n);
    if (n->kind == core::ProgramNode::Kind::Execute && n->computeSet.graph() == &g_)
      computeSets.insert(n->computeSet.getId());
    std::size_t position = 0;
    for (const auto &child : n->children) {
      const std::size_t c = visit(child);
      if (c != npos)
        edges.push_back({id, c, position});
      ++position;
    }
    if (n->kind == core::ProgramNode::Kind::Call && n->function.graph() == &g_ &&
        n->function.getId() < g_.functions.size()) {
      const std::size_t c = visit(g_.functions[n->function.getId()]);
      if (c != npos)
        edges.push_back({id, c, 0});
    }
    return id;
  }
  static constexpr std::size_t npos = ~std::size_t(0);

private:
  const core::GraphData &g_;
  std::map<const core::ProgramNode *, std::size_t> ids_;
};

std::string variableLabel(const core::GraphData &g, unsigned var) {
  const auto &v = g.variables[var];
  std::string shape = "{";
  for (std::size_t i = 0; i < v.shape.size(); ++i) {
    if (i)
      shape += ',';
    shape += std::to_string(v.shape[i]);
  }
  return (v.name.empty() ? "var" + std::to_string(var) : v.name) + "\n" + v.type.toString() +
         shape + "}" + (v.isConstant ? "\nconstant" : "");
}

/// The variables each field of vertex `v` touches, with the field's direction.
template <class Fn> void forEachConnection(const core::VertexData &v, Fn &&fn) {
  for (std::size_t f = 0; f < v.fields.size() && f < v.type->fields.size(); ++f) {
    const auto &info = v.type->fields[f];
    std::set<unsigned> vars;
    for (const auto &t : v.fields[f].tensors)
      if (t.valid())
        for (const auto &r : t.data().regions)
          vars.insert(r.var);
    for (unsigned var : vars)
      fn(info, var);
  }
}

} // namespace

void Graph::outputVertexGraph(std::ostream &os, ArrayRef<program::Program> progs) const {
  const auto &g = *data_;
  ProgramWalk walk(g);
  for (const auto &p : progs)
    walk.visit(p);
  const bool all = progs.size() == 0;
  os << "digraph vertexgraph {\n";
  std::set<unsigned> vars;
  for (unsigned id = 0; id < g.vertices.size(); ++id) {
    const auto &v = g.vertices[id];
    if (!all && !walk.computeSets.count(v.computeSet))
      continue;
    std::string label = v.type->name + "\ncompute set: " + g.computeSets[v.computeSet].name;
    label += v.tile == core::kNoTile ? std::string("\nunmapped")
                                     : "\ntile " + std::to_string(v.tile - tileBase_);
    os << "  v" << id << " [shape=box, label=" << dotQuoted(label) << "];\n";
    forEachConnection(v, [&](const tessera::FieldInfo &f, unsigned var) {
      vars.insert(var);
      const std::string edgeLabel = " [label=" + dotQuoted(f.name) + "];\n";
      if (f.direction != tessera::FieldDirection::Out)
        os << "  var" << var << " -> v" << id << edgeLabel;
      if (f.direction == tessera::FieldDirection::Out ||
          f.direction == tessera::FieldDirection::InOut)
        os << "  v" << id << " -> var" << var << edgeLabel;
    });
  }
  for (unsigned var : vars)
    os << "  var" << var << " [shape=ellipse, label=" << dotQuoted(variableLabel(g, var)) << "];\n";
  os << "}\n";
}

void Graph::outputComputeGraph(std::ostream &os, ArrayRef<program::Program> progs) const {
  const auto &g = *data_;
  ProgramWalk walk(g);
  for (const auto &p : progs)
    walk.visit(p);
  const bool all = progs.size() == 0;
  os << "digraph computegraph {\n";
  std::set<unsigned> vars;
  for (unsigned cs = 0; cs < g.computeSets.size(); ++cs) {
    if (!all && !walk.computeSets.count(cs))
      continue;
    const auto &c = g.computeSets[cs];
    os << "  cs" << cs << " [shape=box, label="
       << dotQuoted(c.name + "\n" + std::to_string(c.vertices.size()) + " vertices") << "];\n";
    std::set<unsigned> reads, writes;
    for (unsigned id : c.vertices)
      forEachConnection(g.vertices[id], [&](const tessera::FieldInfo &f, unsigned var) {
        if (f.direction != tessera::FieldDirection::Out)
          reads.insert(var);
        if (f.direction == tessera::FieldDirection::Out ||
            f.direction == tessera::FieldDirection::InOut)
          writes.insert(var);
      });
    for (unsigned var : reads)
      os << "  var" << var << " -> cs" << cs << ";\n";
    for (unsigned var : writes)
      os << "  cs" << cs << " -> var" << var << ";\n";
    vars.insert(reads.begin(), reads.end());
    vars.insert(writes.begin(), writes.end());
  }
  for (unsigned var : vars)
    os << "  var" << var << " [shape=ellipse, label=" << dotQuoted(variableLabel(g, var)) << "];\n";
  for (std::size_t i = 0; i < walk.nodes.size(); ++i) {
    const auto *n = walk.nodes[i];
    std::string label = kindName(n->kind);
    if (!n->name.empty())
      label += "\n" + n->name;
    os << "  prog" << i << " [shape=oval, style=dashed, label=" << dotQuoted(label) << "];\n";
    if (n->kind == core::ProgramNode::Kind::Execute && n->computeSet.graph() == &g)
      os << "  prog" << i << " -> cs" << n->computeSet.getId() << " [style=dashed];\n";
  }
  for (const auto &e : walk.edges)
    os << "  prog" << e.from << " -> prog" << e.to
       << " [style=dashed, label=" << dotQuoted(std::to_string(e.position)) << "];\n";
  os << "}\n";
}

} // namespace poplar
