// Graph::getSortedContiguousRegions (against a naive sort of element addresses), the Graphviz
// output of outputVertexGraph / outputComputeGraph, and the small inspection helpers:
// Tensor::shapeToString / getDebugStr, Interval::lower / upper, std::hash<VariableRef>,
// DataStream's type and replication, setPerfEstimate with a VertexPerfEstimate.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <unordered_set>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/SourceLocation.hpp>

#include "ErrorMatchers.hpp"
#include "TestVertices.hpp"
#include "ViewReference.hpp"

using namespace poplar;
using testerrors::throwsWithMessage;
using viewref::Element;

namespace {

/// Address of an element as the test models it: (tile, variable, index) — consecutive indices
/// of one variable on one tile are consecutive in memory.
struct Address {
  unsigned tile;
  unsigned var;
  std::size_t index;
};

/// The naive reference: every element of `regions` with its address, sorted by (var, index,
/// tensor index), cut into runs where the address stops being the previous one plus one, with
/// aliased elements (an address seen before) dropped. Each run is the list of tensor indices.
std::vector<std::vector<std::size_t>> naiveRuns(const Graph &g, const Tensor &t,
                                                const std::vector<Interval> &regions) {
  const auto elems = viewref::elementsOf(t);
  std::map<std::pair<unsigned, std::size_t>, unsigned> tileOf;
  for (const auto &r : t.getVarRegions()) {
    Tensor whole = g.getVariable(r.var);
    const auto m = g.getTileMapping(whole, false);
    for (unsigned tile = 0; tile < m.size(); ++tile)
      for (const auto &iv : m[tile])
        for (auto i = iv.begin(); i < iv.end(); ++i)
          tileOf[{r.var.id, i}] = tile;
  }
  struct Item {
    Element e;
    std::size_t tensorIndex;
  };
  std::vector<Item> items;
  for (const auto &iv : regions)
    for (auto i = iv.begin(); i < iv.end(); ++i)
      items.push_back({elems[i], i});
  std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
    return a.e != b.e ? a.e < b.e : a.tensorIndex < b.tensorIndex;
  });
  std::vector<std::vector<std::size_t>> runs;
  const Item *prev = nullptr;
  for (const auto &it : items) {
    if (prev && prev->e == it.e)
      continue; // aliased
    const bool continues = prev && prev->e.first == it.e.first &&
                           prev->e.second + 1 == it.e.second && tileOf[prev->e] == tileOf[it.e];
    if (!continues)
      runs.emplace_back();
    runs.back().push_back(it.tensorIndex);
    prev = &it;
  }
  return runs;
}

std::vector<std::vector<std::size_t>> expand(const std::vector<std::vector<Interval>> &seqs) {
  std::vector<std::vector<std::size_t>> out;
  for (const auto &s : seqs) {
    out.emplace_back();
    for (const auto &iv : s)
      for (auto i = iv.begin(); i < iv.end(); ++i)
        out.back().push_back(i);
  }
  return out;
}

class Inspection : public ::testing::Test {
protected:
  Inspection() : device(viewref::smallDevice(4)), graph(device.getTarget()) {
    testvertices::registerTestVertices();
  }
  Device device;
  Graph graph;
};

} // namespace

// ---- getSortedContiguousRegions ---------------------------------------------------------------

TEST_F(Inspection, SortedContiguousRegionsMatchNaiveSortOfAddresses) {
  Tensor a = graph.addVariable(FLOAT, {4, 6}, "a");
  Tensor b = graph.addVariable(FLOAT, {10}, "b");
  graph.setTileMapping(a.slice(0, 2), 0);
  graph.setTileMapping(a.slice(2, 4), 1);
  graph.setTileMapping(b, 2);
  // A view that interleaves both variables, reversed and transposed.
  Tensor t = concat({b.slice(5, 10), a.transpose().flatten(), b.slice(0, 5).reverse(0)});
  const std::vector<std::vector<Interval>> cases = {
      {{0, t.numElements()}},
      {{3, 9}, {20, 29}},
      {{30, 34}, {0, 2}},
      {},
  };
  for (const auto &regions : cases) {
    SCOPED_TRACE(::testing::PrintToString(regions.size()));
    const auto got = graph.getSortedContiguousRegions(t, regions);
    EXPECT_EQ(expand(got), naiveRuns(graph, t, regions));
    // The intervals of a sequence never repeat an element and are in memory order already.
    for (const auto &s : got)
      EXPECT_FALSE(s.empty());
  }
}

