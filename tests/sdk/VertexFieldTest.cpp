// Every kind of vertex field: scalar Input/Output/InOut, Vector, VectorList (both ways of
// connecting it and both C++ spellings), plain members, plain Vector members and MultiVertex
// workers. Each result is compared with the same computation done on the host.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;
using enginetest::expectThrowWithMessage;

namespace {

struct Fixture {
  Device device;
  Graph graph;
  explicit Fixture(unsigned tiles = 4, unsigned workers = 6)
      : device(enginetest::smallDevice(tiles, workers)), graph(device.getTarget()) {
    testvertices::registerTestVertices();
  }
  Tensor var(Type type, std::vector<std::size_t> shape, const std::string &name, unsigned tile) {
    Tensor t = graph.addVariable(type, shape, name);
    graph.setTileMapping(t, tile);
    graph.createHostRead(name, t);
    return t;
  }
  template <class T> std::vector<T> read(Engine &e, const std::string &name, std::size_t n) {
    std::vector<T> v(n);
    e.readTensor(name, v.data(), v.data() + n);
    return v;
  }
  template <class T> T readScalar(Engine &e, const std::string &name) {
    T v{};
    e.readTensor(name, &v, &v + 1);
    return v;
  }
  Engine runOnce(const Program &prog) {
    Engine engine(graph, prog);
    engine.load(device);
    engine.run();
    return engine;
  }
};

std::vector<float> ramp(std::size_t n, float start, float step) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = start + step * static_cast<float>(i);
  return v;
}

float hostSum(const std::vector<float> &v) {
  float s = 0;
  for (float x : v)
    s += x;
  return s;
}

} // namespace

TEST(VertexFields, ScalarInputAndOutput) {
  Fixture f;
  Tensor in = f.var(FLOAT, {}, "in", 0);
  Tensor out = f.var(FLOAT, {}, "out", 0);
  f.graph.setInitialValue(in, 3.25f);
  ComputeSet cs = f.graph.addComputeSet("copy");
  VertexRef v = f.graph.addVertex(cs, "CopyScalar", {{"in", in}, {"out", out}});
  f.graph.setTileMapping(v, 0);
  Engine e = f.runOnce(Execute(cs));
  EXPECT_EQ(f.readScalar<float>(e, "out"), 3.25f);
  EXPECT_EQ(f.readScalar<float>(e, "in"), 3.25f);
}

TEST(VertexFields, ScalarElementOfLargerTensor) {
  Fixture f;
  Tensor in = f.var(FLOAT, {3, 4}, "in", 0);
  Tensor out = f.var(FLOAT, {5}, "out", 0);
  std::vector<float> init = ramp(12, 1, 1);
  f.graph.setInitialValue(in, ArrayRef<float>(init));
  f.graph.setInitialValue(out, 0.0f);
  ComputeSet cs = f.graph.addComputeSet("copy");
  VertexRef v = f.graph.addVertex(cs, "CopyScalar", {{"in", in[2][1]}, {"out", out[3]}});
  f.graph.setTileMapping(v, 0);
  Engine e = f.runOnce(Execute(cs));
  EXPECT_EQ(f.read<float>(e, "out", 5), (std::vector<float>{0, 0, 0, init[2 * 4 + 1], 0}));
}

TEST(VertexFields, ScalarInOutAccumulates) {
  Fixture f;
  Tensor in = f.var(FLOAT, {}, "in", 1);
  Tensor acc = f.var(FLOAT, {}, "acc", 1);
  f.graph.setInitialValue(in, 0.1f);
  f.graph.setInitialValue(acc, 1.0f);
  ComputeSet cs = f.graph.addComputeSet("acc");
  VertexRef v = f.graph.addVertex(cs, "AccumulateScalar", {{"in", in}, {"acc", acc}});
  f.graph.setTileMapping(v, 1);
  Engine e = f.runOnce(Repeat(7, Execute(cs)));
  float expect = 1.0f;
  for (int i = 0; i < 7; ++i)
    expect = expect + 0.1f;
  EXPECT_EQ(f.readScalar<float>(e, "acc"), expect);
}

