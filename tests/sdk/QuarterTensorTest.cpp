// QUARTER tensors in the graph and the engine: metadata tensors (MetadataCreation.hpp), views
// and clones keeping their metadata, host reads and writes with a QuarterMetadata, PrintTensor,
// executables, and the refusals that name the culprit.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Executable.hpp>
#include <poplar/MetadataCreation.hpp>
#include <poplar/Quarter.hpp>
#include <poplar/TypeConversion.hpp>

#include "EngineErrorMatchers.hpp"
#include "ErrorMatchers.hpp"

using namespace poplar;
using namespace poplar::program;
using Format = QuarterMetadata::Format;

TEST(QuarterTensor, VariableWithMetadataKeepsItThroughViewsAndClones) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor md = createVariableMetadataTensor(graph, Format::F143, -2, "md");
  EXPECT_EQ(md.elementType(), QUARTER_METADATA);
  EXPECT_EQ(md.numElements(), 1u);
  Tensor q = graph.addVariable(QUARTER, md, {4, 6}, "q");
  EXPECT_TRUE(q.hasMetadata());
  EXPECT_EQ(q.getMetadata(), md);
  EXPECT_EQ(q.slice(1, 3, 1).getMetadata(), md);
  EXPECT_EQ(q.transpose().reshape({6, 4})[2].getMetadata(), md);
  EXPECT_EQ(concat(q.slice(0, 1), q.slice(3, 4)).getMetadata(), md);
  EXPECT_EQ(graph.clone(q, "copy").getMetadata(), md);
  EXPECT_FALSE(graph.clone(HALF, q, "asHalf").hasMetadata());
  EXPECT_FALSE(graph.addVariable(FLOAT, {2}).hasMetadata());
  EXPECT_FALSE(q.reinterpret(UNSIGNED_CHAR).hasMetadata());
  Tensor mapped = graph.addVariable(QUARTER, md, {8}, VariableMappingMethod::LINEAR, "mapped");
  EXPECT_EQ(mapped.getMetadata(), md);
  EXPECT_EQ(graph.getTileMapping(mapped).size(), 4u);
}

// Poplar's own tests add QUARTER variables without metadata and set it later (a Copy into
// getMetadata(), or Engine::writeTensor with a QuarterMetadata): such a variable gets a
// metadata variable of its own.
TEST(QuarterTensor, VariableWithoutMetadataGetsItsOwn) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor a = graph.addVariable(QUARTER, {4}, "a");
  Tensor b = graph.addVariable(QUARTER, {4}, "b");
  ASSERT_TRUE(a.hasMetadata());
  EXPECT_EQ(a.getMetadata().elementType(), QUARTER_METADATA);
  EXPECT_NE(a.getMetadata(), b.getMetadata());
}

TEST(QuarterTensor, MetadataErrorsNameTheCulprit) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  EXPECT_TRUE(testerrors::throwsWithMessage<type_error>(
      [&] { graph.addVariable(QUARTER, Tensor(), {4}, "weights"); },
      {"'weights'", "metadata tensor is invalid"}));
  Tensor notMetadata = graph.addVariable(UNSIGNED_CHAR, {}, "scaleByte");
  EXPECT_TRUE(testerrors::throwsWithMessage<type_error>(
      [&] { graph.addVariable(QUARTER, notMetadata, {4}, "weights"); },
      {"'weights'", "'scaleByte'", "quarter_metadata"}));
  Tensor twoMetadata = graph.addVariable(QUARTER_METADATA, {2}, "pair");
  EXPECT_TRUE(testerrors::throwsWithMessage<type_error>(
      [&] { graph.addVariable(QUARTER, twoMetadata, {4}, "weights"); }, {"'pair'", "one element"}));
  Tensor md = createConstantMetadataTensor(graph, Format::F152, 3);
  EXPECT_TRUE(testerrors::throwsWithMessage<type_error>(
      [&] { graph.addVariable(HALF, md, {4}, "h"); }, {"'h'", "half", "only types that require"}));
  EXPECT_TRUE(testerrors::throwsWithMessage<type_error>(
      [&] { graph.addConstant<float>(QUARTER, {2}, 1.0f, "k"); }, {"'k'", "without metadata"}));
  EXPECT_TRUE(testerrors::throwsWithMessage<index_error>(
      [&] { createConstantMetadataTensor(graph, Format::F143, 32); },
      {"fp8Scale 32", "[-31, 31]"}));
  EXPECT_TRUE(testerrors::throwsWithMessage<index_error>(
      [&] { createVariableMetadataTensor(graph, Format::F143, -32); }, {"fp8Scale -32"}));
  Sequence prog;
  Tensor scale = graph.addConstant<int>(INT, {}, 1);
  EXPECT_TRUE(testerrors::throwsWithMessage<type_error>(
      [&] { setMetadataTensor(graph, Format::F143, scale, notMetadata, prog); },
      {"'scaleByte'", "quarter_metadata"}));
}

