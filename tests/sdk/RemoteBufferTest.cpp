// Remote buffers: rows between tensors and host-side buffers through program::Copy (whole
// buffer, one row or several chosen by an offset tensor at run time), the host's
// copyToRemoteBuffer / copyFromRemoteBuffer, a buffer per replica, serialized executables and
// the cache key, the cost model, and every error path.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <poplar/Engine.hpp>
#include <poplar/Executable.hpp>
#include <poplar/IPUModel.hpp>

#include "EngineErrorMatchers.hpp"

using namespace poplar;
using namespace poplar::program;
using enginetest::expectThrowWithMessage;

namespace {

constexpr std::size_t kRows = 4, kCols = 3;
const OptionFlags kNoCache{{"executableCache.enable", "false"}};

/// Row r of the host reference: r*10 + c + 0.5.
std::vector<float> referenceRow(std::size_t r, float base = 0) {
  std::vector<float> row(kCols);
  for (std::size_t c = 0; c < kCols; ++c)
    row[c] = base + float(r * 10 + c) + 0.5f;
  return row;
}

/// A 4 × 3 FLOAT remote buffer "rb" and, on a 4-tile device, tensors to move its rows:
/// `x` (one row, host-writable: the source), `y` (one row, host-readable: the destination),
/// `all` (every row), `pair` (two rows) and the offsets `at` (scalar) and `at2` (two rows),
/// all host-writable or readable under their own names. Programs:
///  0 store: x → rb[at]        1 load: rb[at] → y
///  2 load all: rb → all       3 store all: all → rb
///  4 load pair: rb[at2] → pair  5 store pair: pair → rb[at2]
struct RowGraph {
  Device device;
  Graph graph;
  RemoteBuffer rb;
  Tensor x, y, all, pair, at, at2;
  std::vector<Program> programs;

  explicit RowGraph(unsigned replicas = 1, std::size_t repeats = kRows)
      : device(enginetest::smallDevice(4 * replicas)),
        graph(device.getTarget(), replication_factor(replicas)) {
    rb = graph.addRemoteBuffer("rb", FLOAT, kCols, repeats);
    x = graph.addVariable(FLOAT, {kCols}, "x");
    y = graph.addVariable(FLOAT, {kCols}, "y");
    all = graph.addVariable(FLOAT, {repeats, kCols}, "all");
    pair = graph.addVariable(FLOAT, {2, kCols}, "pair");
    at = graph.addVariable(UNSIGNED_INT, {}, "at");
    at2 = graph.addVariable(UNSIGNED_INT, {2}, "at2");
    graph.setTileMapping(x, 0);
    graph.setTileMapping(y, 1);
    graph.setTileMapping(all.slice(0, 2, 0), 2); // rows spread over two tiles
    graph.setTileMapping(all.slice(2, repeats, 0), 3);
    graph.setTileMapping(pair[0], 1);
    graph.setTileMapping(pair[1], 2);
    graph.setTileMapping(at, 3);
    graph.setTileMapping(at2, 0);
    for (auto [name, t] :
         {std::pair{"x", x}, {"all", all}, {"pair", pair}, {"at", at}, {"at2", at2}})
      graph.createHostWrite(name, t);
    for (auto [name, t] : {std::pair{"y", y}, {"all", all}, {"pair", pair}})
      graph.createHostRead(name, t);
    programs = {Copy(x, rb, at, {"store"}),        Copy(rb, y, at, {"load"}),
                Copy(rb, all, {"loadAll"}),        Copy(all, rb, {"storeAll"}),
                Copy(rb, pair, at2, {"loadPair"}), Copy(pair, rb, at2, {"storePair"})};
  }
};

void writeOffset(Engine &e, unsigned row) { e.writeTensor("at", &row, &row + 1); }
void writeOffsets(Engine &e, std::vector<unsigned> rows) {
  e.writeTensor("at2", rows.data(), rows.data() + rows.size());
}
std::vector<float> readRow(Engine &e, const char *handle, std::size_t n = kCols,
                           unsigned replica = 0) {
  std::vector<float> v(n);
  e.readTensor(handle, replica, v.data(), v.data() + v.size());
  return v;
}
std::vector<float> bufferRow(Engine &e, std::uint64_t row, unsigned replica = 0) {
  std::vector<float> v(kCols);
  e.copyFromRemoteBuffer("rb", v.data(), row, replica);
  return v;
}
std::vector<float> concat(std::initializer_list<std::vector<float>> parts) {
  std::vector<float> out;
  for (const auto &p : parts)
    out.insert(out.end(), p.begin(), p.end());
  return out;
}

} // namespace