TEST_F(Inspection, SortedContiguousRegionsRandomViewsMatchNaive) {
  Tensor a = graph.addVariable(INT, {5, 7}, "a");
  graph.setTileMapping(a.slice(0, 3), 3);
  graph.setTileMapping(a.slice(3, 5), 0);
  const std::vector<Tensor> views = {a,
                                     a.transpose(),
                                     a.slice(1, 6, 1).dimShuffle({1, 0}),
                                     a.subSample(2, 1),
                                     a.reverse(1),
                                     concat(a[2], a[1])};
  for (std::size_t v = 0; v < views.size(); ++v) {
    SCOPED_TRACE(viewref::numbered("view ", v));
    const Tensor t = views[v].flatten();
    const std::vector<Interval> all = {{0, t.numElements()}};
    EXPECT_EQ(expand(graph.getSortedContiguousRegions(t, all)), naiveRuns(graph, t, all));
  }
}

TEST_F(Inspection, AliasedIntervalsAreRemovedOrReported) {
  Tensor x = graph.addVariable(FLOAT, {6}, "x");
  graph.setTileMapping(x, 0);
  // Elements 0-3 and 2-5 of x: elements 2 and 3 appear twice.
  Tensor t = concat(x.slice(0, 4), x.slice(2, 6));
  const std::vector<Interval> all = {{0, 8}};

  auto removed = graph.getSortedContiguousRegions(t, all, true);
  EXPECT_EQ(expand(removed), naiveRuns(graph, t, all));

  std::vector<std::size_t> aliases;
  auto kept = graph.getSortedContiguousRegions(t, all, false, &aliases);
  std::vector<Interval> flat;
  for (const auto &s : kept)
    flat.insert(flat.end(), s.begin(), s.end());
  ASSERT_EQ(aliases.size(), flat.size());
  // Every element is covered once, and each alias points at an interval of the same size
  // whose elements are the same variable elements.
  std::multiset<std::size_t> covered;
  const auto elems = viewref::elementsOf(t);
  for (std::size_t i = 0; i < flat.size(); ++i) {
    for (auto k = flat[i].begin(); k < flat[i].end(); ++k)
      covered.insert(k);
    if (aliases[i] == flat[i].begin())
      continue;
    auto target = std::find_if(flat.begin(), flat.end(),
                               [&](const Interval &iv) { return iv.begin() == aliases[i]; });
    ASSERT_NE(target, flat.end());
    ASSERT_EQ(target->size(), flat[i].size());
    for (std::size_t k = 0; k < flat[i].size(); ++k)
      EXPECT_EQ(elems[flat[i].begin() + k], elems[target->begin() + k]);
  }
  std::multiset<std::size_t> expected;
  for (std::size_t k = 0; k < 8; ++k)
    expected.insert(k);
  EXPECT_EQ(covered, expected);
  // Exactly the two repeated elements (tensor positions 4 and 5) are aliases.
  std::size_t aliased = 0;
  for (std::size_t i = 0; i < flat.size(); ++i)
    if (aliases[i] != flat[i].begin())
      aliased += flat[i].size();
  EXPECT_EQ(aliased, 2u);
}

TEST_F(Inspection, SortedContiguousRegionsErrorsNameTheTensorAndInterval) {
  Tensor a = graph.addVariable(FLOAT, {4}, "small");
  EXPECT_TRUE(throwsWithMessage<index_error>(
      [&] {
        graph.getSortedContiguousRegions(a, {{2, 9}});
      },
      {"'small'", "[2, 9)", "4 elements"}));
  Graph other(device.getTarget());
  Tensor o = other.addVariable(FLOAT, {4}, "foreign");
  EXPECT_TRUE(throwsWithMessage<graph_connection_error>(
      [&] {
        graph.getSortedContiguousRegions(o, {{0, 4}});
      },
      {"getSortedContiguousRegions", "'foreign'"}));
}

// ---- Graphviz -----------------------------------------------------------------------------------

namespace {

/// Checks the dot text is one digraph whose braces balance and whose statements each end in ';'.
void expectWellFormedDot(const std::string &dot, const std::string &name) {
  EXPECT_EQ(dot.rfind("digraph " + name + " {\n", 0), 0u) << dot;
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
  std::istringstream lines(dot);
  std::string line;
  std::getline(lines, line);
  const std::regex node(R"(  \w+ \[.*\];)"), edge(R"(  \w+ -> \w+( \[.*\])?;)");
  while (std::getline(lines, line)) {
    if (line == "}")
      break;
    EXPECT_TRUE(std::regex_match(line, node) || std::regex_match(line, edge)) << line;
  }
  int quotes = 0;
  for (std::size_t i = 0; i < dot.size(); ++i)
    if (dot[i] == '"' && (i == 0 || dot[i - 1] != '\\'))
      ++quotes;
  EXPECT_EQ(quotes % 2, 0);
}

} // namespace