TEST(VertexFields, ScalarInOutInt) {
  Fixture f;
  Tensor c = f.var(INT, {}, "c", 2);
  f.graph.setInitialValue(c, -3);
  ComputeSet cs = f.graph.addComputeSet("inc");
  VertexRef v = f.graph.addVertex(cs, "Increment", {{"counter", c}});
  f.graph.setTileMapping(v, 2);
  Engine e = f.runOnce(Repeat(5, Execute(cs)));
  EXPECT_EQ(f.readScalar<int>(e, "c"), 2);
}

TEST(VertexFields, VectorInputSum) {
  Fixture f;
  Tensor in = f.var(FLOAT, {37}, "in", 0);
  Tensor out = f.var(FLOAT, {}, "out", 0);
  std::vector<float> init = ramp(37, 0.5f, 0.3f);
  f.graph.setInitialValue(in, ArrayRef<float>(init));
  ComputeSet cs = f.graph.addComputeSet("sum");
  VertexRef v = f.graph.addVertex(cs, "Sum", {{"in", in}, {"out", out}});
  f.graph.setTileMapping(v, 0);
  Engine e = f.runOnce(Execute(cs));
  EXPECT_EQ(f.readScalar<float>(e, "out"), hostSum(init));
}

TEST(VertexFields, VectorOutputFromVoidCompute) {
  Fixture f;
  Tensor in = f.var(FLOAT, {9}, "in", 3);
  Tensor out = f.var(FLOAT, {9}, "out", 3);
  std::vector<float> init = ramp(9, -4, 1.5f);
  f.graph.setInitialValue(in, ArrayRef<float>(init));
  ComputeSet cs = f.graph.addComputeSet("copy");
  VertexRef v = f.graph.addVertex(cs, "CopyFloats", {{"in", in}, {"out", out}});
  f.graph.setTileMapping(v, 3);
  Engine e = f.runOnce(Execute(cs));
  EXPECT_EQ(f.read<float>(e, "out", 9), init);
}

TEST(VertexFields, VectorInOutWithPlainMember) {
  Fixture f;
  Tensor data = f.var(FLOAT, {6}, "data", 1);
  std::vector<float> init = ramp(6, 1, 1);
  f.graph.setInitialValue(data, ArrayRef<float>(init));
  ComputeSet cs = f.graph.addComputeSet("scale");
  VertexRef v = f.graph.addVertex(cs, "Scale", {{"data", data}});
  f.graph.setInitialValue(v["factor"], -2.5f);
  f.graph.setTileMapping(v, 1);
  Engine e = f.runOnce(Repeat(2, Execute(cs)));
  std::vector<float> expect = init;
  for (auto &x : expect)
    x = x * -2.5f * -2.5f;
  EXPECT_EQ(f.read<float>(e, "data", 6), expect);
}

TEST(VertexFields, PlainMemberConvertedFromInt) {
  Fixture f;
  Tensor data = f.var(FLOAT, {3}, "data", 0);
  f.graph.setInitialValue(data, ArrayRef<float>{1, 2, 3});
  ComputeSet cs = f.graph.addComputeSet("scale");
  VertexRef v = f.graph.addVertex(cs, "Scale", {{"data", data}});
  f.graph.setInitialValue(v["factor"], 7); // int → the field's float
  f.graph.setTileMapping(v, 0);
  Engine e = f.runOnce(Execute(cs));
  EXPECT_EQ(f.read<float>(e, "data", 3), (std::vector<float>{7, 14, 21}));
}

