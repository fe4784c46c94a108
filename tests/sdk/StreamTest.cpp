// Data streams: fixed and circular host buffers, callbacks, and connection errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;
using enginetest::expectThrowWithMessage;

namespace {

/// in (host→device, 4 floats) → x on tiles 0/1 → x *= 2 on tile 2 → out (device→host).
struct DoublerGraph {
  Device device = enginetest::smallDevice(4);
  Graph graph{device.getTarget()};
  Tensor x;
  DataStream in, out;
  ComputeSet cs;
  Program prog;

  DoublerGraph() {
    testvertices::registerTestVertices();
    x = graph.addVariable(FLOAT, {4}, "x");
    graph.setTileMapping(x.slice(0, 2), 0);
    graph.setTileMapping(x.slice(2, 4), 1);
    in = graph.addHostToDeviceFIFO("input", FLOAT, 4);
    out = graph.addDeviceToHostFIFO("output", FLOAT, 4);
    cs = graph.addComputeSet("double");
    VertexRef v = graph.addVertex(cs, "Scale", {{"data", x}});
    graph.setInitialValue(v["factor"], 2.0f);
    graph.setTileMapping(v, 2);
    prog = Sequence{Copy(in, x), Execute(cs), Copy(x, out)};
  }
};

} // namespace

TEST(Streams, SingleBufferBothDirections) {
  DoublerGraph g;
  Engine e(g.graph, g.prog);
  e.load(g.device);
  std::vector<float> in = {1, -2, 3.5f, 1e-3f}, out(4, 0);
  e.connectStream("input", in.data());
  e.connectStream("output", out.data());
  e.run();
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_EQ(out[i], in[i] * 2.0f);
  // A fixed buffer is read again on every run.
  in = {10, 20, 30, 40};
  e.run();
  EXPECT_EQ(out, (std::vector<float>{20, 40, 60, 80}));
}

TEST(Streams, CircularBufferWrapsOverRuns) {
  DoublerGraph g;
  Engine e(g.graph, g.prog);
  e.load(g.device);
  // Three transfers in, two out; five runs wrap both rings.
  std::vector<float> in(12), out(8, 0);
  for (std::size_t i = 0; i < 12; ++i)
    in[i] = static_cast<float>(i + 1);
  e.connectStream("input", in.data(), in.data() + in.size());
  e.connectStream("output", out.data(), out.data() + out.size());
  std::vector<std::vector<float>> results;
  for (int run = 0; run < 5; ++run) {
    e.run();
    const std::size_t slot = run % 2;
    results.emplace_back(out.begin() + 4 * slot, out.begin() + 4 * slot + 4);
  }
  for (int run = 0; run < 5; ++run) {
    const std::size_t inSlot = run % 3;
    for (std::size_t i = 0; i < 4; ++i)
      EXPECT_EQ(results[run][i], in[4 * inSlot + i] * 2.0f) << "run " << run << " element " << i;
  }
}

TEST(Streams, SuccessiveCopiesInOneRunUseSuccessiveTransfers) {
  testvertices::registerTestVertices();
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor a = graph.addVariable(INT, {2}, "a");
  Tensor b = graph.addVariable(INT, {2}, "b");
  graph.setTileMapping(a, 0);
  graph.setTileMapping(b, 3);
  DataStream s = graph.addHostToDeviceFIFO("pairs", INT, 2);
  graph.createHostRead("a", a);
  graph.createHostRead("b", b);
  Engine e(graph, Sequence{Copy(s, a), Copy(s, b)});
  e.load(device);
  std::vector<int> ring = {1, 2, 3, 4, 5, 6};
  e.connectStream("pairs", ring.data(), ring.data() + ring.size());
  std::vector<int> ha(2), hb(2);
  e.run();
  e.readTensor("a", ha.data(), ha.data() + 2);
  e.readTensor("b", hb.data(), hb.data() + 2);
  EXPECT_EQ(ha, (std::vector<int>{1, 2}));
  EXPECT_EQ(hb, (std::vector<int>{3, 4}));
  e.run(); // transfers 3 then 1 (wrapped)
  e.readTensor("a", ha.data(), ha.data() + 2);
  e.readTensor("b", hb.data(), hb.data() + 2);
  EXPECT_EQ(ha, (std::vector<int>{5, 6}));
  EXPECT_EQ(hb, (std::vector<int>{1, 2}));
}

TEST(Streams, CallbacksBothDirections) {
  DoublerGraph g;
  Engine e(g.graph, g.prog);
  e.load(g.device);
  int calls = 0;
  std::vector<std::vector<float>> received;
  e.connectStreamToCallback("input", [&](void *p) {
    auto *f = static_cast<float *>(p);
    for (int i = 0; i < 4; ++i)
      f[i] = static_cast<float>(calls * 10 + i);
    ++calls;
  });
  e.connectStreamToCallback("output", [&](void *p) {
    auto *f = static_cast<const float *>(p);
    received.emplace_back(f, f + 4);
  });
  e.run();
  e.run();
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(received[0], (std::vector<float>{0, 2, 4, 6}));
  EXPECT_EQ(received[1], (std::vector<float>{20, 22, 24, 26}));
}

TEST(Streams, ReconnectingSwitchesBuffer) {
  DoublerGraph g;
  Engine e(g.graph, g.prog);
  e.load(g.device);
  std::vector<float> in1 = {1, 1, 1, 1}, in2 = {3, 3, 3, 3}, out(4);
  e.connectStream("output", out.data());
  e.connectStream("input", in1.data());
  e.run();
  EXPECT_EQ(out, std::vector<float>(4, 2));
  e.connectStream("input", in2.data());
  e.run();
  EXPECT_EQ(out, std::vector<float>(4, 6));
}

