// popops::cast to and from QUARTER on the tiles, against the host conversions
// (poplar::convertToDeviceType / convertFromDeviceType with a QuarterMetadata), which the SDK
// tests check against the format definitions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Half.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/MetadataCreation.hpp>
#include <poplar/TypeConversion.hpp>
#include <popops/Cast.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

using namespace poplar;
using namespace poplar::program;
using Format = QuarterMetadata::Format;

namespace {

struct Rig {
  Device device;
  Graph graph;
  Sequence prog;
  explicit Rig(unsigned tiles = 4)
      : device([&] {
          IPUModel m;
          m.tilesPerIPU = tiles;
          return m.createDevice();
        }()),
        graph(device.getTarget()) {
    popops::addCodelets(graph);
  }
};

/// Values spanning a format's range at `md`: exact codes, midpoints (ties), beyond the
/// largest, tiny ones, NaN and infinities, both signs.
std::vector<float> testValues(const QuarterMetadata &md) {
  std::vector<unsigned char> codes(128);
  for (unsigned i = 0; i < 128; ++i)
    codes[i] = static_cast<unsigned char>(i);
  std::vector<float> exact(128);
  convertFromDeviceType(QUARTER, md, codes.data(), ArrayRef<float>(exact));
  std::vector<float> v;
  for (std::size_t i = 0; i + 1 < exact.size(); ++i) {
    v.push_back(exact[i]);
    v.push_back((exact[i] + exact[i + 1]) / 2);
    v.push_back(exact[i] * 0.7f + exact[i + 1] * 0.3f);
  }
  v.push_back(exact.back() * 3);
  v.push_back(std::numeric_limits<float>::quiet_NaN());
  v.push_back(std::numeric_limits<float>::infinity());
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i)
    v.push_back(-v[i]);
  return v;
}

bool sameValue(float a, float b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

} // namespace

// FLOAT -> QUARTER -> FLOAT on the engine gives the host's bytes and values, for both formats
// and several scales; the QUARTER result carries the metadata it was cast with.
TEST(CastQuarter, FloatRoundTripMatchesTheHostConversion) {
  for (Format format : {Format::F143, Format::F152})
    for (int scale : {-31, -5, 0, 3, 31}) {
      const QuarterMetadata md(format, static_cast<signed char>(scale));
      const auto values = testValues(md);
      Rig r(4);
      Tensor x = r.graph.addVariable(FLOAT, {values.size()}, "x");
      poputil::mapTensorLinearly(r.graph, x, 1, 1);
      r.graph.createHostWrite("x", x);
      Tensor metadata = createConstantMetadataTensor(r.graph, format, scale);
      Tensor q = popops::cast(r.graph, x, QUARTER, metadata, r.prog, "toQuarter");
      EXPECT_EQ(q.getMetadata(), metadata);
      EXPECT_EQ(r.graph.getTileMapping(q), r.graph.getTileMapping(x));
      Tensor back = popops::cast(r.graph, q, FLOAT, r.prog, "toFloat");
      r.graph.createHostRead("q", q);
      r.graph.createHostRead("back", back);
      Engine engine(r.graph, r.prog);
      engine.load(r.device);
      engine.writeTensor("x", values.data(), values.data() + values.size());
      engine.run();
      std::vector<unsigned char> bytes(values.size());
      QuarterMetadata gotMd;
      engine.readTensor("q", gotMd, bytes.data(), bytes.data() + bytes.size());
      std::vector<float> floats(values.size());
      engine.readTensor("back", floats.data(), floats.data() + floats.size());
      EXPECT_EQ(gotMd, md);
      std::vector<unsigned char> expected(values.size());
      convertToDeviceType(QUARTER, md, ArrayRef<float>(values), expected.data());
      std::vector<float> expectedFloats(values.size());
      convertFromDeviceType(QUARTER, md, expected.data(), ArrayRef<float>(expectedFloats));
      for (std::size_t i = 0; i < values.size(); ++i) {
        EXPECT_EQ(bytes[i], expected[i]) << md << " input " << values[i];
        EXPECT_TRUE(sameValue(floats[i], expectedFloats[i])) << md << " input " << values[i];
      }
    }
}