TEST(RemoteBuffers, GraphRecordsWhatItWasGiven) {
  Device device = enginetest::smallDevice(2);
  EXPECT_TRUE(device.supportsRemoteBuffers());
  Graph graph(device.getTarget());
  RemoteBuffer a = graph.addRemoteBuffer("a", HALF, 8);
  RemoteBuffer b = graph.addRemoteBuffer("b", INT, 5, 7, true, true);
  EXPECT_EQ(a.handle(), "a");
  EXPECT_EQ(a.elementType(), HALF);
  EXPECT_EQ(a.numElements(), 8u);
  EXPECT_EQ(a.getRepeats(), 1u);
  EXPECT_FALSE(a.isRearrangeOnHost());
  EXPECT_FALSE(a.isOptimisedForMemory());
  EXPECT_EQ(b.getRepeats(), 7u);
  EXPECT_TRUE(b.isRearrangeOnHost());
  EXPECT_TRUE(b.isOptimisedForMemory());
  EXPECT_TRUE(a == a);
  EXPECT_TRUE(a != b);
}

TEST(RemoteBuffers, RowsRoundTripDeviceToBufferToDevice) {
  RowGraph g;
  Engine e(g.graph, g.programs, kNoCache);
  e.load(g.device);
  // Fill the rows from the device in a shuffled order, each from x.
  for (unsigned r : {2u, 0u, 3u, 1u}) {
    const auto row = referenceRow(r);
    e.writeTensor("x", row.data(), row.data() + row.size());
    writeOffset(e, r);
    e.run(0);
  }
  for (unsigned r = 0; r < kRows; ++r) {
    EXPECT_EQ(bufferRow(e, r), referenceRow(r)) << "row " << r;
    writeOffset(e, r);
    e.run(1);
    EXPECT_EQ(readRow(e, "y"), referenceRow(r)) << "row " << r;
  }
}

TEST(RemoteBuffers, RowsRoundTripHostToBufferToDeviceToHost) {
  RowGraph g;
  Engine e(g.graph, g.programs, kNoCache);
  e.load(g.device);
  // A fresh buffer holds zeros.
  EXPECT_EQ(bufferRow(e, 3), std::vector<float>(kCols, 0.0f));
  for (unsigned r = 0; r < kRows; ++r)
    e.copyToRemoteBuffer(referenceRow(r).data(), "rb", r);
  for (unsigned r : {3u, 1u, 1u, 0u, 2u}) {
    writeOffset(e, r);
    e.run(1);
    EXPECT_EQ(readRow(e, "y"), referenceRow(r)) << "row " << r;
  }
  // Without an offset the tensor holds the whole buffer, rows in order.
  e.run(2);
  EXPECT_EQ(readRow(e, "all", kRows * kCols),
            concat({referenceRow(0), referenceRow(1), referenceRow(2), referenceRow(3)}));
  // And back: every row replaced from the device.
  const auto fresh = concat(
      {referenceRow(0, 100), referenceRow(1, 100), referenceRow(2, 100), referenceRow(3, 100)});
  e.writeTensor("all", fresh.data(), fresh.data() + fresh.size());
  e.run(3);
  for (unsigned r = 0; r < kRows; ++r)
    EXPECT_EQ(bufferRow(e, r), referenceRow(r, 100));
  // A new load starts from zeros again.
  e.load(g.device);
  EXPECT_EQ(bufferRow(e, 0), std::vector<float>(kCols, 0.0f));
}

