// Graph::serializeTensors / deserializeTensors and Graph::serialize: round trips in both formats
// (shapes, types, tile mappings, aliasing and, through an engine, values), and damaged streams,
// which must only ever throw poplar errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <sstream>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/SerializationFormat.hpp>

#include "ErrorMatchers.hpp"
#include "ViewReference.hpp"

using namespace poplar;
using testerrors::throwsWithMessage;

namespace {

/// The test's own FNV-1a 64 (the documented checksum of the Binary form), to reseal mutated
/// payloads so that the checks behind the checksum are reached too.
std::uint64_t referenceFnv1a(const std::string &bytes, std::size_t from) {
  std::uint64_t h = 14695981039346656037ull;
  for (std::size_t i = from; i < bytes.size(); ++i) {
    h ^= static_cast<unsigned char>(bytes[i]);
    h *= 1099511628211ull;
  }
  return h;
}

/// `bytes` (Binary form) with its header's length and checksum recomputed for its payload.
std::string reseal(std::string bytes) {
  if (bytes.size() < 24)
    return bytes;
  const std::uint64_t length = bytes.size() - 24, sum = referenceFnv1a(bytes, 24);
  for (int i = 0; i < 8; ++i) {
    bytes[8 + i] = static_cast<char>((length >> (8 * i)) & 0xff);
    bytes[16 + i] = static_cast<char>((sum >> (8 * i)) & 0xff);
  }
  return bytes;
}

class TensorSerialization : public ::testing::TestWithParam<SerializationFormat> {
protected:
  TensorSerialization() : device(viewref::smallDevice(4)) {}

  /// A source graph with two variables mapped over tiles, initial values, and three tensors:
  /// a transposed view, a slice of the other, and a view that aliases the first.
  void buildSource(Graph &g) {
    Tensor a = g.addVariable(FLOAT, {3, 4}, "a");
    Tensor b = g.addVariable(INT, {6}, "b");
    g.setTileMapping(a.slice(0, 2), 1);
    g.setTileMapping(a.slice(2, 3), 3);
    g.setTileMapping(b, 2);
    std::vector<float> av(12);
    for (unsigned i = 0; i < 12; ++i)
      av[i] = 0.5f * static_cast<float>(i) - 1.0f;
    g.setInitialValue(a, ArrayRef<float>(av));
    std::vector<int> bv = {7, -3, 11, 0, 42, 5};
    g.setInitialValue(b, ArrayRef<int>(bv));
    tensors = {a.transpose(), b.slice(1, 5), concat(a[0], a[0])};
  }

  std::string write(const Graph &g, SerializationFormat format) {
    std::ostringstream out;
    g.serializeTensors(out, tensors, format);
    return out.str();
  }

  /// Every element's value, read back through an engine.
  template <class T> std::vector<T> readValues(Graph &g, const Tensor &t, const std::string &h) {
    g.createHostRead(h, t);
    Engine engine(g, program::Sequence{});
    engine.load(device);
    std::vector<T> out(t.numElements());
    engine.readTensor(h, out.data(), out.data() + out.size());
    return out;
  }

  Device device;
  std::vector<Tensor> tensors;
};

/// Tile of each element of `t`, from getTileMapping.
std::vector<unsigned> tilesOf(const Graph &g, const Tensor &t) {
  std::vector<unsigned> tiles(t.numElements(), ~0u);
  const auto m = g.getTileMapping(t, false);
  for (unsigned tile = 0; tile < m.size(); ++tile)
    for (const auto &iv : m[tile])
      for (auto i = iv.begin(); i < iv.end(); ++i)
        tiles[i] = tile;
  return tiles;
}

/// Position i: index of the first element of `t` equal to element i (its alias pattern).
std::vector<std::size_t> aliasPattern(const Tensor &t) {
  const auto elems = viewref::elementsOf(t);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < elems.size(); ++i) {
    std::size_t first = i;
    for (std::size_t j = 0; j < i && first == i; ++j)
      if (elems[j] == elems[i])
        first = j;
    out.push_back(first);
  }
  return out;
}

} // namespace

