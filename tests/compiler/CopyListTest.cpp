// The compact copy lists (compiler::CopyOp, CopyListBuilder) and the one exchange-in list per
// compute set: ops merge into rows as before, a value that does not fit CopyOp's 32-bit fields
// splits the op instead of overflowing, a copy beyond 4 GiB of a tile is refused, and the host
// skips exactly the ops made of inputs its vertices read in place.
#include <gtest/gtest.h>

#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>

#include "ErrorMatchers.hpp"
#include "TestVertices.hpp"
#include "compiler/CompilerContext.hpp"
#include "compiler/CopyListBuilder.hpp"
#include "compiler/ExchangePlan.hpp"
#include "compiler/Liveness.hpp"
#include "compiler/Validate.hpp"
#include "compiler/VertexState.hpp"

using namespace poplar;
using namespace poplar::program;
using namespace poplar::compiler;
using testerrors::throwsWithMessage;

namespace {
constexpr std::uint64_t kGiB = std::uint64_t(1) << 30;
} // namespace

TEST(CopyList, AnOpIs32Bytes) { EXPECT_EQ(sizeof(CopyOp), 32u); }

TEST(CopyList, ContiguousCopiesExtendAndEvenlySpacedOnesBecomeRows) {
  CopyListBuilder b;
  b.add({0, 100}, {1, 0}, 4);
  b.add({0, 104}, {1, 4}, 4); // continues both: one 8-byte op
  b.add({2, 0}, {1, 64}, 16);
  b.add({2, 48}, {1, 96}, 16); // one stride on in both: a second row
  b.add({2, 96}, {1, 128}, 16);
  b.add({3, 8}, {1, 200}, 2);
  b.add({3, 8}, {1, 202}, 2); // the same source again: a broadcast (source stride 0)
  const CopyList l = b.build();
  ASSERT_EQ(l.ops.size(), 3u);
  EXPECT_EQ(l.ops[0].bytes, 8u);
  EXPECT_EQ(l.ops[0].repeat, 1u);
  EXPECT_EQ(l.ops[1].repeat, 3u);
  EXPECT_EQ(l.ops[1].srcStride, 48);
  EXPECT_EQ(l.ops[1].dstStride, 32);
  EXPECT_EQ(l.ops[2].repeat, 2u);
  EXPECT_EQ(l.ops[2].srcStride, 0);
  EXPECT_EQ(l.ops[2].dstStride, 2);
  EXPECT_EQ(l.totalBytes, 8u + 48u + 4u);
  EXPECT_EQ(l.groupBegin, (std::vector<std::size_t>{0, 3})) << "all to tile 1: one group";
}

TEST(CopyList, AStrideBeyond32BitsSplitsTheRowsIntoOps) {
  CopyListBuilder b;
  b.add({0, 0}, {1, 0}, 8);
  b.add({0, 3 * kGiB}, {1, 8}, 8); // 3 GiB on: no int32 stride holds it
  b.add({0, 3 * kGiB + 8}, {1, 16}, 8);
  const CopyList l = b.build();
  ASSERT_EQ(l.ops.size(), 2u);
  EXPECT_EQ(l.ops[0].src.offset, 0u);
  EXPECT_EQ(l.ops[0].repeat, 1u);
  EXPECT_EQ(l.ops[1].src.offset, 3 * kGiB);
  EXPECT_EQ(l.ops[1].bytes, 16u) << "the copy after it still extends the new op";
  EXPECT_EQ(l.totalBytes, 24u);
}

TEST(CopyList, ADestinationStrideBeyond32BitsSplitsToo) {
  CopyListBuilder b;
  b.add({0, 0}, {1, 0}, 8);
  b.add({0, 16}, {1, 2 * kGiB + 64}, 8);
  const CopyList l = b.build();
  ASSERT_EQ(l.ops.size(), 2u);
  EXPECT_EQ(l.ops[1].dst.offset, 2 * kGiB + 64);
}

