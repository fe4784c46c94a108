// The Graph object API: variables, constants (incl. HALF conversion), initial values, clone and
// cloneN, debug names, host I/O handles, vertex types and poputil::templateVertex.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/VertexTemplates.hpp>

#include "ErrorMatchers.hpp"
#include "TestVertices.hpp"
#include "ViewReference.hpp"

using namespace poplar;
using namespace viewref;

namespace {

class GraphApi : public ::testing::Test {
protected:
  GraphApi() : device(smallDevice(4)), graph(device.getTarget()) {}
  /// Loads an engine with one host read of `t` and returns its elements as host `T`s.
  template <class T> std::vector<T> readBack(const Tensor &t) {
    graph.createHostRead("read", t);
    Engine engine(graph, program::Sequence{});
    engine.load(device);
    std::vector<T> out(t.numElements());
    engine.readTensor("read", out.data(), out.data() + out.size());
    return out;
  }
  Device device;
  Graph graph;
};

/// Distinct-element pattern of a view: position i holds the index of its element's first
/// appearance, so two views alias alike exactly when their patterns are equal.
std::vector<std::size_t> aliasPattern(const Tensor &t) {
  auto elems = elementsOf(t);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < elems.size(); ++i) {
    std::size_t first = i;
    for (std::size_t j = 0; j < i; ++j)
      if (elems[j] == elems[i]) {
        first = j;
        break;
      }
    out.push_back(first);
  }
  return out;
}

} // namespace

// ---- variables and names ---------------------------------------------------------------------

TEST_F(GraphApi, AddVariableRecordsTypeShapeAndDebugName) {
  Tensor t = graph.addVariable(SHORT, {2, 5}, "counts");
  EXPECT_EQ(t.elementType(), SHORT);
  EXPECT_EQ(t.shape(), (Shape{2, 5}));
  const VariableRef v = t.getVarRegions().at(0).var;
  EXPECT_EQ(graph.getDebugStr(v), "counts");
  EXPECT_FALSE(graph.isConstant(v));
  Tensor whole = graph.getVariable(v);
  EXPECT_EQ(whole, t.flatten());
}

TEST_F(GraphApi, NestedDebugContextsJoinWithSlashes) {
  DebugNameAndId layer("layer1");
  Tensor w = graph.addVariable(FLOAT, {2}, DebugContext(layer, "weights"));
  EXPECT_EQ(graph.getDebugStr(w.getVarRegions()[0].var), "layer1/weights");
  Tensor anon = graph.addVariable(FLOAT, {2});
  EXPECT_EQ(graph.getDebugStr(anon.getVarRegions()[0].var), "");
}

TEST_F(GraphApi, VariablesGetDistinctIdsAndDoNotIntersect) {
  std::set<unsigned> ids;
  std::vector<Tensor> ts;
  for (int i = 0; i < 5; ++i) {
    ts.push_back(graph.addVariable(FLOAT, {3}, numbered("v", i)));
    ids.insert(varOf(ts.back()));
  }
  EXPECT_EQ(ids.size(), 5u);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j)
      EXPECT_EQ(ts[i].intersectsWith(ts[j]), i == j);
}

TEST_F(GraphApi, UnknownVariableIdIsIndexError) {
  EXPECT_THROW_MSG(index_error, graph.getDebugStr(VariableRef{42}), {"42"});
  EXPECT_THROW_MSG(index_error, graph.getVariable(VariableRef{7}), {"7"});
  EXPECT_THROW_MSG(index_error, graph.isConstant(VariableRef{9}), {"9"});
}

TEST_F(GraphApi, InvalidElementTypeIsTypeError) {
  EXPECT_THROW_MSG(type_error, graph.addVariable(Type(), {2}, "broken"), {"'broken'", "invalid"});
}

TEST_F(GraphApi, GraphTargetAndReplicationFactor) {
  EXPECT_EQ(graph.getTarget(), device.getTarget());
  EXPECT_EQ(graph.getReplicationFactor(), 1u);
  Graph g2(device, replication_factor(2));
  EXPECT_EQ(g2.getReplicationFactor(), 2u);
  // A replicated graph describes one replica: half of the 4-tile device.
  EXPECT_EQ(g2.getTarget().getNumTiles(), 2u);
}