TEST_P(TensorSerialization, RoundTripKeepsShapesTypesMappingsAliasesAndValues) {
  Graph src(device.getTarget());
  buildSource(src);
  const std::string bytes = write(src, GetParam());

  Graph dst(device.getTarget());
  dst.setTileMapping(dst.addVariable(HALF, {5}, "unrelated"), 0); // ids in dst differ from src's
  std::istringstream in(bytes);
  const auto got = dst.deserializeTensors(in, GetParam());
  ASSERT_EQ(got.size(), tensors.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(viewref::numbered("tensor ", i));
    EXPECT_EQ(got[i].shape(), tensors[i].shape());
    EXPECT_EQ(got[i].elementType(), tensors[i].elementType());
    EXPECT_EQ(tilesOf(dst, got[i]), tilesOf(src, tensors[i]));
    EXPECT_EQ(aliasPattern(got[i]), aliasPattern(tensors[i]));
  }
  // Aliasing across tensors: tensor 2 repeats row 0 of the variable tensor 0 is a view of.
  EXPECT_TRUE(got[2].intersectsWith(got[0]));
  EXPECT_FALSE(got[1].intersectsWith(got[0]));
  // Debug names come back.
  EXPECT_EQ(dst.getDebugStr(got[0].getVarRegions().front().var), "a");

  // Values, through an engine on each graph.
  EXPECT_EQ(readValues<float>(dst, got[0], "t0"), readValues<float>(src, tensors[0], "t0"));
  EXPECT_EQ(readValues<int>(dst, got[1], "t1"), readValues<int>(src, tensors[1], "t1"));
  EXPECT_EQ(readValues<float>(dst, got[2], "t2"), readValues<float>(src, tensors[2], "t2"));
}

TEST_P(TensorSerialization, EmptyListAndScalarRoundTrip) {
  Graph src(device.getTarget());
  Tensor s = src.addVariable(UNSIGNED_INT, {}, "scalar");
  src.setTileMapping(s, 0);
  tensors = {s};
  const std::string bytes = write(src, GetParam());
  Graph dst(device.getTarget());
  std::istringstream in(bytes);
  auto got = dst.deserializeTensors(in, GetParam());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].rank(), 0u);
  EXPECT_EQ(got[0].elementType(), UNSIGNED_INT);

  std::ostringstream none;
  src.serializeTensors(none, {}, GetParam());
  std::istringstream noneIn(none.str());
  EXPECT_TRUE(dst.deserializeTensors(noneIn, GetParam()).empty());
}

TEST_P(TensorSerialization, MutatedBytesOnlyEverThrowPoplarErrors) {
  Graph src(device.getTarget());
  buildSource(src);
  const std::string good = write(src, GetParam());
  const bool binary = GetParam() == SerializationFormat::Binary;
  std::mt19937 rng(1234);
  unsigned refused = 0, accepted = 0;
  for (unsigned iter = 0; iter < 1500; ++iter) {
    std::string bytes = good;
    switch (iter % 4) {
    case 0: // flip bits
      for (unsigned k = 0; k <= iter % 3; ++k)
        bytes[rng() % bytes.size()] ^= static_cast<char>(1u << (rng() % 8));
      break;
    case 1: // truncate
      bytes.resize(rng() % bytes.size());
      break;
    case 2: // overwrite a run with random bytes
      for (std::size_t at = rng() % bytes.size(), n = 1 + rng() % 8; n && at < bytes.size();
           --n, ++at)
        bytes[at] = static_cast<char>(rng());
      break;
    case 3: // insert bytes
      bytes.insert(rng() % bytes.size(), std::string(1 + rng() % 4, static_cast<char>(rng())));
      break;
    }
    // Half of the Binary cases get a valid header again, so that the payload checks run.
    if (binary && iter % 2)
      bytes = reseal(bytes);
    Graph dst(device.getTarget());
    std::istringstream in(bytes);
    try {
      auto got = dst.deserializeTensors(in, GetParam());
      // Whatever was accepted must be usable.
      for (const auto &t : got) {
        (void)dst.getTileMapping(t, false);
        (void)t.getDebugStr();
      }
      ++accepted;
    } catch (const poplar_error &) {
      ++refused;
    }
    // Anything else propagates and fails the test.
  }
  EXPECT_GT(refused, 1000u);
  RecordProperty("accepted", std::to_string(accepted));
}