TEST(CopyList, AWhole4GiBRowSplitsIntoHalves) {
  CopyListBuilder b;
  b.add({0, 0}, {1, 0}, 4 * kGiB);
  const CopyList l = b.build();
  ASSERT_EQ(l.ops.size(), 2u);
  EXPECT_EQ(l.ops[0].bytes, 2 * kGiB);
  EXPECT_EQ(l.ops[1].src.offset, 2 * kGiB);
  EXPECT_EQ(l.ops[1].dst.offset, 2 * kGiB);
  EXPECT_EQ(l.ops[1].bytes, 2 * kGiB);
  EXPECT_EQ(l.totalBytes, 4 * kGiB);
}

TEST(CopyList, ExtendingPast32BitsOfBytesStartsANewOp) {
  CopyListBuilder b;
  b.add({0, 0}, {1, 0}, 3 * kGiB);
  b.add({0, 3 * kGiB}, {1, 3 * kGiB}, kGiB - 16);
  b.add({0, 4 * kGiB - 16}, {1, 4 * kGiB - 16}, 16);
  const CopyList l = b.build();
  ASSERT_EQ(l.ops.size(), 2u);
  EXPECT_EQ(l.ops[0].bytes, 4 * kGiB - 16);
  EXPECT_EQ(l.ops[1].bytes, 16u);
}

TEST(CopyList, ACopyBeyond4GiBOfATileIsRefusedNamingTheTile) {
  CopyListBuilder b;
  EXPECT_TRUE(throwsWithMessage<graph_memory_allocation_error>(
      [&] {
        b.add({5, 4 * kGiB - 4}, {1, 0}, 8);
      },
      {"tile 5", "byte 4294967300", "4 GiB", "more tiles"}));
  EXPECT_TRUE(throwsWithMessage<graph_memory_allocation_error>(
      [&] {
        b.add({0, 0}, {7, 5 * kGiB}, 8);
      },
      {"tile 7", "4 GiB"}));
}

TEST(CopyList, MarksNeverChangeHowCopiesMergeAndUnmarkedPartsAreKeptApart) {
  CopyListBuilder b;
  b.add({0, 0}, {1, 0}, 64, true);
  b.add({0, 64}, {1, 64}, 64, true); // marked + marked
  b.add({2, 0}, {1, 256}, 64, true);
  b.add({2, 64}, {1, 320}, 64, false); // marked + unmarked: one op still
  b.add({4, 0}, {1, 512}, 16, false);
  b.add({4, 32}, {1, 528}, 16, false);
  b.add({4, 64}, {1, 544}, 16, true); // unmarked rows, then a marked one: one op of 3 rows
  b.add({3, 0}, {0, 0}, 8, false);
  std::vector<bool> marks;
  CopyList parts;
  const CopyList l = b.build(&marks, &parts);
  ASSERT_EQ(l.ops.size(), 4u);
  EXPECT_EQ(l.ops[1].bytes, 128u);
  EXPECT_EQ(l.ops[2].bytes, 128u);
  EXPECT_EQ(l.ops[3].repeat, 3u);
  EXPECT_EQ(marks, (std::vector<bool>{false, true, true, true}))
      << "tile 0's group comes first, then tile 1's ops: each holds a marked copy";
  // What the unmarked copies were, apart from the marked ones: group for group.
  ASSERT_EQ(parts.groupBegin, (std::vector<std::size_t>{0, 0, 2}));
  EXPECT_EQ(parts.ops[0].src.tile, 2u);
  EXPECT_EQ(parts.ops[0].src.offset, 64u);
  EXPECT_EQ(parts.ops[0].dst.offset, 320u);
  EXPECT_EQ(parts.ops[0].bytes, 64u);
  EXPECT_EQ(parts.ops[1].src.tile, 4u);
  EXPECT_EQ(parts.ops[1].repeat, 2u) << "the two unmarked rows";
  EXPECT_EQ(parts.ops[1].srcStride, 32);
  EXPECT_EQ(parts.totalBytes, 64u + 32u);
}