TEST(VertexFields, PlainMemberSetTwiceKeepsLastValue) {
  Fixture f;
  Tensor c = f.var(INT, {}, "c", 0);
  Tensor flag = f.var(BOOL, {}, "flag", 0);
  f.graph.setInitialValue(c, 5);
  ComputeSet cs = f.graph.addComputeSet("lt");
  VertexRef v = f.graph.addVertex(cs, "LessThan", {{"value", c}, {"flag", flag}});
  f.graph.setInitialValue(v["limit"], 100);
  f.graph.setInitialValue(v["limit"], 5);
  f.graph.setTileMapping(v, 0);
  Engine e = f.runOnce(Execute(cs));
  EXPECT_EQ(f.readScalar<bool>(e, "flag"), false); // 5 < 5 is false
}

TEST(VertexFields, EachVertexHasItsOwnPlainMembers) {
  Fixture f(4);
  Tensor data = f.var(FLOAT, {4, 2}, "data", 0);
  for (unsigned t = 0; t < 4; ++t)
    f.graph.setTileMapping(data[t], t);
  f.graph.setInitialValue(data, 1.0f);
  ComputeSet cs = f.graph.addComputeSet("scale");
  for (unsigned t = 0; t < 4; ++t) {
    VertexRef v = f.graph.addVertex(cs, "Scale", {{"data", data[t]}});
    f.graph.setInitialValue(v["factor"], static_cast<float>(t + 2));
    f.graph.setTileMapping(v, t);
  }
  Engine e = f.runOnce(Execute(cs));
  EXPECT_EQ(f.read<float>(e, "data", 8), (std::vector<float>{2, 2, 3, 3, 4, 4, 5, 5}));
}

TEST(VertexFields, VectorListConnectedWithList) {
  Fixture f;
  Tensor a = f.var(FLOAT, {3}, "a", 0);
  Tensor b = f.var(FLOAT, {5}, "b", 0);
  Tensor c = f.var(FLOAT, {1}, "c", 0);
  Tensor out = f.var(FLOAT, {}, "out", 0);
  std::vector<float> va = ramp(3, 1, 0.5f), vb = ramp(5, 10, -1.25f), vc = {1e-3f};
  f.graph.setInitialValue(a, ArrayRef<float>(va));
  f.graph.setInitialValue(b, ArrayRef<float>(vb));
  f.graph.setInitialValue(c, ArrayRef<float>(vc));
  ComputeSet cs = f.graph.addComputeSet("sumList");
  VertexRef v = f.graph.addVertex(cs, "SumList");
  f.graph.connect(v["in"], std::vector<Tensor>{b, a, c});
  f.graph.connect(v["out"], out);
  f.graph.setTileMapping(v, 0);
  Engine e = f.runOnce(Execute(cs));
  float expect = 0;
  for (const auto *vec : {&vb, &va, &vc})
    for (float x : *vec)
      expect += x;
  EXPECT_EQ(f.readScalar<float>(e, "out"), expect);
}

TEST(VertexFields, VectorListConnectedInAddVertex) {
  Fixture f;
  Tensor a = f.var(FLOAT, {4}, "a", 2);
  Tensor out = f.var(FLOAT, {}, "out", 2);
  std::vector<float> va = {1, 2, 4, 8};
  f.graph.setInitialValue(a, ArrayRef<float>(va));
  ComputeSet cs = f.graph.addComputeSet("sumList");
  VertexRef v = f.graph.addVertex(
      cs, "SumList", {{"in", std::vector<Tensor>{a.slice(0, 2), a.slice(1, 4)}}, {"out", out}});
  f.graph.setTileMapping(v, 2);
  Engine e = f.runOnce(Execute(cs));
  EXPECT_EQ(f.readScalar<float>(e, "out"), 1.0f + 2 + 2 + 4 + 8);
}

