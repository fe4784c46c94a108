// popops::cast between QUARTER and the 32-, 16- and 8-bit integer types in one compute set
// (the ComputeSet forms, which convert through float inside the vertex) give the bits of the
// program forms (which decode to FLOAT, then cast, in two steps), for both quarter formats, on
// one tile and spread over 16 tiles, with 1 and 2 host threads alike.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/MetadataCreation.hpp>
#include <popops/Cast.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

using namespace poplar;
using namespace poplar::program;
using Format = QuarterMetadata::Format;

namespace {

const Type kIntegerTypes[] = {INT,         UNSIGNED_INT,  BOOL,  CHAR,
                              SIGNED_CHAR, UNSIGNED_CHAR, SHORT, UNSIGNED_SHORT};

/// Float inputs covering the integer ranges' edges once quantised to quarter: small values and
/// fractions of both signs, beyond 127, 255 and 32767, NaN and infinities.
std::vector<float> inputValues() {
  std::vector<float> v;
  for (int i = -40; i <= 40; ++i)
    v.push_back(static_cast<float>(i) * 0.75f);
  for (float x : {100.0f, 127.0f, 128.0f, 200.0f, 255.0f, 256.0f, 300.0f, 1000.0f, 30000.0f,
                  40000.0f, 57344.0f, 70000.0f, 1e9f})
    for (float s : {1.0f, -1.0f})
      v.push_back(s * x);
  v.push_back(std::numeric_limits<float>::quiet_NaN());
  v.push_back(std::numeric_limits<float>::infinity());
  v.push_back(-std::numeric_limits<float>::infinity());
  return v;
}

struct Result {
  std::vector<std::vector<unsigned char>> bytes; // one buffer per read, in order of `reads`
};

/// For each integer type: x (FLOAT) → quarter q (program form) → the integer type in a compute
/// set ("ic") and in a program ("ip"); then ip → quarter in a compute set ("qc") and in a
/// program ("qp"). Returns every read's bytes, with `tiles` tiles and `threads` host threads.
Result run(Format format, int scale, unsigned tiles, unsigned threads,
           std::vector<std::string> &reads) {
  IPUModel model;
  model.tilesPerIPU = tiles;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  Sequence prog;
  const auto values = inputValues();
  Tensor x = graph.addVariable(FLOAT, {values.size()}, "x");
  poputil::mapTensorLinearly(graph, x, 1, 1);
  graph.createHostWrite("x", x);
  Tensor md = createConstantMetadataTensor(graph, format, scale);
  Tensor q = popops::cast(graph, x, QUARTER, md, prog, "q");
  reads.clear();
  std::vector<std::size_t> sizes;
  for (const Type &t : kIntegerTypes) {
    const std::string name = t.toString();
    ComputeSet fromQuarter = graph.addComputeSet("fromQuarter " + name);
    Tensor ic = popops::cast(graph, q, t, fromQuarter, "ic " + name);
    prog.add(Execute(fromQuarter));
    Tensor ip = popops::cast(graph, q, t, prog, "ip " + name);
    ComputeSet toQuarter = graph.addComputeSet("toQuarter " + name);
    Tensor qc = popops::cast(graph, ip, QUARTER, md, toQuarter, "qc " + name);
    prog.add(Execute(toQuarter));
    Tensor qp = popops::cast(graph, ip, QUARTER, md, prog, "qp " + name);
    for (const auto &[label, t2] : {std::pair<std::string, Tensor>{"ic ", ic},
                                    {"ip ", ip},
                                    {"qc ", qc.reinterpret(UNSIGNED_CHAR)},
                                    {"qp ", qp.reinterpret(UNSIGNED_CHAR)}}) {
      reads.push_back(label + name);
      graph.createHostRead(reads.back(), t2);
      sizes.push_back(t2.numElements() * graph.getTarget().getTypeSize(t2.elementType()));
    }
  }
  OptionFlags options;
  options.set("target.hostThreads", std::to_string(threads));
  Engine engine(graph, prog, options);
  engine.load(device);
  engine.writeTensor("x", values.data(), values.data() + values.size());
  engine.run();
  Result r;
  for (std::size_t i = 0; i < reads.size(); ++i) {
    r.bytes.emplace_back(sizes[i]);
    engine.readTensor(reads[i], r.bytes.back().data(), r.bytes.back().data() + sizes[i]);
  }
  return r;
}

/// The value of the `k`th element of an integer read of type `t`.
double element(const std::vector<unsigned char> &bytes, const Type &t, std::size_t k) {
  const unsigned char *p = bytes.data();
  if (t == INT)
    return reinterpret_cast<const std::int32_t *>(p)[k];
  if (t == UNSIGNED_INT)
    return reinterpret_cast<const std::uint32_t *>(p)[k];
  if (t == SHORT)
    return reinterpret_cast<const std::int16_t *>(p)[k];
  if (t == UNSIGNED_SHORT)
    return reinterpret_cast<const std::uint16_t *>(p)[k];
  if (t == CHAR || t == SIGNED_CHAR)
    return static_cast<signed char>(p[k]);
  return p[k];
}

} // namespace