TEST(CastQuarter, HalfRoundTripAndWithOutput) {
  const QuarterMetadata md(Format::F152, -7);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-0.4f, 0.4f);
  std::vector<half> values(200);
  for (auto &v : values)
    v = half(dist(rng));
  Rig r(4);
  Tensor x = r.graph.addVariable(HALF, {10, 20}, "x");
  poputil::mapTensorLinearly(r.graph, x, 1, 1);
  r.graph.createHostWrite("x", x);
  Tensor metadata = createVariableMetadataTensor(r.graph, md.getFormat(), md.getScale());
  // cast into an existing QUARTER tensor (transposed, to cross tiles), then back to HALF.
  Tensor q = r.graph.addVariable(QUARTER, metadata, {20, 10}, "q");
  poputil::mapTensorLinearly(r.graph, q, 1, 1);
  popops::cast(r.graph, x.transpose(), q, r.prog, "toQuarter");
  Tensor back = popops::cast(r.graph, q, HALF, r.prog, "toHalf");
  r.graph.createHostRead("back", back);
  Engine engine(r.graph, r.prog);
  engine.load(r.device);
  engine.writeTensor("x", values.data(), values.data() + values.size());
  engine.run();
  std::vector<half> got(200);
  engine.readTensor("back", got.data(), got.data() + got.size());
  std::vector<half> transposed(200);
  for (unsigned i = 0; i < 10; ++i)
    for (unsigned j = 0; j < 20; ++j)
      transposed[j * 10 + i] = values[i * 20 + j];
  std::vector<unsigned char> expected(200);
  convertToDeviceType(QUARTER, md, ArrayRef<half>(transposed), expected.data());
  std::vector<half> expectedBack(200);
  convertFromDeviceType(QUARTER, md, expected.data(), ArrayRef<half>(expectedBack));
  for (std::size_t i = 0; i < 200; ++i)
    EXPECT_EQ(got[i].bits, expectedBack[i].bits)
        << "element " << i << " from " << float(transposed[i]);
}

// QUARTER -> QUARTER under other metadata re-encodes; a QUARTER source written with one
// metadata by the host, read under another after the cast.
TEST(CastQuarter, QuarterToQuarterReencodes) {
  const QuarterMetadata inMd(Format::F143, 2), outMd(Format::F152, -1);
  const std::vector<float> values = {4.0f, -8.0f, 12.0f, 0.0f, 100.0f, -0.5f, 960.0f, 1.0f};
  Rig r(2);
  Tensor q = r.graph.addVariable(QUARTER, {8}, "q");
  poputil::mapTensorLinearly(r.graph, q, 1, 1);
  r.graph.createHostWrite("q", q);
  Tensor outMetadata = createConstantMetadataTensor(r.graph, outMd.getFormat(), outMd.getScale());
  Tensor out = popops::cast(r.graph, q, QUARTER, outMetadata, r.prog, "requantize");
  r.graph.createHostRead("out", out);
  Engine engine(r.graph, r.prog);
  engine.load(r.device);
  std::vector<unsigned char> in(8);
  convertToDeviceType(QUARTER, inMd, ArrayRef<float>(values), in.data());
  engine.writeTensor("q", inMd, in.data(), in.data() + in.size());
  engine.run();
  std::vector<unsigned char> got(8);
  QuarterMetadata gotMd;
  engine.readTensor("out", gotMd, got.data(), got.data() + got.size());
  EXPECT_EQ(gotMd, outMd);
  std::vector<float> decoded(8), expected(8);
  convertFromDeviceType(QUARTER, inMd, in.data(), ArrayRef<float>(decoded));
  std::vector<unsigned char> expectedBytes(8);
  convertToDeviceType(QUARTER, outMd, ArrayRef<float>(decoded), expectedBytes.data());
  EXPECT_EQ(got, expectedBytes);
}

TEST(CastQuarter, QuarterToIntGoesThroughFloat) {
  const QuarterMetadata md(Format::F143, 0);
  const std::vector<float> values = {1.0f, -3.0f, 7.5f, 240.0f};
  Rig r(2);
  Tensor q = r.graph.addVariable(QUARTER, {4}, "q");
  poputil::mapTensorLinearly(r.graph, q, 1, 1);
  r.graph.createHostWrite("q", q);
  Tensor i = popops::cast(r.graph, q, INT, r.prog, "toInt");
  r.graph.createHostRead("i", i);
  Engine engine(r.graph, r.prog);
  engine.load(r.device);
  std::vector<unsigned char> in(4);
  convertToDeviceType(QUARTER, md, ArrayRef<float>(values), in.data());
  engine.writeTensor("q", md, in.data(), in.data() + in.size());
  engine.run();
  std::vector<int> got(4);
  engine.readTensor("i", got.data(), got.data() + got.size());
  EXPECT_EQ(got, (std::vector<int>{1, -3, 7, 240}));
}

TEST(CastQuarter, ErrorsNameTheCulprit) {
  Rig r(2);
  Tensor x = r.graph.addVariable(FLOAT, {4}, "x");
  poputil::mapTensorLinearly(r.graph, x);
  Tensor wrong = r.graph.addVariable(UNSIGNED_CHAR, {}, "wrongMetadata");
  try {
    popops::cast(r.graph, x, QUARTER, wrong, r.prog);
    ADD_FAILURE() << "a metadata tensor of the wrong type was accepted";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("unsigned char[]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("quarter_metadata"), std::string::npos) << e.what();
  }
  try {
    popops::cast(r.graph, x, QUARTER, r.prog);
    ADD_FAILURE() << "a cast to QUARTER without metadata was accepted";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("QUARTER_METADATA"), std::string::npos) << e.what();
  }
  Tensor q = r.graph.addVariable(QUARTER, {5}, "q");
  try {
    popops::cast(r.graph, x, q, r.prog);
    ADD_FAILURE() << "a shape mismatch was accepted";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("shapes differ"), std::string::npos) << e.what();
  }
}
