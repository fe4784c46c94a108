// Engine::writeTensor / readTensor: round trips for several element types, views, initial
// values, and the errors for small buffers, unknown handles and use before load.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poputil/TileMapping.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;
using enginetest::expectThrowWithMessage;

namespace {

/// Writes `values` to a tensor on tiles 0..1, copies it to a tensor on tile 3, reads that.
template <class T> std::vector<T> roundTrip(Type type, const std::vector<T> &values) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  const std::size_t n = values.size();
  Tensor a = graph.addVariable(type, {n}, "a");
  Tensor b = graph.addVariable(type, {n}, "b");
  graph.setTileMapping(a.slice(0, n / 2), 0);
  graph.setTileMapping(a.slice(n / 2, n), 1);
  graph.setTileMapping(b, 3);
  graph.createHostWrite("a", a);
  graph.createHostRead("b", b);
  Engine e(graph, Copy(a, b));
  e.load(device);
  e.writeTensor("a", values.data(), values.data() + n);
  e.run();
  std::vector<T> out(n);
  e.readTensor("b", out.data(), out.data() + n);
  return out;
}

} // namespace

TEST(HostIo, FloatRoundTrip) {
  std::vector<float> v = {0.0f, -0.0f, 1.5f, -3.25e-8f, 3.4e38f, 1e-45f};
  std::vector<float> out = roundTrip(FLOAT, v);
  ASSERT_EQ(out.size(), v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    EXPECT_EQ(std::memcmp(&out[i], &v[i], 4), 0) << i;
}

TEST(HostIo, IntegerTypesRoundTrip) {
  EXPECT_EQ(roundTrip(INT, std::vector<int>{-2147483647 - 1, -1, 0, 7, 2147483647, 42}),
            (std::vector<int>{-2147483647 - 1, -1, 0, 7, 2147483647, 42}));
  EXPECT_EQ(roundTrip(UNSIGNED_INT, std::vector<unsigned>{0u, 4294967295u, 12u, 3u}),
            (std::vector<unsigned>{0u, 4294967295u, 12u, 3u}));
  EXPECT_EQ(roundTrip(SHORT, std::vector<short>{-32768, 32767, 0, -1}),
            (std::vector<short>{-32768, 32767, 0, -1}));
  EXPECT_EQ(roundTrip(UNSIGNED_SHORT, std::vector<unsigned short>{65535, 0, 1, 2, 3}),
            (std::vector<unsigned short>{65535, 0, 1, 2, 3}));
  EXPECT_EQ(roundTrip(LONGLONG, std::vector<long long>{-(1LL << 62), 1LL << 40, -5}),
            (std::vector<long long>{-(1LL << 62), 1LL << 40, -5}));
}

TEST(HostIo, CharAndBoolRoundTrip) {
  EXPECT_EQ(roundTrip(UNSIGNED_CHAR, std::vector<unsigned char>{0, 255, 128, 7, 9}),
            (std::vector<unsigned char>{0, 255, 128, 7, 9}));
  EXPECT_EQ(roundTrip(SIGNED_CHAR, std::vector<signed char>{-128, 127, 0, -1}),
            (std::vector<signed char>{-128, 127, 0, -1}));
  // BOOL is one byte holding 0 or 1.
  EXPECT_EQ(roundTrip(BOOL, std::vector<unsigned char>{1, 0, 0, 1}),
            (std::vector<unsigned char>{1, 0, 0, 1}));
}

TEST(HostIo, HalfRoundTripKeepsBits) {
  // 1.0, -2.0, 65504 (max), smallest subnormal, +inf, 0.333 (0x3555).
  std::vector<std::uint16_t> bits = {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x7C00, 0x3555};
  EXPECT_EQ(roundTrip(HALF, bits), bits);
}

TEST(HostIo, HalfConstantReadsBackAsBinary16) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor c = graph.addConstant(HALF, {3}, ArrayRef<float>{1.0f, -0.5f, 1024.0f}, "halves");
  graph.setTileMapping(c, 2);
  Tensor h = graph.addConstantHalf(HALF, {2}, 0x3C01, "rawHalf");
  graph.setTileMapping(h, 1);
  graph.createHostRead("halves", c);
  graph.createHostRead("rawHalf", h);
  Engine e(graph, Sequence());
  e.load(device);
  std::vector<std::uint16_t> got(3), raw(2);
  e.readTensor("halves", got.data(), got.data() + 3);
  e.readTensor("rawHalf", raw.data(), raw.data() + 2);
  // binary16: 1.0 = 0x3C00, -0.5 = 0xB800, 1024 = 0x6400.
  EXPECT_EQ(got, (std::vector<std::uint16_t>{0x3C00, 0xB800, 0x6400}));
  EXPECT_EQ(raw, (std::vector<std::uint16_t>{0x3C01, 0x3C01}));
}

TEST(HostIo, ScatteredTensorKeepsHostOrder) {
  Device device = enginetest::smallDevice(16);
  Graph graph(device.getTarget());
  Tensor t = graph.addVariable(FLOAT, {10, 7}, "t");
  for (std::size_t i = 0; i < 70; ++i)
    graph.setTileMapping(t.flatten()[i], static_cast<unsigned>((i * 7) % 16));
  graph.createHostWrite("t", t);
  graph.createHostRead("t", t);
  Engine e(graph, Sequence());
  e.load(device);
  std::vector<float> in(70), out(70);
  for (std::size_t i = 0; i < 70; ++i)
    in[i] = static_cast<float>(i) * 1.5f - 20;
  e.writeTensor("t", in.data(), in.data() + 70);
  e.readTensor("t", out.data(), out.data() + 70);
  EXPECT_EQ(out, in);
}