TEST(RemoteBuffers, OffsetTensorsPickTheRows) {
  RowGraph g;
  Engine e(g.graph, g.programs, kNoCache);
  e.load(g.device);
  for (unsigned r = 0; r < kRows; ++r)
    e.copyToRemoteBuffer(referenceRow(r).data(), "rb", r);
  // Several rows in one copy, in the offsets' order (repeats allowed).
  writeOffsets(e, {3, 0});
  e.run(4);
  EXPECT_EQ(readRow(e, "pair", 2 * kCols), concat({referenceRow(3), referenceRow(0)}));
  writeOffsets(e, {2, 2});
  e.run(4);
  EXPECT_EQ(readRow(e, "pair", 2 * kCols), concat({referenceRow(2), referenceRow(2)}));
  // Stores write only the rows named; of two stores to one row the later stays.
  const auto src = concat({referenceRow(0, 500), referenceRow(1, 500)});
  e.writeTensor("pair", src.data(), src.data() + src.size());
  writeOffsets(e, {1, 3});
  e.run(5);
  EXPECT_EQ(bufferRow(e, 0), referenceRow(0));
  EXPECT_EQ(bufferRow(e, 1), referenceRow(0, 500));
  EXPECT_EQ(bufferRow(e, 2), referenceRow(2));
  EXPECT_EQ(bufferRow(e, 3), referenceRow(1, 500));
  writeOffsets(e, {2, 2});
  e.run(5);
  EXPECT_EQ(bufferRow(e, 2), referenceRow(1, 500));
}

TEST(RemoteBuffers, ReplicasKeepSeparateBuffers) {
  RowGraph g(2);
  Engine e(g.graph, g.programs, kNoCache);
  e.load(g.device);
  ASSERT_EQ(e.getNumReplicas(), 2u);
  // Replica 1's row 2 from the host; replica 0's row 2 from its device.
  e.copyToRemoteBuffer(referenceRow(2, 1000).data(), "rb", 2, 1);
  const auto fromDevice = referenceRow(2, 7);
  e.writeTensor("x", 0, fromDevice.data(), fromDevice.data() + kCols);
  const std::vector<float> zeros(kCols, 0.0f);
  e.writeTensor("x", 1, zeros.data(), zeros.data() + kCols);
  writeOffset(e, 2); // both replicas
  const unsigned otherRow = 0;
  e.writeTensor("at", 1, &otherRow, &otherRow + 1); // replica 1 stores to row 0 instead
  e.run(0);
  EXPECT_EQ(bufferRow(e, 2, 0), fromDevice);
  EXPECT_EQ(bufferRow(e, 2, 1), referenceRow(2, 1000));
  EXPECT_EQ(bufferRow(e, 0, 1), zeros);
  writeOffset(e, 2);
  e.run(1);
  EXPECT_EQ(readRow(e, "y", kCols, 0), fromDevice);
  EXPECT_EQ(readRow(e, "y", kCols, 1), referenceRow(2, 1000));
}

namespace {
std::string serialized(const RowGraph &g) {
  std::ostringstream out;
  compileGraph(g.graph, g.programs).serialize(out);
  return out.str();
}
Executable deserialized(const std::string &bytes) {
  std::istringstream in(bytes);
  return Executable::deserialize(in);
}
/// Runs store / load / load-pair on `e` and returns what the host reads back.
std::vector<float> exercise(Engine &e, const Device &device) {
  e.load(device);
  for (unsigned r = 0; r < kRows; ++r)
    e.copyToRemoteBuffer(referenceRow(r).data(), "rb", r);
  const auto row = referenceRow(9);
  e.writeTensor("x", row.data(), row.data() + row.size());
  writeOffset(e, 1);
  e.run(0);
  writeOffsets(e, {1, 3});
  e.run(4);
  writeOffset(e, 2);
  e.run(1);
  return concat({readRow(e, "pair", 2 * kCols), readRow(e, "y"), bufferRow(e, 1)});
}
} // namespace

