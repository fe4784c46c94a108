// Host values of every arithmetic C++ type where Poplar takes them (addConstant, setInitialValue,
// addVertex connection lists), the host-only types LONG and UNSIGNED_LONG, and the host <-> device
// conversions of <poplar/TypeConversion.hpp> and <poplar/Target.hpp> — doubles to halves
// checked against a reference that searches every half for the nearest one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/HalfFloat.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/TypeConversion.hpp>

#include "ErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using testerrors::throwsWithMessage;

namespace {

/// The half nearest to `d` (ties to the even significand; beyond the largest half by half a
/// unit or more, infinity), found by looking at every finite half: independent of the
/// bit-twiddling conversion under test.
std::uint16_t nearestHalfByExhaustiveSearch(double d) {
  if (std::isnan(d))
    return 0x7e00;
  const std::uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  const double a = std::fabs(d);
  if (a >= 65520.0) // midway from the largest half (65504) to the next power, 65536: a tie
                    // there goes to the even 65536, which is infinity
    return sign | 0x7c00;
  static const std::vector<double> finiteHalves = [] {
    std::vector<double> v(0x7c00);
    for (std::uint16_t h = 0; h < 0x7c00; ++h)
      v[h] = static_cast<double>(halfBitsToFloat(h));
    return v;
  }();
  std::uint16_t best = 0;
  double bestErr = std::numeric_limits<double>::infinity();
  for (std::uint16_t h = 0; h < 0x7c00; ++h) {
    const double err = std::fabs(finiteHalves[h] - a);
    if (err < bestErr || (err == bestErr && (h & 1) == 0)) {
      best = h;
      bestErr = err;
    }
  }
  return sign | best;
}

Target ipu2() { return Target::createIPUTarget(1, "ipu2"); }

} // namespace