TEST(VertexFields, VectorListBySetFieldSizeAndIndexedConnect) {
  Fixture f;
  Tensor m = f.var(FLOAT, {4, 3}, "m", 1);
  Tensor out = f.var(FLOAT, {}, "out", 1);
  std::vector<float> vm = ramp(12, 0.25f, 0.75f);
  f.graph.setInitialValue(m, ArrayRef<float>(vm));
  ComputeSet cs = f.graph.addComputeSet("sumList");
  VertexRef v = f.graph.addVertex(cs, "SumList", {{"out", out}});
  f.graph.setFieldSize(v["in"], 3);
  // Connected out of order: element 2 first, and element 1 is a column (non-contiguous).
  f.graph.connect(v["in"][2], m[3]);
  f.graph.connect(v["in"][0], m[0]);
  f.graph.connect(v["in"][1], m.transpose()[1]);
  f.graph.setTileMapping(v, 1);
  Engine e = f.runOnce(Execute(cs));
  float expect = 0;
  for (int j = 0; j < 3; ++j)
    expect += vm[0 * 3 + j];
  for (int i = 0; i < 4; ++i)
    expect += vm[i * 3 + 1];
  for (int j = 0; j < 3; ++j)
    expect += vm[3 * 3 + j];
  EXPECT_EQ(f.readScalar<float>(e, "out"), expect);
}

TEST(VertexFields, EmptyVectorListAndEmptyVector) {
  Fixture f;
  Tensor out = f.var(FLOAT, {2}, "out", 0);
  f.graph.setInitialValue(out, 9.0f);
  Tensor empty = f.graph.addVariable(FLOAT, {0}, "empty");
  f.graph.setTileMapping(empty, 0);
  ComputeSet cs = f.graph.addComputeSet("empties");
  VertexRef a = f.graph.addVertex(cs, "SumList", {{"out", out[0]}});
  f.graph.setFieldSize(a["in"], 0);
  VertexRef b = f.graph.addVertex(cs, "Sum", {{"in", empty}, {"out", out[1]}});
  f.graph.setTileMapping(a, 0);
  f.graph.setTileMapping(b, 0);
  Engine e = f.runOnce(Execute(cs));
  EXPECT_EQ(f.read<float>(e, "out", 2), (std::vector<float>{0, 0}));
}

TEST(VertexFields, VectorOfInputVectorsIsAList) {
  Fixture f;
  Tensor m = f.var(FLOAT, {3, 4}, "m", 0);
  Tensor out = f.var(FLOAT, {}, "out", 0);
  std::vector<float> vm = ramp(12, -3, 0.5f);
  f.graph.setInitialValue(m, ArrayRef<float>(vm));
  ComputeSet cs = f.graph.addComputeSet("sumVec");
  VertexRef v = f.graph.addVertex(cs, "SumVectorOfInputs", {{"out", out}});
  f.graph.connect(v["in"], std::vector<Tensor>{m[2], m[0].reverse(0)});
  f.graph.setTileMapping(v, 0);
  Engine e = f.runOnce(Execute(cs));
  float expect = 0;
  for (int j = 0; j < 4; ++j)
    expect += vm[8 + j];
  for (int j = 3; j >= 0; --j)
    expect += vm[j];
  EXPECT_EQ(f.readScalar<float>(e, "out"), expect);
}

TEST(VertexFields, InOutVectorListWritesEveryElementBack) {
  Fixture f;
  Tensor a = f.var(FLOAT, {4}, "a", 0);
  Tensor b = f.var(FLOAT, {2}, "b", 2);
  f.graph.setInitialValue(a, ArrayRef<float>{1, 2, 3, 4});
  f.graph.setInitialValue(b, ArrayRef<float>{5, 6});
  ComputeSet cs = f.graph.addComputeSet("scaleList");
  VertexRef v = f.graph.addVertex(cs, "ScaleList");
  f.graph.connect(v["data"], std::vector<Tensor>{a.slice(1, 3), b});
  f.graph.setInitialValue(v["factor"], 10.0f);
  f.graph.setTileMapping(v, 0);
  Engine e = f.runOnce(Execute(cs));
  EXPECT_EQ(f.read<float>(e, "a", 4), (std::vector<float>{1, 20, 30, 4}));
  EXPECT_EQ(f.read<float>(e, "b", 2), (std::vector<float>{50, 60}));
}