INSTANTIATE_TEST_SUITE_P(Formats, TensorSerialization,
                         ::testing::Values(SerializationFormat::Binary, SerializationFormat::JSON),
                         [](const auto &info) {
                           return info.param == SerializationFormat::Binary ? "Binary" : "JSON";
                         });

// ---- error paths ----------------------------------------------------------------------------

TEST(TensorSerializationErrors, TruncatedBinaryStreamNamesTheShortfall) {
  Device device = viewref::smallDevice(2);
  Graph g(device.getTarget());
  Tensor a = g.addVariable(FLOAT, {4}, "a");
  g.setTileMapping(a, 0);
  std::ostringstream out;
  g.serializeTensors(out, {a}, SerializationFormat::Binary);
  std::string bytes = out.str();
  std::istringstream truncated(bytes.substr(0, bytes.size() - 3));
  EXPECT_TRUE(throwsWithMessage<parse_error>(
      [&] { g.deserializeTensors(truncated, SerializationFormat::Binary); },
      {"deserializeTensors", "truncated", "payload bytes"}));
  std::istringstream header(bytes.substr(0, 10));
  EXPECT_TRUE(throwsWithMessage<parse_error>(
      [&] { g.deserializeTensors(header, SerializationFormat::Binary); }, {"truncated", "header"}));
  std::istringstream empty("");
  EXPECT_TRUE(throwsWithMessage<parse_error>(
      [&] { g.deserializeTensors(empty, SerializationFormat::Binary); }, {"empty"}));
}

TEST(TensorSerializationErrors, CorruptPayloadFailsTheChecksum) {
  Device device = viewref::smallDevice(2);
  Graph g(device.getTarget());
  Tensor a = g.addVariable(FLOAT, {4}, "a");
  g.setTileMapping(a, 0);
  std::ostringstream out;
  g.serializeTensors(out, {a}, SerializationFormat::Binary);
  std::string bytes = out.str();
  bytes.back() ^= 0x10;
  std::istringstream in(bytes);
  EXPECT_TRUE(throwsWithMessage<parse_error>(
      [&] { g.deserializeTensors(in, SerializationFormat::Binary); }, {"checksum mismatch"}));
}

TEST(TensorSerializationErrors, EditedJsonFailsTheChecksumAndForeignJsonIsNamed) {
  Device device = viewref::smallDevice(2);
  Graph g(device.getTarget());
  Tensor a = g.addVariable(FLOAT, {4}, "weights");
  g.setTileMapping(a, 0);
  std::ostringstream out;
  g.serializeTensors(out, {a}, SerializationFormat::JSON);
  std::string json = out.str();
  ASSERT_NE(json.find("\"weights\""), std::string::npos);
  json.replace(json.find("\"weights\""), 9, "\"biases!\"");
  std::istringstream edited(json);
  EXPECT_TRUE(throwsWithMessage<parse_error>(
      [&] { g.deserializeTensors(edited, SerializationFormat::JSON); }, {"checksum mismatch"}));
  std::istringstream notJson("[1, 2");
  EXPECT_TRUE(throwsWithMessage<parse_error>(
      [&] { g.deserializeTensors(notJson, SerializationFormat::JSON); }, {"JSON does not parse"}));
  std::istringstream other("{\"format\": \"something-else\", \"version\": 1}");
  EXPECT_TRUE(throwsWithMessage<parse_error>(
      [&] { g.deserializeTensors(other, SerializationFormat::JSON); }, {"something-else"}));
  // Reading JSON as Binary says so.
  std::istringstream asBinary(out.str());
  EXPECT_TRUE(throwsWithMessage<parse_error>(
      [&] { g.deserializeTensors(asBinary, SerializationFormat::Binary); }, {"looks like JSON"}));
}