namespace {

/// `data` (8 floats) on tile 0; "sum" on tile 1 reads it whole (one aligned piece: a vertex may
/// read it in place) and reads `parts` (two pieces, on tiles 0 and 2), writing `total` on tile 1.
struct ThreeTiles {
  IPUModel model;
  Device device;
  Graph graph;
  Tensor data, parts, total, total2;
  ComputeSet sum;

  ThreeTiles() : device(makeDevice()), graph(device.getTarget()) {
    testvertices::registerTestVertices();
    data = graph.addVariable(FLOAT, {8}, "data");
    parts = graph.addVariable(FLOAT, {8}, "parts");
    total = graph.addVariable(FLOAT, {}, "total");
    total2 = graph.addVariable(FLOAT, {}, "total2");
    graph.setTileMapping(data, 0);
    graph.setTileMapping(parts.slice(0, 4), 0);
    graph.setTileMapping(parts.slice(4, 8), 2);
    graph.setTileMapping(total, 1);
    graph.setTileMapping(total2, 1);
    graph.createHostRead("total", total);
    graph.createHostRead("total2", total2);
    sum = graph.addComputeSet("sum");
    VertexRef a = graph.addVertex(sum, "Sum", {{"in", data}, {"out", total}});
    graph.setTileMapping(a, 1);
    VertexRef b = graph.addVertex(sum, "Sum", {{"in", parts}, {"out", total2}});
    graph.setTileMapping(b, 1);
  }
  Device makeDevice() {
    model.tilesPerIPU = 3;
    return model.createDevice();
  }
};

} // namespace

TEST(CopyList, ExchangeInIsOneListAndTheHostSkipsOnlyInputsReadInPlace) {
  ThreeTiles t;
  CompilerContext ctx(t.graph.data());
  const std::vector<Program> programs{Execute(t.sum)};
  const ProgramUse use = validatePrograms(t.graph.data(), programs);
  ctx.layout =
      layOutVariables(t.graph.data(), ctx.allocator, analyseLifetimes(t.graph.data(), programs));
  planVertexState(ctx, use.computeSets);
  planExchange(ctx);
  const ComputeSetPlan &cs = ctx.result.computeSets.at(0);
  EXPECT_EQ(cs.exchangeIn.totalBytes, 64u) << "the IPU brings both inputs: 2 x 8 floats";
  ASSERT_TRUE(cs.exchangeInPerTile) << "no vertex writes what the exchange reads";
  ASSERT_EQ(cs.hostSkips.size(), cs.exchangeIn.ops.size());
  // 'data' and the first half of 'parts' lie side by side on tile 0, and so do their buffers
  // on tile 1: the IPU's list copies them in one op.
  ASSERT_EQ(cs.exchangeIn.ops.size(), 2u);
  EXPECT_EQ(cs.exchangeIn.ops[0].bytes, 48u);
  EXPECT_EQ(cs.hostSkips, (std::vector<bool>{true, false}));
  // The host reads 'data' on tile 0 (one aligned piece) and copies 'parts' (on two tiles): of
  // the skipped op, only the part that is 'parts'.
  std::uint64_t made = 0;
  for (std::size_t i = 0; i < cs.exchangeIn.ops.size(); ++i)
    if (cs.hostCopies(i))
      made += cs.exchangeIn.ops[i].totalBytes();
  ASSERT_EQ(cs.hostPartialCopies.ops.size(), 1u);
  EXPECT_EQ(cs.hostPartialCopies.ops[0].bytes, 16u);
  EXPECT_EQ(cs.hostPartialCopies.ops[0].dst.offset, cs.exchangeIn.ops[0].dst.offset + 32);
  EXPECT_EQ(made + cs.hostPartialCopies.totalBytes, 32u) << "'parts' only";
  ASSERT_EQ(cs.tileExchangeInGroup.size(), 1u);
  EXPECT_EQ(cs.tileExchangeInGroup[0], 0u) << "tile 1's work makes group 0 of exchangeIn";
}