namespace {
std::vector<unsigned char> quarters(const QuarterMetadata &md, const std::vector<float> &v) {
  std::vector<unsigned char> out(v.size());
  convertToDeviceType(QUARTER, md, ArrayRef<float>(v), out.data());
  return out;
}
} // namespace

TEST(QuarterTensor, HostWriteAndReadCarryTheMetadata) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor q = graph.addVariable(QUARTER, {8}, VariableMappingMethod::LINEAR, "q");
  Tensor f = graph.addVariable(FLOAT, {2}, VariableMappingMethod::LINEAR, "f");
  graph.createHostWrite("q", q);
  graph.createHostRead("q", q);
  graph.createHostWrite("f", f);
  Engine engine(graph, Sequence());
  engine.load(device);
  const QuarterMetadata md(Format::F143, -3);
  const auto bytes = quarters(md, {0.5f, 1.0f, -2.0f, 0.125f, 3.0f, 0.0f, -0.25f, 7.5f});
  engine.writeTensor("q", md, bytes.data(), bytes.data() + bytes.size());
  engine.run();
  std::vector<unsigned char> back(8);
  QuarterMetadata readMd;
  engine.readTensor("q", readMd, back.data(), back.data() + back.size());
  EXPECT_EQ(readMd, md);
  EXPECT_EQ(back, bytes);
  float two[2] = {};
  EXPECT_TRUE(testerrors::throwsWithMessage<type_error>(
      [&] { engine.writeTensor("f", md, two, two + 2); }, {"'f'", "no metadata"}));
}

TEST(QuarterTensor, SetMetadataTensorFromARunTimeScale) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor scale = graph.addVariable(SIGNED_CHAR, {}, "scale");
  graph.setTileMapping(scale, 1);
  graph.createHostWrite("scale", scale);
  Sequence prog;
  Tensor md = createVariableMetadataTensor(graph, Format::F152, scale, prog, "md");
  Tensor q = graph.addVariable(QUARTER, md, {2}, VariableMappingMethod::LINEAR, "q");
  graph.createHostRead("q", q);
  Engine engine(graph, prog);
  engine.load(device);
  for (signed char s : {-31, -5, 0, 7, 31}) {
    engine.writeTensor("scale", &s, &s + 1);
    engine.run();
    QuarterMetadata got;
    unsigned char bytes[2];
    engine.readTensor("q", got, bytes, bytes + 2);
    EXPECT_EQ(got, QuarterMetadata(Format::F152, s));
  }
  const signed char bad = 32;
  engine.writeTensor("scale", &bad, &bad + 1);
  EXPECT_TRUE(testerrors::throwsWithMessage<application_runtime_error>(
      [&] { engine.run(); }, {"'scale'", "out of range"}));
}

TEST(QuarterTensor, PrintTensorShowsValuesAsFloats) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor md = createConstantMetadataTensor(graph, Format::F143, -1);
  Tensor q = graph.addVariable(QUARTER, md, {2, 2}, "q");
  graph.setTileMapping(q, 2);
  graph.createHostWrite("q", q);
  Engine engine(graph, PrintTensor("q", q));
  engine.load(device);
  // Scale -1 halves: stored 2, 3, -1, 0.5 print as 1, 1.5, -0.5, 0.25.
  const auto bytes = quarters(QuarterMetadata(Format::F143, 0), {2.0f, 3.0f, -1.0f, 0.5f});
  engine.writeTensor("q", bytes.data(), bytes.data() + bytes.size());
  testing::internal::CaptureStdout();
  engine.run();
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("1.0000000"), std::string::npos) << out;
  EXPECT_NE(out.find("1.5000000"), std::string::npos) << out;
  EXPECT_NE(out.find("-0.5000000"), std::string::npos) << out;
  EXPECT_NE(out.find("0.2500000"), std::string::npos) << out;
  EXPECT_NE(out.find("q: ["), std::string::npos) << out;
}