TEST(VertexFields, PlainVectorMember) {
  Fixture f;
  Tensor in = f.var(FLOAT, {4}, "in", 3);
  Tensor out = f.var(FLOAT, {4}, "out", 3);
  f.graph.setInitialValue(in, ArrayRef<float>{1, 2, 3, 4});
  ComputeSet cs = f.graph.addComputeSet("addTable");
  VertexRef v = f.graph.addVertex(cs, "AddTable", {{"in", in}, {"out", out}});
  f.graph.setInitialValue(v["table"], ArrayRef<float>{0.5f, -1, 100, 1e6f});
  f.graph.setTileMapping(v, 3);
  Engine e = f.runOnce(Execute(cs));
  EXPECT_EQ(f.read<float>(e, "out", 4),
            (std::vector<float>{1 + 0.5f, 2 - 1.0f, 3 + 100.0f, 4 + 1e6f}));
}

TEST(VertexFields, IntAndBoolVectors) {
  Fixture f;
  Tensor ints = f.var(INT, {5}, "ints", 0);
  Tensor bools = f.var(BOOL, {6}, "bools", 1);
  Tensor sum = f.var(INT, {}, "sum", 0);
  Tensor count = f.var(UNSIGNED_INT, {}, "count", 1);
  std::vector<int> vi = {3, -7, 100, 0, 2};
  f.graph.setInitialValue(ints, ArrayRef<int>(vi));
  f.graph.setInitialValue(bools, ArrayRef<bool>{true, false, true, true, false, true});
  ComputeSet cs = f.graph.addComputeSet("ints");
  VertexRef a = f.graph.addVertex(cs, "SumInts", {{"in", ints}, {"out", sum}});
  VertexRef b = f.graph.addVertex(cs, "CountTrue", {{"in", bools}, {"out", count}});
  f.graph.setTileMapping(a, 0);
  f.graph.setTileMapping(b, 1);
  Engine e = f.runOnce(Execute(cs));
  EXPECT_EQ(f.readScalar<int>(e, "sum"), std::accumulate(vi.begin(), vi.end(), 0));
  EXPECT_EQ(f.readScalar<unsigned>(e, "count"), 4u);
}

TEST(VertexFields, MultiVertexRunsNumWorkerContextsWorkers) {
  Fixture f(4, /*workers=*/4);
  Tensor seen = f.var(UNSIGNED_INT, {8}, "seen", 2);
  Tensor workers = f.var(UNSIGNED_INT, {}, "workers", 2);
  f.graph.setInitialValue(seen, 0u);
  ComputeSet cs = f.graph.addComputeSet("workers");
  VertexRef v = f.graph.addVertex(cs, "WorkerInfo", {{"seen", seen}, {"workers", workers}});
  f.graph.setTileMapping(v, 2);
  Engine e = f.runOnce(Execute(cs));
  EXPECT_EQ(f.readScalar<unsigned>(e, "workers"), 4u);
  EXPECT_EQ(f.read<unsigned>(e, "seen", 8), (std::vector<unsigned>{1, 2, 3, 4, 0, 0, 0, 0}));
}

TEST(VertexFields, MultiVertexDefaultSixWorkers) {
  Fixture f(4);
  Tensor seen = f.var(UNSIGNED_INT, {6}, "seen", 0);
  Tensor workers = f.var(UNSIGNED_INT, {}, "workers", 0);
  ComputeSet cs = f.graph.addComputeSet("workers");
  VertexRef v = f.graph.addVertex(cs, "WorkerInfo", {{"seen", seen}, {"workers", workers}});
  f.graph.setTileMapping(v, 0);
  Engine e = f.runOnce(Execute(cs));
  EXPECT_EQ(f.readScalar<unsigned>(e, "workers"), 6u);
  EXPECT_EQ(f.read<unsigned>(e, "seen", 6), (std::vector<unsigned>{1, 2, 3, 4, 5, 6}));
}