TEST(CastQuarterInteger, ComputeSetFormGivesTheProgramFormsBits) {
  for (Format format : {Format::F143, Format::F152})
    for (unsigned tiles : {1u, 16u}) {
      SCOPED_TRACE(std::string(format == Format::F143 ? "F143" : "F152") + " on " +
                   std::to_string(tiles) + " tiles");
      std::vector<std::string> reads;
      const Result r = run(format, format == Format::F143 ? 2 : 0, tiles, 1, reads);
      ASSERT_EQ(reads.size() % 4, 0u);
      for (std::size_t i = 0; i < reads.size(); i += 4) {
        EXPECT_EQ(r.bytes[i], r.bytes[i + 1]) << reads[i] << " vs " << reads[i + 1];
        EXPECT_EQ(r.bytes[i + 2], r.bytes[i + 3]) << reads[i + 2] << " vs " << reads[i + 3];
      }
    }
}

// The integer results follow the conversions written in popops/Cast.hpp: truncation toward
// zero and saturation to the type's range; bool is x != 0.
TEST(CastQuarterInteger, ResultsTruncateAndSaturate) {
  std::vector<std::string> reads;
  const Result r = run(Format::F152, 0, 4, 1, reads);
  const auto values = inputValues();
  for (std::size_t ti = 0; ti < std::size(kIntegerTypes); ++ti) {
    const Type &t = kIntegerTypes[ti];
    const auto &ic = r.bytes[4 * ti];
    // 1e9 saturates (F152's largest finite value is 57344, so it becomes 57344 or +inf).
    const std::size_t bigIndex = values.size() - 5; // +1e9
    ASSERT_EQ(values[bigIndex], 1e9f);
    if (t == BOOL) {
      EXPECT_EQ(element(ic, t, 40), 0.0) << "bool of 0";
      EXPECT_EQ(element(ic, t, 41), 1.0) << "bool of 0.75";
      continue;
    }
    // -0.75 and 0.75 truncate to 0 (both exact in F152).
    EXPECT_EQ(element(ic, t, 39), 0.0) << t.toString();
    EXPECT_EQ(element(ic, t, 41), 0.0) << t.toString();
    // 1.5 truncates to 1.
    EXPECT_EQ(element(ic, t, 42), 1.0) << t.toString();
    const double hi = t == INT              ? 2147483647.0
                      : t == UNSIGNED_INT   ? 4294967295.0
                      : t == SHORT          ? 32767.0
                      : t == UNSIGNED_SHORT ? 65535.0
                      : t == UNSIGNED_CHAR  ? 255.0
                                            : 127.0;
    if (t == INT || t == UNSIGNED_INT || t == UNSIGNED_SHORT)
      EXPECT_LE(element(ic, t, bigIndex), hi) << t.toString();
    else
      EXPECT_EQ(element(ic, t, bigIndex), hi) << t.toString();
  }
}

TEST(CastQuarterInteger, OneAndTwoHostThreadsAgreeBitForBit) {
  std::vector<std::string> reads1, reads2;
  const Result one = run(Format::F143, -1, 16, 1, reads1);
  const Result two = run(Format::F143, -1, 16, 2, reads2);
  ASSERT_EQ(reads1, reads2);
  for (std::size_t i = 0; i < reads1.size(); ++i)
    EXPECT_EQ(one.bytes[i], two.bytes[i]) << reads1[i];
}

TEST(CastQuarterInteger, LongLongAndMissingMetadataAreRefusedNamingTheTensor) {
  IPUModel model;
  model.tilesPerIPU = 1;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  Tensor md = createConstantMetadataTensor(graph, Format::F143, 0);
  Tensor x = graph.addVariable(FLOAT, {4}, "x");
  graph.setTileMapping(x, 0);
  Sequence prog;
  Tensor q = popops::cast(graph, x, QUARTER, md, prog, "quarters");
  Tensor longs = graph.addVariable(LONGLONG, {4}, "longs");
  graph.setTileMapping(longs, 0);
  Tensor ints = graph.addVariable(INT, {4}, "ints");
  graph.setTileMapping(ints, 0);
  ComputeSet cs = graph.addComputeSet("cs");
  const auto expectNaming = [](const std::function<void()> &f, const std::string &needle) {
    try {
      f();
      FAIL() << "expected poplibs_error naming " << needle;
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expectNaming([&] { popops::cast(graph, q, LONGLONG, cs); }, "long long");
  expectNaming([&] { popops::cast(graph, longs, QUARTER, md, cs); }, "'longs'");
  // A QUARTER destination needs metadata: the form without it is refused for integers too.
  expectNaming([&] { popops::cast(graph, ints, QUARTER, cs); }, "metadata");
}