TEST(Streams, StreamIntoNonContiguousView) {
  testvertices::registerTestVertices();
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor m = graph.addVariable(FLOAT, {2, 3}, "m");
  graph.setTileMapping(m[0], 1);
  graph.setTileMapping(m[1], 2);
  DataStream s = graph.addHostToDeviceFIFO("cols", FLOAT, 6);
  DataStream back = graph.addDeviceToHostFIFO("rows", FLOAT, 6);
  Engine e(graph, Sequence{Copy(s, m.transpose()), Copy(m, back)});
  e.load(device);
  std::vector<float> in = {1, 2, 3, 4, 5, 6}, out(6);
  e.connectStream("cols", in.data());
  e.connectStream("rows", out.data());
  e.run();
  // m^T = [[1,2],[3,4],[5,6]] → m = [[1,3,5],[2,4,6]].
  EXPECT_EQ(out, (std::vector<float>{1, 3, 5, 2, 4, 6}));
}

TEST(StreamErrors, UnconnectedStreamAtRunNamesHandle) {
  DoublerGraph g;
  Engine e(g.graph, g.prog);
  e.load(g.device);
  std::vector<float> in(4, 1);
  e.connectStream("input", in.data());
  expectThrowWithMessage<stream_connection_error>([&] { e.run(); }, {"'output'", "not connected"});
  std::vector<float> out(4);
  e.connectStream("output", out.data());
  e.run();
  EXPECT_EQ(out, std::vector<float>(4, 2));
}

TEST(StreamErrors, BufferNotMultipleOfTransfer) {
  DoublerGraph g;
  Engine e(g.graph, g.prog);
  e.load(g.device);
  std::vector<float> buf(6);
  expectThrowWithMessage<stream_connection_error>(
      [&] { e.connectStream("input", buf.data(), buf.data() + 6); },
      {"'input'", "24 bytes", "16-byte"});
  expectThrowWithMessage<stream_connection_error>(
      [&] { e.connectStream("output", buf.data(), buf.data()); }, {"'output'", "0 bytes"});
}

TEST(StreamErrors, UnknownHandleSuggestsNearest) {
  DoublerGraph g;
  Engine e(g.graph, g.prog);
  std::vector<float> buf(4);
  expectThrowWithMessage<stream_connection_error>([&] { e.connectStream("inpt", buf.data()); },
                                                  {"'inpt'", "did you mean 'input'"});
  expectThrowWithMessage<stream_connection_error>(
      [&] { e.connectStreamToCallback("outptu", [](void *) {}); },
      {"'outptu'", "did you mean 'output'"});
}

TEST(StreamErrors, NullBufferAndEmptyCallback) {
  DoublerGraph g;
  Engine e(g.graph, g.prog);
  expectThrowWithMessage<stream_connection_error>([&] { e.connectStream("input", nullptr); },
                                                  {"'input'", "null"});
  expectThrowWithMessage<stream_connection_error>(
      [&] { e.connectStreamToCallback("output", std::function<void(void *)>{}); },
      {"'output'", "empty callback"});
}

TEST(StreamErrors, WrongDirectionTypeOrSizeAtCompile) {
  testvertices::registerTestVertices();
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor x = graph.addVariable(FLOAT, {4}, "x");
  Tensor y = graph.addVariable(INT, {4}, "y");
  graph.setTileMapping(x, 0);
  graph.setTileMapping(y, 0);
  DataStream in = graph.addHostToDeviceFIFO("in4", FLOAT, 4);
  DataStream in3 = graph.addHostToDeviceFIFO("in3", FLOAT, 3);
  expectThrowWithMessage<stream_connection_error>([&] { Engine e(graph, Copy(x, in)); },
                                                  {"'in4'", "host-to-device"});
  expectThrowWithMessage<type_error>([&] { Engine e(graph, Copy(in, y)); },
                                     {"'in4'", "'y'", "int"});
  expectThrowWithMessage<shape_error>([&] { Engine e(graph, Copy(in3, x)); },
                                      {"'in3'", "3 elements", "'x'"});
}

TEST(Streams, HalfStreamAndEmptyStream) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor h = graph.addVariable(HALF, {4}, "h");
  graph.setTileMapping(h.slice(0, 1), 3);
  graph.setTileMapping(h.slice(1, 4), 0);
  Tensor none = graph.addVariable(FLOAT, {0}, "none");
  graph.setTileMapping(none, 0);
  DataStream in = graph.addHostToDeviceFIFO("halfIn", HALF, 4);
  DataStream out = graph.addDeviceToHostFIFO("halfOut", HALF, 4);
  DataStream empty = graph.addHostToDeviceFIFO("empty", FLOAT, 0);
  Engine e(graph, Sequence{Copy(empty, none), Copy(in, h), Copy(h.reverse(0), out)});
  e.load(device);
  std::vector<std::uint16_t> bits = {0x3C00, 0xFBFF, 0x0400, 0x7E00}, back(4);
  e.connectStream("halfIn", bits.data());
  e.connectStream("halfOut", back.data(), back.data() + 4);
  e.connectStream("empty", nullptr);
  e.run();
  EXPECT_EQ(back, (std::vector<std::uint16_t>{0x7E00, 0x0400, 0xFBFF, 0x3C00}));
}