TEST(RemoteBuffers, SerializedExecutableRunsTheSame) {
  RowGraph g;
  Engine direct(g.graph, g.programs, kNoCache);
  const auto expected = exercise(direct, g.device);
  EXPECT_EQ(expected, concat({referenceRow(9), referenceRow(3), referenceRow(2), referenceRow(9)}));
  Engine fromFile(deserialized(serialized(g)), kNoCache);
  EXPECT_EQ(exercise(fromFile, g.device), expected);
  // Read back and written again, the bytes are the same.
  std::ostringstream again;
  deserialized(serialized(g)).serialize(again);
  EXPECT_EQ(again.str(), serialized(g));
  // The cost model prices the remote copies the same either way.
  for (unsigned p = 0; p < g.programs.size(); ++p)
    EXPECT_EQ(fromFile.estimateProgramCycles(p), direct.estimateProgramCycles(p)) << p;
}

TEST(RemoteBuffers, DamagedExecutablesFailToParseNeverCrash) {
  RowGraph g;
  const std::string bytes = serialized(g);
  for (std::size_t at = 0; at < bytes.size(); at += 5) {
    std::string damaged = bytes;
    damaged[at] = char(damaged[at] ^ 0x5a);
    try {
      Engine engine(deserialized(damaged), kNoCache);
      engine.load(g.device);
      std::vector<float> row(kCols);
      engine.copyFromRemoteBuffer("rb", row.data(), 0);
    } catch (const poplar_error &) {
    }
  }
}

namespace {
// Protocol Buffers wire format, to append fields to a serialized executable: a repeated field
// read twice gains an element, so each helper adds one remote buffer, remote copy or step.
void varint(std::string &out, std::uint64_t v) {
  do {
    out.push_back(char((v & 0x7f) | (v >= 0x80 ? 0x80 : 0)));
    v >>= 7;
  } while (v);
}
void varintField(std::string &out, unsigned field, std::uint64_t v) {
  varint(out, field << 3);
  varint(out, v);
}
void bytesField(std::string &out, unsigned field, const std::string &payload) {
  varint(out, (field << 3) | 2);
  varint(out, payload.size());
  out += payload;
}
const std::uint64_t kFloatId = static_cast<std::uint64_t>(FLOAT.id());
const std::uint64_t kUnsignedId = static_cast<std::uint64_t>(UNSIGNED_INT.id());

/// executable.proto's TensorImage with no pieces: a type and a size in bytes.
std::string tensorImage(std::uint64_t type, std::uint64_t bytes) {
  std::string m;
  varintField(m, 1, type);
  varintField(m, 4, bytes);
  return m;
}
/// Executable.remote_buffers (field 42) gains {handle "extra", type, elements, repeats, row}.
std::string withRemoteBuffer(std::string bytes, std::uint64_t type, std::uint64_t elements,
                             std::uint64_t repeats, std::uint64_t bytesPerRow) {
  std::string m;
  bytesField(m, 1, "extra");
  varintField(m, 2, type);
  varintField(m, 3, elements);
  varintField(m, 4, repeats);
  varintField(m, 5, bytesPerRow);
  bytesField(bytes, 42, m);
  return bytes;
}
/// Executable.remote_copies (field 43) gains a copy of `buffer` to `tensor` (with `offset`
/// unless empty).
std::string withRemoteCopy(std::string bytes, std::uint64_t buffer, const std::string &tensor,
                           const std::string &offset = "") {
  std::string m;
  varintField(m, 2, buffer);
  bytesField(m, 3, tensor);
  if (!offset.empty())
    bytesField(m, 4, offset);
  bytesField(bytes, 43, m);
  return bytes;
}
/// A RemoteIn step (compiler::StepKind 20) naming remote copy `index`, after the last step.
std::string withRemoteInStep(std::string bytes, std::uint64_t index) {
  for (auto [field, value] :
       {std::pair<unsigned, std::uint64_t>{26, 20}, {27, index}, {28, 0}, {29, 0}}) {
    std::string payload;
    varint(payload, value);
    bytesField(bytes, field, payload);
  }
  return bytes;
}
} // namespace