TEST(QuarterTensor, ExecutableRoundTripKeepsQuarterTypes) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor q = graph.addVariable(QUARTER, {4}, VariableMappingMethod::LINEAR, "q");
  Tensor r = graph.addVariable(QUARTER, q.getMetadata(), {4}, VariableMappingMethod::LINEAR, "r");
  graph.createHostWrite("q", q);
  graph.createHostRead("r", r);
  Sequence prog({Copy(q, r), PrintTensor("r", r)});
  std::stringstream bytes;
  compileGraph(graph, {prog}).serialize(bytes);
  Executable exe = Executable::deserialize(bytes);
  Engine engine(std::move(exe));
  engine.load(device);
  const QuarterMetadata md(Format::F152, 2);
  const auto in = quarters(md, {4.0f, -8.0f, 16.0f, 0.0f});
  engine.writeTensor("q", md, in.data(), in.data() + in.size());
  testing::internal::CaptureStdout();
  engine.run();
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("r: [ 4.000000 -8.000000 16.000000  0.000000]"), std::string::npos) << out;
  std::vector<unsigned char> back(4);
  QuarterMetadata readMd;
  engine.readTensor("r", readMd, back.data(), back.data() + back.size());
  EXPECT_EQ(readMd, md);
  EXPECT_EQ(back, in);
}

TEST(QuarterTensor, TargetKnowsTheQuarterType) {
  Device device = enginetest::smallDevice(4);
  const Target &target = device.getTarget();
  EXPECT_EQ(target.getTypeSize(QUARTER), 1u);
  EXPECT_EQ(target.getTypeSize(QUARTER_METADATA), 1u);
  EXPECT_EQ(target.getNumConvUnits(QUARTER, HALF), target.getNumConvUnits(UNSIGNED_CHAR, HALF));
  EXPECT_TRUE(testerrors::throwsWithMessage<type_error>(
      [&] { target.getTypeLimitsMaxAs<double>(QUARTER); }, {"quarter", "metadata"}));
}

// Type ids are stored as numbers: QUARTER (16) and QUARTER_METADATA (17) read back; the
// host-only ids and the first id past them are refused as corrupt.
TEST(QuarterTensor, ExecutableTypeIdsAreValidatedOnRead) {
  Device device = enginetest::smallDevice(4);
  Graph graph(device.getTarget());
  Tensor q = graph.addVariable(QUARTER, {4}, VariableMappingMethod::LINEAR, "q");
  std::stringstream out;
  compileGraph(graph, {PrintTensor("QTYPEMARK", q)}).serialize(out);
  std::string bytes = out.str();
  // PrintPlan: title (field 1), then the tensor image (field 2) whose field 1 is the type id.
  const auto at = bytes.find("QTYPEMARK");
  ASSERT_NE(at, std::string::npos);
  const std::size_t typeAt = at + 9 + 3;
  ASSERT_LT(typeAt, bytes.size());
  ASSERT_EQ(bytes[at + 9], '\x12');
  ASSERT_EQ(bytes[at + 11], '\x08');
  ASSERT_EQ(static_cast<unsigned>(bytes[typeAt]), static_cast<unsigned>(TypeId::Quarter));
  for (TypeId id : {TypeId::Quarter, TypeId::QuarterMetadata}) {
    bytes[typeAt] = static_cast<char>(id);
    std::istringstream in(bytes);
    EXPECT_NO_THROW(Executable::deserialize(in));
  }
  for (TypeId id : {TypeId::Long, TypeId::UnsignedLong, TypeId::Double}) { // host-only types
    bytes[typeAt] = static_cast<char>(id);
    std::istringstream in(bytes);
    EXPECT_TRUE(testerrors::throwsWithMessage<parse_error>(
        [&] { Executable::deserialize(in); }, {"an element type no device holds"}));
  }
  bytes[typeAt] = static_cast<char>(kNumTypeIds);
  std::istringstream in(bytes);
  EXPECT_TRUE(testerrors::throwsWithMessage<parse_error>([&] { Executable::deserialize(in); },
                                                         {"unknown element type"}));
}