TEST_F(Inspection, VertexAndComputeGraphsAreDotNamingVerticesAndComputeSets) {
  Tensor in = graph.addVariable(FLOAT, {4}, "input");
  Tensor out = graph.addVariable(FLOAT, {}, "total");
  graph.setTileMapping(in, 0);
  graph.setTileMapping(out, 1);
  ComputeSet used = graph.addComputeSet("summing");
  VertexRef v = graph.addVertex(used, "Sum", {{"in", in}, {"out", out}});
  graph.setTileMapping(v, 1);
  ComputeSet unused = graph.addComputeSet("neverRun");
  VertexRef w = graph.addVertex(unused, "Sum", {{"in", in}, {"out", out}});
  graph.setTileMapping(w, 2);
  program::Sequence prog{program::Execute(used)};

  std::ostringstream all, some;
  graph.outputVertexGraph(all);
  graph.outputVertexGraph(some, {prog});
  expectWellFormedDot(all.str(), "vertexgraph");
  expectWellFormedDot(some.str(), "vertexgraph");
  EXPECT_NE(all.str().find("compute set: summing"), std::string::npos);
  EXPECT_NE(all.str().find("compute set: neverRun"), std::string::npos);
  EXPECT_EQ(some.str().find("neverRun"), std::string::npos);
  EXPECT_NE(some.str().find("Sum\\ncompute set: summing\\ntile 1"), std::string::npos);
  EXPECT_NE(some.str().find("input"), std::string::npos);
  // Input edge variable -> vertex, output edge vertex -> variable.
  const auto inVar = in.getVarRegions()[0].var.id, outVar = out.getVarRegions()[0].var.id;
  const std::string vid = viewref::numbered("v", v.getId());
  std::string inEdge = viewref::numbered("var", inVar);
  inEdge += " -> ";
  inEdge += vid;
  std::string outEdge = vid;
  outEdge += viewref::numbered(" -> var", outVar);
  EXPECT_NE(some.str().find(inEdge), std::string::npos);
  EXPECT_NE(some.str().find(outEdge), std::string::npos);

  std::ostringstream compute, computeAll;
  graph.outputComputeGraph(compute, {prog});
  graph.outputComputeGraph(computeAll);
  expectWellFormedDot(compute.str(), "computegraph");
  expectWellFormedDot(computeAll.str(), "computegraph");
  EXPECT_NE(compute.str().find("summing\\n1 vertices"), std::string::npos);
  EXPECT_EQ(compute.str().find("neverRun"), std::string::npos);
  EXPECT_NE(compute.str().find("Execute"), std::string::npos);
  EXPECT_NE(computeAll.str().find("neverRun"), std::string::npos);
}

TEST_F(Inspection, DotQuotesAwkwardNames) {
  Tensor in = graph.addVariable(FLOAT, {2}, "say \"hi\"\\now");
  Tensor out = graph.addVariable(FLOAT, {}, "o");
  graph.setTileMapping(in, 0);
  graph.setTileMapping(out, 0);
  ComputeSet cs = graph.addComputeSet("cs \"1\"");
  graph.setTileMapping(graph.addVertex(cs, "Sum", {{"in", in}, {"out", out}}), 0);
  std::ostringstream dot;
  graph.outputVertexGraph(dot);
  expectWellFormedDot(dot.str(), "vertexgraph");
  EXPECT_NE(dot.str().find(R"(say \"hi\"\\now)"), std::string::npos);
}

// ---- small helpers -------------------------------------------------------------------------

TEST_F(Inspection, ShapeToStringAndDebugStr) {
  Tensor a = graph.addVariable(FLOAT, {2, 3}, "weights");
  Tensor b = graph.addVariable(INT, {}, "count");
  EXPECT_EQ(a.shapeToString(), "{2,3}");
  EXPECT_EQ(b.shapeToString(), "{}");
  EXPECT_EQ(a.slice(1, 3, 1).shapeToString(), "{2,2}");
  EXPECT_EQ(a.getDebugStr(), "float{2,3} = 'weights'[0, 6)");
  EXPECT_EQ(concat(a.flatten().slice(4, 6), a.flatten().slice(0, 1)).getDebugStr(),
            "float{3} = 'weights'[4, 6) 'weights'[0, 1)");
  EXPECT_EQ(b.getDebugStr(), "int{} = 'count'[0, 1)");
  EXPECT_EQ(Tensor().shapeToString(), "<invalid tensor>");
}