TEST(HostIo, ViewHandlesUseViewOrder) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor m = graph.addVariable(INT, {2, 3}, "m");
  poputil::mapTensorLinearly(graph, m, 1, 1);
  graph.createHostWrite("m", m);
  graph.createHostRead("mT", m.transpose());
  graph.createHostRead("lastRowReversed", m[1].reverse(0));
  Engine e(graph, Sequence());
  e.load(device);
  std::vector<int> in = {1, 2, 3, 4, 5, 6}, t(6), r(3);
  e.writeTensor("m", in.data(), in.data() + 6);
  e.readTensor("mT", t.data(), t.data() + 6);
  e.readTensor("lastRowReversed", r.data(), r.data() + 3);
  EXPECT_EQ(t, (std::vector<int>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(r, (std::vector<int>{6, 5, 4}));
}

TEST(HostIo, InitialValuesAndConstantsAfterLoad) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor v = graph.addVariable(FLOAT, {3}, "v");
  graph.setTileMapping(v, 1);
  graph.setInitialValue(v, ArrayRef<float>{9, 8, 7});
  Tensor c = graph.addConstant(INT, {2, 2}, 5, "c");
  graph.setTileMapping(c, 3);
  graph.createHostRead("v", v);
  graph.createHostRead("c", c);
  graph.createHostWrite("vIn", v);
  Engine e(graph, Sequence());
  e.load(device);
  std::vector<float> hv(3);
  std::vector<int> hc(4);
  e.readTensor("v", hv.data(), hv.data() + 3);
  e.readTensor("c", hc.data(), hc.data() + 4);
  EXPECT_EQ(hv, (std::vector<float>{9, 8, 7}));
  EXPECT_EQ(hc, std::vector<int>(4, 5));
  // Loading again restores the initial value.
  std::vector<float> other = {1, 1, 1};
  e.writeTensor("vIn", other.data(), other.data() + 3);
  e.load(device);
  e.readTensor("v", hv.data(), hv.data() + 3);
  EXPECT_EQ(hv, (std::vector<float>{9, 8, 7}));
}

TEST(HostIo, LargerBufferIsAccepted) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor v = graph.addVariable(FLOAT, {2}, "v");
  graph.setTileMapping(v, 0);
  graph.createHostWrite("v", v);
  graph.createHostRead("v", v);
  Engine e(graph, Sequence());
  e.load(device);
  std::vector<float> in = {1, 2, 3, 4}, out = {0, 0, -1, -1};
  e.writeTensor("v", in.data(), in.data() + 4);
  e.readTensor("v", out.data(), out.data() + 4);
  EXPECT_EQ(out, (std::vector<float>{1, 2, -1, -1}));
}

TEST(HostIoErrors, TooSmallBufferNamesHandle) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor v = graph.addVariable(FLOAT, {5}, "v");
  graph.setTileMapping(v, 0);
  graph.createHostWrite("weightsIn", v);
  graph.createHostRead("weightsOut", v);
  Engine e(graph, Sequence());
  e.load(device);
  std::vector<float> buf(4);
  expectThrowWithMessage<stream_connection_error>(
      [&] { e.writeTensor("weightsIn", buf.data(), buf.data() + 4); },
      {"'weightsIn'", "16 bytes", "20"});
  expectThrowWithMessage<stream_connection_error>(
      [&] { e.readTensor("weightsOut", buf.data(), buf.data() + 4); },
      {"'weightsOut'", "16 bytes", "20"});
}

TEST(HostIoErrors, UnknownHandleSuggestsNearest) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor v = graph.addVariable(FLOAT, {1}, "v");
  graph.setTileMapping(v, 0);
  graph.createHostWrite("weights", v);
  graph.createHostRead("biases", v);
  Engine e(graph, Sequence());
  e.load(device);
  float x = 0;
  expectThrowWithMessage<stream_connection_error>(
      [&] { e.writeTensor("weigths", &x, &x + 1); },
      {"writeTensor", "'weigths'", "did you mean 'weights'", "createHostWrite"});
  expectThrowWithMessage<stream_connection_error>(
      [&] { e.readTensor("biasse", &x, &x + 1); },
      {"readTensor", "'biasse'", "did you mean 'biases'", "createHostRead"});
  // A write handle is not a read handle.
  expectThrowWithMessage<stream_connection_error>([&] { e.readTensor("weights", &x, &x + 1); },
                                                  {"'weights'"});
}

TEST(HostIoErrors, BeforeLoadIsStateError) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor v = graph.addVariable(FLOAT, {1}, "v");
  graph.setTileMapping(v, 0);
  graph.createHostWrite("v", v);
  graph.createHostRead("v", v);
  Engine e(graph, Sequence());
  float x = 1;
  expectThrowWithMessage<tensor_io_state_error>([&] { e.writeTensor("v", &x, &x + 1); },
                                                {"writeTensor", "load"});
  expectThrowWithMessage<tensor_io_state_error>([&] { e.readTensor("v", &x, &x + 1); },
                                                {"readTensor", "load"});
}