TEST(TensorSerializationErrors, MappingBeyondThisGraphsTilesNamesVariableAndTile) {
  Device big = viewref::smallDevice(8);
  Graph src(big.getTarget());
  Tensor a = src.addVariable(FLOAT, {4}, "farAway");
  src.setTileMapping(a, 6);
  std::ostringstream out;
  src.serializeTensors(out, {a}, SerializationFormat::Binary);
  Device small = viewref::smallDevice(2);
  Graph dst(small.getTarget());
  std::istringstream in(out.str());
  EXPECT_TRUE(throwsWithMessage<invalid_tile_mapping>(
      [&] { dst.deserializeTensors(in, SerializationFormat::Binary); },
      {"'farAway'", "tile 6", "2 tiles"}));
}

TEST(TensorSerializationErrors, BadContentBehindAValidChecksumIsNamed) {
  Device device = viewref::smallDevice(2);
  Graph g(device.getTarget());
  Tensor a = g.addVariable(FLOAT, {4}, "alpha");
  g.setTileMapping(a, 1);
  std::ostringstream out;
  g.serializeTensors(out, {a}, SerializationFormat::Binary);
  const std::string good = out.str();
  // The variable's type is written first, the tensor's second (field order).
  const auto first = good.find("float"), second = good.find("float", first + 1);
  ASSERT_NE(second, std::string::npos);

  std::string badVariableType = good;
  badVariableType.replace(first, 5, "flo@t");
  std::istringstream in1(reseal(badVariableType));
  EXPECT_TRUE(throwsWithMessage<parse_error>(
      [&] { g.deserializeTensors(in1, SerializationFormat::Binary); },
      {"variable 0 'alpha'", "'flo@t'"}));

  std::string otherSize = good;
  otherSize.replace(second, 5, "short");
  std::istringstream in2(reseal(otherSize));
  EXPECT_TRUE(throwsWithMessage<parse_error>(
      [&] { g.deserializeTensors(in2, SerializationFormat::Binary); },
      {"tensor 0", "short", "variable 0 holds float"}));
  // Nothing was added by the failed reads.
  std::istringstream in3(good);
  const auto got = g.deserializeTensors(in3, SerializationFormat::Binary);
  EXPECT_EQ(got[0].getVarRegions()[0].var.id, 1u);
}

TEST(TensorSerializationErrors, TensorOfAnotherGraphIsNamed) {
  Device device = viewref::smallDevice(2);
  Graph g(device.getTarget()), other(device.getTarget());
  Tensor mine = g.addVariable(FLOAT, {2}, "mine");
  Tensor theirs = other.addVariable(FLOAT, {2}, "theirs");
  std::ostringstream out;
  EXPECT_TRUE(throwsWithMessage<graph_connection_error>(
      [&] {
        g.serializeTensors(out, {mine, theirs}, SerializationFormat::Binary);
      },
      {"serializeTensors: tensor 1", "'theirs'", "another graph"}));
}

// ---- the whole graph --------------------------------------------------------------------------

TEST(GraphSerialize, WritesEveryVariableInBothFormats) {
  Device device = viewref::smallDevice(2);
  Graph g(device.getTarget());
  Tensor a = g.addVariable(FLOAT, {2, 2}, "alpha");
  g.setTileMapping(a, 1);
  g.addHostToDeviceFIFO("in", FLOAT, 4);
  std::ostringstream json, binary;
  g.serialize(json, SerializationFormat::JSON);
  g.serialize(binary, {program::Sequence{}}, SerializationFormat::Binary);
  EXPECT_NE(json.str().find("\"alpha\""), std::string::npos);
  EXPECT_NE(json.str().find("\"tessera-graph\""), std::string::npos);
  EXPECT_NE(json.str().find("\"in\""), std::string::npos);
  EXPECT_EQ(binary.str().substr(0, 8), "TSRGRPH1");
  // Its checksum is the documented one.
  const std::string b = binary.str();
  std::uint64_t sum = 0;
  for (int i = 7; i >= 0; --i)
    sum = (sum << 8) | static_cast<unsigned char>(b[16 + i]);
  EXPECT_EQ(sum, referenceFnv1a(b, 24));
}