TEST(VertexFields, MultiVertexWorkersSplitWork) {
  Fixture f(4, /*workers=*/4);
  Tensor data = f.var(FLOAT, {11}, "data", 1);
  f.graph.setInitialValue(data, 0.0f);
  ComputeSet cs = f.graph.addComputeSet("workerAdd");
  VertexRef v = f.graph.addVertex(cs, "WorkerAdd", {{"data", data}});
  f.graph.setTileMapping(v, 1);
  Engine e = f.runOnce(Execute(cs));
  std::vector<float> expect(11);
  for (std::size_t i = 0; i < 11; ++i)
    expect[i] = static_cast<float>(i % 4 + 1);
  EXPECT_EQ(f.read<float>(e, "data", 11), expect);
}

TEST(VertexFields, MultiVertexFailingWorkerIsReported) {
  Fixture f(4, /*workers=*/4);
  Tensor seen = f.var(UNSIGNED_INT, {2}, "seen", 0); // too short for 4 workers
  Tensor workers = f.var(UNSIGNED_INT, {}, "workers", 0);
  ComputeSet cs = f.graph.addComputeSet("tooFew");
  VertexRef v = f.graph.addVertex(cs, "WorkerInfo", {{"seen", seen}, {"workers", workers}});
  f.graph.setTileMapping(v, 0);
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  expectThrowWithMessage<application_runtime_error>(
      [&] { e.run(); }, {"WorkerInfo", "tooFew", "tile 0", "worker 2", "returned false"});
}

TEST(VertexFields, SetFieldSizeOnVectorMustMatchConnection) {
  Fixture f;
  Tensor in = f.var(FLOAT, {4}, "in", 0);
  Tensor out = f.var(FLOAT, {}, "out", 0);
  f.graph.setInitialValue(in, ArrayRef<float>{1, 2, 3, 4});
  ComputeSet cs = f.graph.addComputeSet("sum");
  VertexRef v = f.graph.addVertex(cs, "Sum", {{"out", out}});
  f.graph.setFieldSize(v["in"], 4);
  expectThrowWithMessage<graph_connection_error>([&] { f.graph.connect(v["in"], in.slice(0, 3)); },
                                                 {"'in'", "Sum", "4 elements"});
  f.graph.connect(v["in"], in);
  f.graph.setTileMapping(v, 0);
  Engine e = f.runOnce(Execute(cs));
  EXPECT_EQ(f.readScalar<float>(e, "out"), 10.0f);
}

TEST(VertexFields, MisusedFieldKindsAreRejected) {
  Fixture f;
  Tensor in = f.var(FLOAT, {4}, "in", 0);
  ComputeSet cs = f.graph.addComputeSet("misuse");
  VertexRef scale = f.graph.addVertex(cs, "Scale");
  VertexRef list = f.graph.addVertex(cs, "SumList");
  expectThrowWithMessage<graph_connection_error>([&] { f.graph.connect(scale["factor"], in[0]); },
                                                 {"'factor'", "Scale", "plain member"});
  expectThrowWithMessage<graph_connection_error>(
      [&] { f.graph.setInitialValue(scale["data"], 1.0f); }, {"'data'", "Scale", "connect"});
  expectThrowWithMessage<graph_connection_error>([&] { f.graph.connect(list["in"], in); },
                                                 {"'in'", "SumList", "VectorList"});
  expectThrowWithMessage<no_size_specified>([&] { f.graph.connect(list["in"][0], in); },
                                            {"'in'", "SumList", "setFieldSize"});
  f.graph.setFieldSize(list["in"], 2);
  expectThrowWithMessage<index_error>([&] { f.graph.connect(list["in"][2], in); },
                                      {"'in'", "index 2", "size 2"});
}

TEST(VertexFields, WritableFieldOnConstantIsRejected) {
  Fixture f;
  Tensor c = f.graph.addConstant(FLOAT, {3}, 1.0f, "constData");
  f.graph.setTileMapping(c, 0);
  ComputeSet cs = f.graph.addComputeSet("scaleConst");
  VertexRef v = f.graph.addVertex(cs, "Scale");
  expectThrowWithMessage<graph_connection_error>([&] { f.graph.connect(v["data"], c); },
                                                 {"'data'", "Scale", "constData"});
}