TEST_F(GraphApi, BadTargetOrReplicationIsInvalidMachineModel) {
  EXPECT_THROW_MSG(invalid_machine_model, Graph(Target()), {"valid Target"});
  EXPECT_THROW_MSG(invalid_machine_model, Graph(device.getTarget(), replication_factor(0)),
                   {"replication factor"});
}

TEST_F(GraphApi, TensorFromAnotherGraphIsConnectionError) {
  Graph other(device.getTarget());
  Tensor foreign = other.addVariable(FLOAT, {3}, "foreign");
  EXPECT_THROW_MSG(graph_connection_error, graph.setTileMapping(foreign, 0),
                   {"'foreign'", "another graph"});
  EXPECT_THROW_MSG(graph_connection_error, graph.setInitialValue(foreign, 1.0f),
                   {"'foreign'", "another graph"});
  EXPECT_THROW_MSG(graph_connection_error, graph.createHostRead("h", foreign),
                   {"'h'", "'foreign'", "another graph"});
  EXPECT_THROW_MSG(graph_connection_error, graph.clone(foreign), {"'foreign'", "another graph"});
  EXPECT_THROW_MSG(graph_connection_error, graph.getTileMapping(Tensor()), {"invalid"});
}

TEST_F(GraphApi, DuplicateHostHandlesAreObjectCreationErrors) {
  Tensor t = graph.addVariable(FLOAT, {3}, "t");
  graph.createHostWrite("io", t);
  graph.createHostRead("io", t); // reads and writes have separate namespaces
  EXPECT_THROW_MSG(graph_object_creation_error, graph.createHostWrite("io", t), {"'io'"});
  EXPECT_THROW_MSG(graph_object_creation_error, graph.createHostRead("io", t), {"'io'"});
  graph.addHostToDeviceFIFO("feed", FLOAT, 3);
  EXPECT_THROW_MSG(graph_object_creation_error, graph.addDeviceToHostFIFO("feed", FLOAT, 3),
                   {"'feed'"});
}

// ---- constants and initial values -------------------------------------------------------------

TEST_F(GraphApi, ScalarConstantFillsEveryElement) {
  Tensor c = graph.addConstant<float>(FLOAT, {2, 3}, 2.5f, "c");
  graph.setTileMapping(c, 1);
  EXPECT_TRUE(graph.isConstant(c.getVarRegions()[0].var));
  EXPECT_TRUE(c.containsConstant());
  EXPECT_EQ(graph.getDebugStr(c.getVarRegions()[0].var), "c");
  EXPECT_EQ(readBack<float>(c), std::vector<float>(6, 2.5f));
}

TEST_F(GraphApi, ArrayConstantKeepsValuesInRowMajorOrder) {
  Tensor c = graph.addConstant<int>(INT, {2, 2}, {1, -2, 3, 40}, "c");
  graph.setTileMapping(c, 0);
  EXPECT_EQ(readBack<int>(c.transpose()), (std::vector<int>{1, 3, -2, 40}));
}

TEST_F(GraphApi, PointerConstantReadsShapeManyValues) {
  const unsigned values[6] = {9, 8, 7, 6, 5, 4};
  Tensor c = graph.addConstant(UNSIGNED_INT, {3, 2}, values, "c");
  poputil::mapTensorLinearly(graph, c, 1, 1);
  EXPECT_EQ(readBack<unsigned>(c), (std::vector<unsigned>{9, 8, 7, 6, 5, 4}));
}

TEST_F(GraphApi, ConstantConvertsHostValuesToTheDeviceType) {
  Tensor c = graph.addConstant<int>(FLOAT, {3}, {1, -7, 100}, "c");
  graph.setTileMapping(c, 2);
  EXPECT_EQ(readBack<float>(c), (std::vector<float>{1.0f, -7.0f, 100.0f}));
}

TEST_F(GraphApi, HalfConstantRoundTripsThroughReadTensor) {
  // Host floats and the IEEE binary16 bits they must become (round to nearest even).
  const std::vector<float> in = {1.0f,     -2.0f, 65504.0f,  0.1f,       0x1p-24f,
                                 0x1p-25f, 1e5f,  0.333333f, 0x1.002p0f, 0.0f};
  const std::vector<std::uint16_t> bits = {0x3C00, 0xC000, 0x7BFF, 0x2E66, 0x0001,
                                           0x0000, 0x7C00, 0x3555, 0x3C00, 0x0000};
  Tensor c = graph.addConstant<float>(HALF, {in.size()}, in, "halves");
  poputil::mapTensorLinearly(graph, c, 1, 1);
  auto got = readBack<std::uint16_t>(c);
  EXPECT_EQ(got, bits);
  std::vector<float> back(got.size());
  copyDeviceHalfToFloat(device.getTarget(), got.data(), back.data(), got.size());
  const std::vector<float> expect = {1.0f,     -2.0f, 65504.0f, 0.0999755859375f,
                                     0x1p-24f, 0.0f,  INFINITY, 0.333251953125f,
                                     1.0f,     0.0f};
  EXPECT_EQ(back, expect);
}