TEST(RemoteBufferErrors, DamagedBuffersCopiesAndStepsAreRefusedWhenRead) {
  RowGraph g;
  const std::string good = serialized(g);
  const auto refused = [&](const std::string &bytes, const char *what) {
    expectThrowWithMessage<parse_error>([&] { deserialized(bytes); },
                                        {"deserializing an executable", "corrupt", what});
  };
  // Buffers whose sizes disagree, are empty or larger than a host can address.
  refused(withRemoteBuffer(good, kFloatId, 4, 2, 15), "remote buffer size");
  refused(withRemoteBuffer(good, kFloatId, 4, 0, 16), "remote buffer size");
  refused(withRemoteBuffer(good, kFloatId, 0, 2, 0), "remote buffer size");
  refused(withRemoteBuffer(good, kFloatId, std::uint64_t(1) << 40, std::uint64_t(1) << 20,
                           std::uint64_t(1) << 42),
          "remote buffer size");
  refused(withRemoteBuffer(good, 200, 4, 2, 16), "element type");
  // Copies of a buffer that is not there, of part of a row, of another type, or with an
  // offset tensor of the wrong type or size ("rb" has 4 rows of 12 bytes).
  refused(withRemoteCopy(good, 99, tensorImage(kFloatId, 12)), "remote buffer index");
  refused(withRemoteCopy(good, 0, tensorImage(kFloatId, 10), tensorImage(kUnsignedId, 4)),
          "remote copy size");
  refused(withRemoteCopy(good, 0, tensorImage(kUnsignedId, 12), tensorImage(kUnsignedId, 4)),
          "remote copy size");
  refused(withRemoteCopy(good, 0, tensorImage(kFloatId, 12)), "remote copy size");
  refused(withRemoteCopy(good, 0, tensorImage(kFloatId, 24), tensorImage(kFloatId, 8)),
          "remote copy offset");
  refused(withRemoteCopy(good, 0, tensorImage(kFloatId, 24), tensorImage(kUnsignedId, 4)),
          "remote copy offset");
  // A step naming a remote copy that does not exist.
  refused(withRemoteInStep(good, 99), "step operand");
}

TEST(RemoteBuffers, CacheKeyCoversBuffersAndTheirCopies) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tessera-remote-cache-" + std::to_string(::getpid()));
  const OptionFlags cache{{"executableCache.directory", dir.string()}};
  const auto keyOf = [&](RowGraph &g, const std::vector<Program> &programs) {
    Engine e(g.graph, programs, cache);
    return e.executableCacheKey();
  };
  RowGraph a, b, c(1, kRows + 1);
  const std::string base = keyOf(a, a.programs);
  EXPECT_FALSE(base.empty());
  EXPECT_EQ(keyOf(b, b.programs), base);
  EXPECT_NE(keyOf(c, {c.programs[0], c.programs[1], c.programs[4], c.programs[5]}), base);
  // The same copy with another offset tensor, or without one.
  RowGraph d;
  std::vector<Program> other = d.programs;
  other[1] = Copy(d.rb, d.y, d.at2[1], {"load"});
  EXPECT_NE(keyOf(d, other), base);
  std::filesystem::remove_all(dir);
}

TEST(RemoteBuffers, CostModelPricesBytesOverStreamingBandwidth) {
  Device device = enginetest::smallDevice(16);
  Graph graph(device.getTarget());
  constexpr std::size_t kWide = 4096, kBytesPerRow = kWide * 4;
  RemoteBuffer rb = graph.addRemoteBuffer("wide", FLOAT, kWide, 8);
  Tensor spread = graph.addVariable(FLOAT, {8, kWide}, "spread");
  for (unsigned r = 0; r < 8; ++r)
    graph.setTileMapping(spread[r], r);
  Tensor one = graph.addVariable(FLOAT, {kWide}, "one");
  Tensor four = graph.addVariable(FLOAT, {4, kWide}, "four");
  Tensor at = graph.addVariable(UNSIGNED_INT, {}, "at");
  Tensor at4 = graph.addVariable(UNSIGNED_INT, {4}, "at4");
  graph.setTileMapping(one, 8);
  graph.setTileMapping(four, 9);
  graph.setTileMapping(at, 10);
  graph.setTileMapping(at4, 10);
  Engine e(graph, {Copy(rb, spread), Copy(rb, one, at), Copy(four, rb, at4)}, kNoCache);
  const std::uint64_t sync = device.getTarget().getSyncCycles();
  const std::uint64_t exchange = device.getTarget().getExchangeBytesPerCycle();
  ASSERT_LT(exchange, 15u);
  // Spread over 8 tiles, the 128 KiB at the streaming memory's 15 bytes a cycle is slower than
  // any tile's exchange.
  EXPECT_EQ(e.estimateProgramCycles(0), std::uint64_t(8 * kBytesPerRow / 15.0) + sync);
  // On one tile, its exchange is the slower; an offset costs one more sync.
  EXPECT_EQ(e.estimateProgramCycles(1), kBytesPerRow / exchange + 2 * sync);
  EXPECT_EQ(e.estimateProgramCycles(2), 4 * kBytesPerRow / exchange + 2 * sync);
}