TEST(IntervalAndVariableRef, LowerUpperComparisonsAndHash) {
  constexpr Interval iv(3, 8);
  static_assert(iv.lower() == 3 && iv.upper() == 8 && iv.size() == 5);
  EXPECT_EQ(iv.lower(), iv.begin());
  EXPECT_EQ(iv.upper(), iv.end());

  VariableRef a{1}, b{2}, a2{1};
  EXPECT_TRUE(a == a2);
  EXPECT_TRUE(a != b);
  EXPECT_TRUE(a < b);
  EXPECT_EQ(std::hash<VariableRef>()(a), std::hash<VariableRef>()(a2));
  EXPECT_EQ(std::hash<VariableRef>()(a), std::hash<unsigned>()(1u));
  std::unordered_set<VariableRef> set = {a, b, a2};
  EXPECT_EQ(set.size(), 2u);
}

TEST_F(Inspection, DataStreamReportsTypeModeAndReplication) {
  DataStream in = graph.addHostToDeviceFIFO("in", FLOAT, 8, ReplicatedStreamMode::BROADCAST);
  DataStream out = graph.addDeviceToHostFIFO("out", INT, 3);
  EXPECT_EQ(in.type(), DataStreamType::HostToDeviceFIFO);
  EXPECT_EQ(out.type(), DataStreamType::DeviceToHostFIFO);
  EXPECT_EQ(in.replicatedMode(), ReplicatedStreamMode::BROADCAST);
  EXPECT_EQ(out.replicatedMode(), ReplicatedStreamMode::REPLICATE);
  EXPECT_EQ(in.replicationFactor(), 1u);
  EXPECT_EQ(out.elementType(), INT);
  EXPECT_EQ(out.numElements(), 3u);
  EXPECT_EQ(in.handle(), "in");
  EXPECT_TRUE(isHostToDevice(in.type()));
  EXPECT_FALSE(isDeviceToHost(in.type()));
  EXPECT_TRUE(isDeviceToHost(out.type()));
  EXPECT_FALSE(isRemoteBuffer(out.type()));
  EXPECT_TRUE(isRemoteBuffer(DataStreamType::HostToDeviceBuffer));
  EXPECT_TRUE(isDeviceToHost(DataStreamType::DeviceToHostBuffer));

  Graph replicated(device.getTarget(), replication_factor(2));
  EXPECT_EQ(replicated.addHostToDeviceFIFO("r", FLOAT, 1).replicationFactor(), 2u);
}

TEST_F(Inspection, PerfEstimateStructSetsTheVertexEstimate) {
  Tensor in = graph.addVariable(FLOAT, {4}, "in");
  Tensor out = graph.addVariable(FLOAT, {}, "out");
  ComputeSet cs = graph.addComputeSet("cs");
  VertexRef v = graph.addVertex(cs, "Sum", {{"in", in}, {"out", out}});
  graph.setPerfEstimate(v, VertexPerfEstimate(1234, 56));
  graph.setPerfEstimate(v, {77});
  EXPECT_EQ(VertexPerfEstimate(9).flops, 0u);
  Graph other(device.getTarget());
  EXPECT_TRUE(throwsWithMessage<graph_connection_error>(
      [&] { other.setPerfEstimate(v, VertexPerfEstimate(1)); }, {"setPerfEstimate"}));
}

// ---- SourceLocation ---------------------------------------------------------------------------

namespace {
poplar::SourceLocation whereCalled(poplar::SourceLocation loc = poplar::SourceLocation::Current()) {
  return loc;
}
} // namespace

TEST(SourceLocation, CurrentNamesTheCallerAndTheMacroNamesItsLine) {
  const unsigned line = __LINE__ + 1;
  const auto loc = whereCalled();
  EXPECT_TRUE(loc.isValid());
  EXPECT_EQ(loc.getLineNumber(), line);
  EXPECT_NE(std::string(loc.getFileName()).find("GraphInspectionTest.cpp"), std::string::npos);
  EXPECT_NE(std::string(loc.getFunctionName()).find("TestBody"), std::string::npos);

  const auto here = POPLAR_SOURCE_LOCATION;
  EXPECT_EQ(here.getLineNumber(), __LINE__ - 1);
  EXPECT_NE(std::string(here.getFunctionName()).find("TestBody"), std::string::npos);

  constexpr poplar::SourceLocation none;
  static_assert(!none.isValid() && none.getLineNumber() == 0);
}