TEST_F(GraphApi, AddConstantHalfTakesRawBits) {
  Tensor c = graph.addConstantHalf(HALF, {3}, 0x3555, "third");
  graph.setTileMapping(c, 3);
  EXPECT_EQ(readBack<std::uint16_t>(c), (std::vector<std::uint16_t>{0x3555, 0x3555, 0x3555}));
  EXPECT_THROW_MSG(type_error, graph.addConstantHalf(FLOAT, {1}, 0x3C00, "notHalf"),
                   {"'notHalf'", "float"});
}

TEST_F(GraphApi, ConstantWithWrongValueCountIsShapeError) {
  EXPECT_THROW_MSG(shape_error, graph.addConstant<float>(FLOAT, {2, 2}, {1.0f, 2.0f}, "short"),
                   {"'short'", "got 2 values", "4 elements"});
}

TEST_F(GraphApi, SetInitialValueWholeAndOnAView) {
  Tensor t = graph.addVariable(INT, {2, 3}, "init");
  graph.setTileMapping(t, 0);
  graph.setInitialValue<int>(t, {1, 2, 3, 4, 5, 6});
  graph.setInitialValue<int>(t.transpose()[2], {30, 60}); // column 2
  EXPECT_EQ(readBack<int>(t), (std::vector<int>{1, 2, 30, 4, 5, 60}));
}

TEST_F(GraphApi, SetInitialValueWithWrongCountIsShapeError) {
  Tensor t = graph.addVariable(FLOAT, {4}, "init");
  EXPECT_THROW_MSG(shape_error, graph.setInitialValue<float>(t, {1.0f, 2.0f, 3.0f}),
                   {"'init'", "got 3 values", "4 elements"});
}

// ---- clone ------------------------------------------------------------------------------------

TEST_F(GraphApi, ClonePreservesShapeTypeAndMapping) {
  Tensor t = graph.addVariable(FLOAT, {4, 6}, "src");
  poputil::mapTensorLinearly(graph, t, 1, 1);
  Tensor c = graph.clone(t, "copy");
  EXPECT_EQ(c.shape(), t.shape());
  EXPECT_EQ(c.elementType(), FLOAT);
  EXPECT_EQ(graph.getTileMapping(c), graph.getTileMapping(t));
  EXPECT_FALSE(c.intersectsWith(t));
  EXPECT_TRUE(c.isContiguous());
  EXPECT_EQ(graph.getDebugStr(c.getVarRegions()[0].var), "copy");
  Tensor h = graph.clone(HALF, t, "halfCopy");
  EXPECT_EQ(h.elementType(), HALF);
  EXPECT_EQ(graph.getTileMapping(h), graph.getTileMapping(t));
}

TEST_F(GraphApi, CloneOfAShuffledViewKeepsTheSourceMemoryOrder) {
  // A clone is laid out in memory like its source, so element-wise work over both sees the
  // same contiguous runs: the clone of a transposed view is itself a transposed view.
  Tensor t = graph.addVariable(FLOAT, {3, 4}, "src");
  poputil::mapTensorLinearly(graph, t, 1, 1);
  Tensor view = t.transpose();
  Tensor c = graph.clone(view, "copy");
  EXPECT_EQ(c.shape(), (Shape{4, 3}));
  EXPECT_FALSE(c.isContiguous());
  EXPECT_TRUE(c.transpose().isContiguous());
  EXPECT_FALSE(c.intersectsWith(t));
  EXPECT_EQ(graph.getTileMapping(c), graph.getTileMapping(view));
}