// ---- errors ------------------------------------------------------------------------------------

TEST(RemoteBufferErrors, OffsetOutOfRangeStopsTheRun) {
  RowGraph g;
  Engine e(g.graph, g.programs, kNoCache);
  e.load(g.device);
  writeOffset(e, 4);
  expectThrowWithMessage<application_runtime_error>(
      [&] { e.run(1); }, {"'load'", "remote buffer 'rb'", "offset 4", "4 row(s)"});
  expectThrowWithMessage<application_runtime_error>(
      [&] { e.run(0); }, {"'store'", "to remote buffer 'rb'", "offset 4"});
  // Every offset is checked before any row moves.
  e.copyToRemoteBuffer(referenceRow(1).data(), "rb", 1);
  const auto src = concat({referenceRow(0, 50), referenceRow(1, 50)});
  e.writeTensor("pair", src.data(), src.data() + src.size());
  writeOffsets(e, {1, 77});
  expectThrowWithMessage<application_runtime_error>(
      [&] { e.run(5); }, {"remote buffer 'rb'", "offset 77", "element 1 of the offset tensor"});
  EXPECT_EQ(bufferRow(e, 1), referenceRow(1));
}

TEST(RemoteBufferErrors, HostAccessOutsideTheBufferThrowsAtOnce) {
  RowGraph g(2);
  Engine e(g.graph, g.programs, kNoCache);
  std::vector<float> row(kCols);
  expectThrowWithMessage<tensor_io_state_error>([&] { e.copyToRemoteBuffer(row.data(), "rb", 0); },
                                                {"copyToRemoteBuffer"});
  e.load(g.device);
  expectThrowWithMessage<index_error>([&] { e.copyToRemoteBuffer(row.data(), "rb", 4); },
                                      {"copyToRemoteBuffer 'rb'", "row 4", "4 row(s)"});
  expectThrowWithMessage<index_error>([&] { e.copyFromRemoteBuffer("rb", row.data(), 9, 1); },
                                      {"copyFromRemoteBuffer 'rb'", "row 9"});
  expectThrowWithMessage<index_error>([&] { e.copyFromRemoteBuffer("rb", row.data(), 0, 2); },
                                      {"copyFromRemoteBuffer 'rb'", "replica 2"});
  expectThrowWithMessage<stream_connection_error>(
      [&] { e.copyFromRemoteBuffer("rbb", row.data(), 0); }, {"'rbb'", "did you mean 'rb'"});
  expectThrowWithMessage<stream_connection_error>([&] { e.copyToRemoteBuffer(nullptr, "rb", 0); },
                                                  {"'rb'", "null"});
}