TEST(HostConversions, DoubleToHalfRoundsOnceEvenWhereGoingThroughFloatWouldRoundTwice) {
  // 1 + 2^-11 is the midpoint of halves 1 and 1 + 2^-10; a hair above it belongs to the upper
  // one, but rounding to float first lands exactly on the midpoint and then ties to 1.
  const double justAbove = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  const double justBelow = 1.0 + std::ldexp(1.0, -11) - std::ldexp(1.0, -40);
  std::vector<double> values = {justAbove,  justBelow, -justAbove, 65519.99,  65520.0, -70000.0,
                                1e-9,       5.96e-8,   2.98e-8,    2.9802322387695312e-08,
                                0.0,        -0.0,      1.0 / 3.0,  std::ldexp(1.0, -25) * 3};
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mant(-1.0, 1.0);
  std::uniform_int_distribution<int> exp(-26, 17);
  for (int i = 0; i < 3000; ++i)
    values.push_back(std::ldexp(mant(rng), exp(rng)));
  std::vector<std::uint16_t> device(values.size());
  copyDoubleToDeviceHalf(ipu2(), values.data(), device.data(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    ASSERT_EQ(device[i], nearestHalfByExhaustiveSearch(values[i])) << values[i];
  EXPECT_EQ(device[0], 0x3c01); // justAbove → 1 + 2^-10
  EXPECT_EQ(device[1], 0x3c00);
}

TEST(HostConversions, HalfToDoubleIsExactForEveryHalf) {
  std::vector<std::uint16_t> all(65536);
  for (std::size_t i = 0; i < all.size(); ++i)
    all[i] = static_cast<std::uint16_t>(i);
  std::vector<double> out(all.size());
  copyDeviceHalfToDouble(ipu2(), all.data(), out.data(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const float f = halfBitsToFloat(all[i]);
    if (std::isnan(f))
      ASSERT_TRUE(std::isnan(out[i])) << i;
    else
      ASSERT_EQ(out[i], static_cast<double>(f)) << i;
  }
}

TEST(HostConversions, ConvertToAndFromDeviceTypeRoundTrip) {
  const std::vector<float> in = {0.5f, -2.0f, 1024.0f, 3.140625f, 65504.0f};
  std::vector<std::uint16_t> bytes(in.size());
  convertToDeviceType(HALF, gccs::ArrayRef(in), bytes.data());
  std::vector<float> back(in.size());
  convertFromDeviceType(HALF, bytes.data(), gccs::ArrayRef(back));
  EXPECT_EQ(back, in); // all exactly representable as halves
  const std::vector<double> d = {1.0 / 3.0, -7.25};
  convertToDeviceType(HALF, ArrayRef<double>(d), bytes.data());
  EXPECT_EQ(bytes[0], nearestHalfByExhaustiveSearch(1.0 / 3.0));
  std::vector<int> asInt(2);
  std::vector<float> asFloat = {-7.9f, 3.2f};
  std::vector<std::int32_t> raw(2);
  convertToDeviceType(INT, gccs::ArrayRef(asFloat), raw.data());
  convertFromDeviceType(INT, raw.data(), gccs::ArrayRef(asInt));
  EXPECT_EQ(asInt, (std::vector<int>{-7, 3})); // C++ conversion: towards zero
}

TEST(HostConversions, AHostOnlyDeviceTypeIsRefused) {
  std::vector<float> in = {1};
  std::uint64_t out = 0;
  EXPECT_TRUE(throwsWithMessage<type_error>(
      [&] { convertToDeviceType(LONG, gccs::ArrayRef(in), &out); },
      {"convertToDeviceType", "'long' is not a device type"}));
  std::vector<float> back(1);
  EXPECT_TRUE(throwsWithMessage<type_error>(
      [&] { convertFromDeviceType(Type(), &out, gccs::ArrayRef(back)); },
      {"convertFromDeviceType", "invalid device type"}));
}

// ---- host values in the graph ---------------------------------------------------------------

namespace {
struct Fixture {
  Device device;
  Graph graph;
  Fixture() : device(IPUModel().createDevice()), graph(device.getTarget()) {
    testvertices::registerTestVertices();
  }
  unsigned runs = 0;
  /// `t`'s values, copied to a variable the host reads.
  template <class T> std::vector<T> run(const Tensor &t) {
    const std::string handle = "copy" + std::to_string(runs++);
    Tensor copy = graph.addVariable(t.elementType(), t.shape(), handle);
    graph.setTileMapping(copy, 0);
    graph.createHostRead(handle, copy);
    Engine engine(graph, program::Copy(t, copy));
    engine.load(device);
    engine.run();
    std::vector<T> host(t.numElements());
    engine.readTensor(handle, host.data(), host.data() + host.size());
    return host;
  }
};
} // namespace

TEST(HostValues, AddConstantTakesDoubleLongAndSizeT) {
  Fixture f;
  Tensor d = f.graph.addConstant(FLOAT, {2}, 0.1); // double → float, rounded once
  Tensor h = f.graph.addConstant(HALF, {1}, 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40));
  Tensor l = f.graph.addConstant(INT, {3}, ArrayRef<long>{-5L, 0L, 2147483647L});
  Tensor z = f.graph.addConstant(UNSIGNED_INT, {}, std::size_t{42});
  Tensor u = f.graph.addConstant<unsigned long>(LONGLONG, {2}, {7ul, 9ul});
  for (Tensor t : {d, h, l, z, u})
    f.graph.setTileMapping(t, 0);
  EXPECT_EQ(f.run<float>(d), (std::vector<float>{0.1f, 0.1f}));
  EXPECT_EQ(f.run<half>(h)[0].bits, 0x3c01);
  EXPECT_EQ(f.run<int>(l), (std::vector<int>{-5, 0, 2147483647}));
  EXPECT_EQ(f.run<unsigned>(z), (std::vector<unsigned>{42}));
  EXPECT_EQ(f.run<long long>(u), (std::vector<long long>{7, 9}));
}

TEST(HostValues, SetInitialValueTakesDoubleAndLong) {
  Fixture f;
  Tensor x = f.graph.addVariable(FLOAT, {3}, "x");
  Tensor n = f.graph.addVariable(INT, {}, "n");
  f.graph.setTileMapping(x, 0);
  f.graph.setTileMapping(n, 0);
  f.graph.setInitialValue(x, ArrayRef<double>{0.25, -1.5, 1e-3});
  f.graph.setInitialValue(n, 123456L);
  EXPECT_EQ(f.run<float>(x), (std::vector<float>{0.25f, -1.5f, float(1e-3)}));
  EXPECT_EQ(f.run<int>(n), (std::vector<int>{123456}));
}

TEST(HostValues, ConnectionListGivesAPlainMemberItsValue) {
  Fixture f;
  Tensor data = f.graph.addVariable(FLOAT, {3}, "data");
  f.graph.setTileMapping(data, 0);
  f.graph.setInitialValue(data, ArrayRef<float>{1, 2, 3});
  ComputeSet cs = f.graph.addComputeSet("scale");
  // A double, an int and a size_t for float members, as Poplar programs write them.
  VertexRef v = f.graph.addVertex(cs, "Scale", {{"data", data}, {"factor", 0.5}});
  f.graph.setTileMapping(v, 0);
  Tensor flag = f.graph.addVariable(BOOL, {}, "flag");
  Tensor c = f.graph.addConstant(INT, {}, 5);
  f.graph.setTileMapping(flag, 0);
  f.graph.setTileMapping(c, 0);
  VertexRef lt = f.graph.addVertex(
      cs, "LessThan", {{"value", c}, {"flag", flag}, {"limit", std::size_t{6}}});
  f.graph.setTileMapping(lt, 0);
  f.graph.createHostRead("data", data);
  f.graph.createHostRead("flag", flag);
  Engine engine(f.graph, program::Execute(cs));
  engine.load(f.device);
  engine.run();
  std::vector<float> host(3);
  engine.readTensor("data", host.data(), host.data() + 3);
  EXPECT_EQ(host, (std::vector<float>{0.5f, 1.0f, 1.5f}));
  bool result = false;
  engine.readTensor("flag", &result, &result + 1);
  EXPECT_TRUE(result); // 5 < 6
}

TEST(HostValues, AConnectionValueForATensorFieldNamesTheField) {
  Fixture f;
  Tensor data = f.graph.addVariable(FLOAT, {3}, "data");
  ComputeSet cs = f.graph.addComputeSet("scale");
  EXPECT_TRUE(throwsWithMessage<graph_connection_error>(
      [&] { f.graph.addVertex(cs, "Scale", {{"data", 2.0}, {"factor", 1.0}}); },
      {"data", "tensor field"}));
}

TEST(HostValues, TensorsOfHostOnlyTypesAreRefusedNamingTheType) {
  Fixture f;
  EXPECT_TRUE(throwsWithMessage<type_error>([&] { f.graph.addVariable(LONG, {2}, "big"); },
                                            {"'big'", "long", "only on the host"}));
  EXPECT_TRUE(throwsWithMessage<type_error>(
      [&] { f.graph.addConstant(UNSIGNED_LONG, {1}, 3ul, "k"); }, {"'k'", "unsigned long"}));
  EXPECT_TRUE(throwsWithMessage<type_error>(
      [&] { f.graph.addHostToDeviceFIFO("in", LONG, 4); }, {"'in'", "long"}));
  EXPECT_EQ(LONG.toString(), "long");
  EXPECT_EQ(UNSIGNED_LONG.size(), sizeof(unsigned long));
  EXPECT_FALSE(LONG.isDeviceType());
  EXPECT_TRUE(LONGLONG.isDeviceType());
  EXPECT_FALSE(FLOAT.requiresMetadata());
}

TEST(HostValues, GraphNamesTheNestedMappingAndConnectionTypes) {
  Fixture f;
  Tensor x = f.graph.addVariable(FLOAT, {4}, "x");
  f.graph.setTileMapping(x, 1);
  Graph::TileToTensorMapping m = f.graph.getTileMapping(x);
  ASSERT_GT(m.size(), 1u);
  EXPECT_EQ(m[1].size(), 1u);
  std::vector<Graph::ConnectionDesc> connections = {{"data", x}, {"factor", 3}};
  EXPECT_EQ(connections.size(), 2u);
}