TEST_F(GraphApi, CloneOfConcatenatedBlocksIsOneRunPerBlock) {
  // Two column blocks side by side (as a sliceable table is built): each row of the view
  // alternates between them, but the clone still stores each block in one piece.
  Tensor left = graph.addVariable(FLOAT, {64, 2}, "left");
  Tensor right = graph.addVariable(FLOAT, {64, 2}, "right");
  graph.setTileMapping(left, 0);
  graph.setTileMapping(right, 1);
  Tensor table = concat(left, right, 1);
  Tensor c = graph.clone(table, "copy");
  ASSERT_TRUE(c.slice(0, 2, 1).isContiguous());
  ASSERT_TRUE(c.slice(2, 4, 1).isContiguous());
  EXPECT_EQ(c.slice(0, 2, 1).getVarRegions().front().interval, Interval(0, 128));
  EXPECT_EQ(c.slice(2, 4, 1).getVarRegions().front().interval, Interval(128, 256));
  EXPECT_EQ(c.getVarRegions().size(), 128u); // the view still alternates row by row
  EXPECT_EQ(graph.getTileMapping(c), graph.getTileMapping(table));
}

TEST_F(GraphApi, CloneNStacksIndependentClones) {
  Tensor t = graph.addVariable(FLOAT, {2, 3}, "src");
  poputil::mapTensorLinearly(graph, t, 1, 1);
  Tensor n = graph.cloneN(t, 3, "stack");
  EXPECT_EQ(n.shape(), (Shape{3, 2, 3}));
  std::set<unsigned> vars;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(graph.getTileMapping(n[i]), graph.getTileMapping(t)) << i;
    EXPECT_FALSE(n[i].intersectsWith(t));
    const VariableRef v = n[i].getVarRegions().at(0).var;
    vars.insert(v.id);
    EXPECT_EQ(graph.getDebugStr(v), numbered("stack/", i));
  }
  EXPECT_EQ(vars.size(), 3u);
  EXPECT_FALSE(n.containsAliases());
  EXPECT_EQ(graph.cloneN(t, 0, "none").shape(), (Shape{0, 2, 3}));
}

TEST_F(GraphApi, ClonePreservingAliasesRepeatsTheSameElements) {
  Tensor t = graph.addVariable(FLOAT, {6}, "src");
  poputil::mapTensorLinearly(graph, t, 1, 1);
  Tensor b = t.slice(1, 4).expand({0}).broadcast(4, 0); // [4,3], each element 4 times
  Tensor c = graph.clone(b, "aliased", TensorCloneMethod::PRESERVE_ORDER_AND_ALIASES);
  EXPECT_EQ(c.shape(), b.shape());
  EXPECT_TRUE(c.containsAliases());
  EXPECT_FALSE(c.intersectsWith(t));
  EXPECT_EQ(aliasPattern(c), aliasPattern(b));
  EXPECT_EQ(graph.getVariable(c.getVarRegions()[0].var).numElements(), 3u);
  EXPECT_EQ(graph.getTileMapping(c), graph.getTileMapping(b));
  // End to end: writing the 3 distinct elements shows each one 4 times through the clone.
  Tensor storage = graph.getVariable(c.getVarRegions()[0].var);
  auto got = readViews(graph, device, {storage}, {c});
  EXPECT_EQ(got[0], expectedValues({0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}));
}

TEST_F(GraphApi, CloneUnlessAliasesGivesEveryElementItsOwnStorage) {
  Tensor t = graph.addVariable(FLOAT, {6}, "src");
  poputil::mapTensorLinearly(graph, t, 1, 1);
  Tensor b = t.slice(1, 4).expand({0}).broadcast(4, 0);
  Tensor c = graph.clone(b, "flat");
  EXPECT_FALSE(c.containsAliases());
  EXPECT_TRUE(c.isContiguous());
  EXPECT_EQ(c.numElements(), 12u);
  EXPECT_EQ(graph.getTileMapping(c), graph.getTileMapping(b));
  Tensor n = graph.clone(b, "new", TensorCloneMethod::CREATE_NEW_ORDER);
  EXPECT_FALSE(n.containsAliases());
  EXPECT_TRUE(n.isContiguous());
}

TEST_F(GraphApi, CloneOfAPartlyMappedTensorLeavesTheRestUnmapped) {
  Tensor t = graph.addVariable(FLOAT, {4}, "src");
  graph.setTileMapping(t.slice(0, 2), 3);
  Tensor c = graph.clone(t, "copy");
  bool complete = true;
  auto m = graph.getTileMapping(c, &complete);
  EXPECT_FALSE(complete);
  EXPECT_EQ(m[3], (std::vector<Interval>{Interval(0, 2)}));
}

