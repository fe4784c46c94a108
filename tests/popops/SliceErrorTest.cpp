// Bad arguments to the slicing, gather, sort and topK functions throw poplibs_error naming the
// tensor and the argument.
#include <gtest/gtest.h>

#include <functional>

#include <poplar/exceptions.hpp>
#include <popops/DynamicSlice.hpp>
#include <popops/Gather.hpp>
#include <popops/Sort.hpp>
#include <popops/TopK.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "SliceTestUtil.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {

class SliceErrors : public ::testing::Test {
protected:
  Device d = slicetest::device(4);
  Graph graph{d.getTarget()};
  Sequence prog;
  Tensor table, offsets, intOffsets;
  void SetUp() override {
    popops::addCodelets(graph);
    table = graph.addVariable(FLOAT, {10, 4}, "embeddingTable");
    poputil::mapTensorLinearly(graph, table);
    offsets = graph.addVariable(UNSIGNED_INT, {3, 1}, "lookupIds");
    poputil::mapTensorLinearly(graph, offsets);
    intOffsets = graph.addVariable(FLOAT, {1}, "floatOffset");
    poputil::mapTensorLinearly(graph, intOffsets);
  }
  template <class E = poputil::poplibs_error>
  void expectError(const std::function<void()> &f, std::initializer_list<std::string> words) {
    try {
      f();
      FAIL() << "expected an exception";
    } catch (const E &e) {
      for (const auto &w : words)
        EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << e.what() << " / " << w;
    }
  }
};

} // namespace

TEST_F(SliceErrors, DimsAndSizesOfDifferentLength) {
  expectError(
      [&] {
        popops::multiSlice(graph, table, offsets, {0}, {1, 1}, prog, {}, {});
      },
      {"popops::multiSlice", "dims", "sizes", "embeddingTable"});
}

TEST_F(SliceErrors, DimOutOfRange) {
  Tensor off = graph.addVariable(UNSIGNED_INT, {1}, "off");
  graph.setTileMapping(off, 0);
  expectError([&] { popops::dynamicSlice(graph, table, off, {2}, {1}, prog); },
              {"dims[0] = 2", "embeddingTable", "rank 2"});
}

TEST_F(SliceErrors, SizeLargerThanDim) {
  expectError([&] { popops::multiSlice(graph, table, offsets, {0}, {11}, prog, {}, {}); },
              {"sizes[0] = 11", "embeddingTable"});
}

TEST_F(SliceErrors, NonIntegerOffsets) {
  expectError([&] { popops::dynamicSlice(graph, table, intOffsets, {0}, {1}, prog); },
              {"floatOffset", "UNSIGNED_INT"});
}

TEST_F(SliceErrors, OffsetCountMustMatchDims) {
  Tensor off = graph.addVariable(UNSIGNED_INT, {2}, "twoOffsets");
  graph.setTileMapping(off, 0);
  expectError([&] { popops::dynamicSlice(graph, table, off, {0}, {1}, prog); },
              {"twoOffsets", "one element per dim"});
}

TEST_F(SliceErrors, UpdateWithWrongSliceShape) {
  Tensor s = graph.addVariable(FLOAT, {3, 1, 5}, "badGrads");
  poputil::mapTensorLinearly(graph, s);
  Tensor scale = graph.addVariable(FLOAT, {}, "scale");
  graph.setTileMapping(scale, 0);
  expectError(
      [&] { popops::multiUpdateAdd(graph, table, s, offsets, scale, {0}, {1}, prog, {}, {}); },
      {"badGrads", "[3,1,4]", "embeddingTable"});
}

TEST_F(SliceErrors, ScaleOfWrongType) {
  Tensor s = graph.addVariable(FLOAT, {3, 1, 4}, "grads");
  poputil::mapTensorLinearly(graph, s);
  Tensor scale = graph.addVariable(HALF, {}, "halfScale");
  graph.setTileMapping(scale, 0);
  expectError(
      [&] { popops::multiUpdateAdd(graph, table, s, offsets, scale, {0}, {1}, prog, {}, {}); },
      {"halfScale", "float"});
}

TEST_F(SliceErrors, MultiSliceOfTwoDims) {
  expectError(
      [&] {
        popops::multiSlice(graph, table, offsets, {0, 1}, {1, 1}, prog, {}, {});
      },
      {"exactly one dim", "embeddingTable"});
}

TEST_F(SliceErrors, UnsupportedElementType) {
  Tensor b = graph.addVariable(BOOL, {4, 4}, "flags");
  poputil::mapTensorLinearly(graph, b);
  expectError([&] { popops::multiSlice(graph, b, offsets, {0}, {1}, prog, {}, {}); },
              {"flags", "bool"});
  expectError([&] { popops::sort(graph, b, 0, prog); }, {"popops::sort", "flags"});
}

TEST_F(SliceErrors, UnknownOptionIsRejected) {
  expectError<poplar::invalid_option>(
      [&] {
        popops::multiSlice(graph, table, offsets, {0}, {1}, prog, {}, {{"usedTiles", "3"}});
      },
      {"popops::multiSlice", "'usedTiles'"});
}

TEST_F(SliceErrors, GatherAxisAndIndexType) {
  expectError([&] { popops::gather(graph, table, offsets, 2, prog, {}); },
              {"axis 2", "embeddingTable"});
  expectError([&] { popops::gather(graph, table, intOffsets, 0, prog, {}); },
              {"floatOffset", "UNSIGNED_INT or INT"});
}

TEST_F(SliceErrors, SortDimOutOfRange) {
  expectError([&] { popops::sortInPlace(graph, table, 5, prog); }, {"dim 5", "embeddingTable"});
}

TEST_F(SliceErrors, TopKWithKTooLarge) {
  expectError(
      [&] {
        popops::topK(graph, prog, table, {5, true, popops::SortOrder::NONE});
      },
      {"k = 5", "embeddingTable"});
  expectError(
      [&] {
        popops::topK(graph, prog, table, {0, true, popops::SortOrder::NONE});
      },
      {"k = 0"});
}