TEST(RemoteBufferErrors, CopiesThatDoNotFitTheBufferAreRefusedWhenBuilt) {
  Device device = enginetest::smallDevice(2);
  Graph graph(device.getTarget());
  RemoteBuffer rb = graph.addRemoteBuffer("weights", FLOAT, 4, 3);
  Tensor f4 = graph.addVariable(FLOAT, {4}, "f4");
  Tensor f5 = graph.addVariable(FLOAT, {5}, "f5");
  Tensor h4 = graph.addVariable(HALF, {4}, "h4");
  Tensor f2x4 = graph.addVariable(FLOAT, {2, 4}, "f2x4");
  Tensor u = graph.addVariable(UNSIGNED_INT, {}, "u");
  Tensor i = graph.addVariable(INT, {}, "i");
  Tensor u2x1 = graph.addVariable(UNSIGNED_INT, {2, 1}, "u2x1");
  Tensor u3 = graph.addVariable(UNSIGNED_INT, {3}, "u3");
  expectThrowWithMessage<type_error>([&] { Copy(rb, h4, u); },
                                     {"remote buffer 'weights'", "float", "'h4'"});
  expectThrowWithMessage<type_error>([&] { Copy(h4, rb, u); }, {"remote buffer 'weights'"});
  expectThrowWithMessage<shape_error>([&] { Copy(rb, f5, u); },
                                      {"remote buffer 'weights'", "'f5'", "5 elements"});
  expectThrowWithMessage<shape_error>([&] { Copy(f4, rb); },
                                      {"remote buffer 'weights'", "every row", "12"});
  expectThrowWithMessage<shape_error>([&] { Copy(rb, f2x4, u3); },
                                      {"remote buffer 'weights'", "3 row(s)"});
  expectThrowWithMessage<type_error>([&] { Copy(rb, f4, i); },
                                     {"remote buffer 'weights'", "offset", "unsigned int"});
  expectThrowWithMessage<shape_error>([&] { Copy(f2x4, rb, u2x1); },
                                      {"remote buffer 'weights'", "offset", "1-D"});
  expectThrowWithMessage<graph_program_compilation_error>([&] { Copy(RemoteBuffer(), f4); },
                                                          {"RemoteBuffer"});
  expectThrowWithMessage<graph_program_compilation_error>([&] { Copy(rb, Tensor(), u); },
                                                          {"remote buffer 'weights'", "invalid"});
  // These fit.
  Copy(rb, f4, u);
  Copy(f2x4, rb, u3.slice(0, 2));
  Copy(graph.addVariable(FLOAT, {3, 4}, "all"), rb);
}

TEST(RemoteBufferErrors, BuffersAreNamedOnceAndNeverEmpty) {
  Device device = enginetest::smallDevice(2);
  Graph graph(device.getTarget());
  graph.addRemoteBuffer("rb", FLOAT, 4);
  graph.addHostToDeviceFIFO("in", FLOAT, 4);
  expectThrowWithMessage<graph_object_creation_error>([&] { graph.addRemoteBuffer("rb", INT, 2); },
                                                      {"'rb'", "already exists"});
  expectThrowWithMessage<graph_object_creation_error>(
      [&] { graph.addRemoteBuffer("in", FLOAT, 4); }, {"'in'", "data stream"});
  expectThrowWithMessage<graph_object_creation_error>(
      [&] { graph.addDeviceToHostFIFO("rb", FLOAT, 4); }, {"'rb'", "remote buffer"});
  expectThrowWithMessage<graph_object_creation_error>(
      [&] { graph.addRemoteBuffer("none", FLOAT, 4, 0); }, {"'none'", "0 rows"});
  expectThrowWithMessage<graph_object_creation_error>(
      [&] { graph.addRemoteBuffer("huge", FLOAT, std::size_t(1) << 40, std::size_t(1) << 20); },
      {"'huge'"});
  expectThrowWithMessage<type_error>([&] { graph.addRemoteBuffer("bad", Type(), 4); },
                                     {"'bad'", "invalid"});
}

TEST(RemoteBufferErrors, BufferOfAnotherGraphIsRefusedByTheEngine) {
  Device device = enginetest::smallDevice(2);
  Graph graph(device.getTarget()), other(device.getTarget());
  RemoteBuffer foreign = other.addRemoteBuffer("theirs", FLOAT, 2);
  Tensor t = graph.addVariable(FLOAT, {2}, "t");
  graph.setTileMapping(t, 0);
  expectThrowWithMessage<graph_program_compilation_error>(
      [&] { Engine e(graph, Copy(foreign, t), kNoCache); }, {"remote buffer 'theirs'"});
}