// ---- vertex types and templateVertex ----------------------------------------------------------

TEST(VertexTemplates, TemplateVertexSpellsPoplarNames) {
  EXPECT_EQ(poputil::templateVertex("popops::Add", FLOAT), "popops::Add<float>");
  EXPECT_EQ(poputil::templateVertex("X", HALF, true, 4, std::string("inner")),
            "X<half,true,4,inner>");
  EXPECT_EQ(poputil::templateVertex("Plain"), "Plain");
  EXPECT_EQ(poputil::templateVertex("Y", UNSIGNED_INT, false), "Y<unsigned int,false>");
  enum class Kind { A = 0, B = 3 };
  EXPECT_EQ(poputil::templateVertex("Z", Kind::B, "lit"), "Z<3,lit>");
}

namespace vtest {
enum class Colour { RED, GREEN };
} // namespace vtest
template <> struct poputil::VertexTemplateToString<vtest::Colour> {
  static std::string to_string(const vtest::Colour &c) {
    return c == vtest::Colour::RED ? "vtest::Colour::RED" : "vtest::Colour::GREEN";
  }
};

TEST(VertexTemplates, ASpecialisedEnumIsSpeltByItsSpecialisation) {
  EXPECT_EQ(poputil::templateVertex("V", vtest::Colour::GREEN, FLOAT),
            "V<vtest::Colour::GREEN,float>");
  EXPECT_EQ(poputil::templateVertexParams(true, FLOAT, 2), "<float,2>");
  EXPECT_EQ(poputil::templateVertexParams(false, vtest::Colour::RED), ",vtest::Colour::RED");
  EXPECT_EQ(poputil::templateVertexParams(true), "");
}

TEST_F(GraphApi, TemplateVertexNameFindsARegisteredVertexType) {
  static const bool once = [] {
    tessera::VertexTypeBuilder<testvertices::Scale>(
        poputil::templateVertex("graphtest::ScaleT", FLOAT))
        .field("data", &testvertices::Scale::data)
        .field("factor", &testvertices::Scale::factor)
        .add();
    return true;
  }();
  (void)once;
  Tensor t = graph.addVariable(FLOAT, {4}, "data");
  graph.setTileMapping(t, 2);
  graph.setInitialValue<float>(t, {1.0f, 2.0f, 3.0f, 4.0f});
  ComputeSet cs = graph.addComputeSet("scale");
  VertexRef v =
      graph.addVertex(cs, poputil::templateVertex("graphtest::ScaleT", FLOAT), {{"data", t}});
  graph.setInitialValue(v["factor"], 3.0f);
  graph.setTileMapping(v, 2);
  graph.createHostRead("data", t);
  Engine engine(graph, program::Execute(cs));
  engine.load(device);
  engine.run();
  std::vector<float> got(4);
  engine.readTensor("data", got.data(), got.data() + got.size());
  EXPECT_EQ(got, (std::vector<float>{3.0f, 6.0f, 9.0f, 12.0f}));
}

TEST_F(GraphApi, UnknownVertexTypeSuggestsTheNearestName) {
  testvertices::registerTestVertices();
  ComputeSet cs = graph.addComputeSet("cs");
  EXPECT_THROW_MSG(unknown_vertex_type, graph.addVertex(cs, "Summ"),
                   {"'Summ'", "did you mean 'Sum'"});
}

TEST_F(GraphApi, UnknownFieldListsTheVertexFields) {
  testvertices::registerTestVertices();
  ComputeSet cs = graph.addComputeSet("cs");
  VertexRef v = graph.addVertex(cs, "Sum");
  Tensor t = graph.addVariable(FLOAT, {2}, "t");
  EXPECT_THROW_MSG(unknown_field, graph.connect(v["inn"], t), {"'inn'", "'Sum'", "in, out"});
}

TEST_F(GraphApi, VertexOfAnotherGraphsComputeSetIsRefused) {
  testvertices::registerTestVertices();
  Graph other(device.getTarget());
  ComputeSet foreign = other.addComputeSet("foreign");
  EXPECT_THROW_MSG(graph_object_creation_error, graph.addVertex(foreign, "Sum"),
                   {"'Sum'", "compute set"});
}
