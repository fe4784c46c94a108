// XLA's general gather and the single-axis gather's options against the golden reference
// (reference/Gather.hpp): FLOAT, HALF and INT tables, UNSIGNED_INT and INT indices, inputs on
// one tile or laid out by createGatherInput over 16 tiles, 1 vs 2 host threads, error paths.
#include <gtest/gtest.h>

#include <functional>

#include <popops/Gather.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <reference/Gather.hpp>

#include "SliceBench.hpp"

using namespace poplar;
using namespace poplar::program;
using slicebench::Bench;
using slicebench::Values;

namespace {

struct XlaCase {
  std::vector<std::size_t> inShape;
  std::vector<long long> indices;
  std::vector<std::size_t> idxShape;
  std::size_t indexVectorDim;
  std::vector<std::size_t> offsetDims, sliceSizes, collapsedSliceDims;
  std::vector<unsigned> startIndexMap;
};

std::vector<XlaCase> xlaCases() {
  return {
      // The PopLibs example: pick elements [1,1] and [2,1] of a 3x3 matrix.
      {{3, 3}, {1, 1, 2, 1}, {2, 2}, 1, {}, {1, 1}, {0, 1}, {0, 1}},
      // Rows as windows: 2x3 windows of a 5x6 input at (row, col) starts, out-of-range starts
      // clamped (9 -> 3, -2 -> 0, 7 -> 3), the index vector in dim 0 of the indices.
      {{5, 6}, {0, 9, 4, -2, 1, 2, 7, 3}, {2, 4}, 0, {1, 2}, {2, 3}, {}, {0, 1}},
      // Scalar indices (indexVectorDim == rank) selecting along dim 1 of a 3-D input, dims 0 and
      // 2 partly sliced statically, the batch dims between the offset dims.
      {{4, 7, 5}, {6, 0, 3, 2, 8, 1}, {2, 3}, 2, {0, 3}, {3, 1, 4}, {1}, {1}},
      // startIndexMap in reverse order, nothing collapsed.
      {{6, 4}, {1, 5, 3, 0, 2, 2}, {3, 2}, 1, {1, 2}, {2, 2}, {}, {1, 0}},
  };
}

/// Runs every case on `layout` with the given table and index types; returns outputs by name.
std::map<std::string, std::vector<char>> runXla(const Type &type, const Type &indexType,
                                                bool spread, unsigned threads,
                                                std::vector<Values> *want) {
  Bench b(16);
  const auto cases = xlaCases();
  for (std::size_t n = 0; n < cases.size(); ++n) {
    const auto &c = cases[n];
    const std::string name = "case" + std::to_string(n);
    Tensor in = spread ? popops::createGatherInput(b.graph, type, c.inShape, c.sliceSizes,
                                                   c.startIndexMap, name)
                       : b.graph.addVariable(type, c.inShape, name);
    if (!spread)
      b.graph.setTileMapping(in, 0);
    const Values input = slicebench::data(type, reference::numElements(c.inShape), 70 + n);
    b.in(in, name, input);
    std::vector<long long> idx = c.indices;
    if (indexType == UNSIGNED_INT)
      for (auto &i : idx)
        i = i < 0 ? 0 : i; // negative starts only for INT indices
    Tensor indices = b.graph.addVariable(indexType, c.idxShape, name + "Idx");
    poputil::mapTensorLinearly(b.graph, indices);
    b.in(indices, name + "Idx", Values(idx.begin(), idx.end()));
    Tensor out = popops::gather(b.graph, in, indices, c.indexVectorDim, c.offsetDims, c.sliceSizes,
                                c.collapsedSliceDims, c.startIndexMap, b.prog, name);
    std::vector<std::size_t> outShape;
    if (want)
      want->push_back(reference::xlaGather(input, c.inShape, idx, c.idxShape, c.indexVectorDim,
                                           c.offsetDims, c.sliceSizes, c.collapsedSliceDims,
                                           c.startIndexMap, outShape));
    else
      reference::xlaGather(input, c.inShape, idx, c.idxShape, c.indexVectorDim, c.offsetDims,
                           c.sliceSizes, c.collapsedSliceDims, c.startIndexMap, outShape);
    EXPECT_EQ(out.shape(), outShape) << name;
    b.out(name, out);
  }
  return b.runBytes(threads);
}

TEST(GatherXla, MatchesTheXlaSpecificationWithClampedStarts) {
  for (const auto &type : {FLOAT, HALF, INT})
    for (const auto &indexType : {UNSIGNED_INT, INT})
      for (bool spread : {false, true}) {
        std::vector<Values> want;
        const auto r = runXla(type, indexType, spread, 1, &want);
        for (std::size_t n = 0; n < want.size(); ++n) {
          const auto got = slicebench::fromDevice(type, r.at("case" + std::to_string(n)));
          EXPECT_EQ(got, want[n]) << "case " << n << " " << type.toString() << " indices "
                                  << indexType.toString() << (spread ? " spread" : " one tile");
        }
      }
}

TEST(GatherXla, ResultsAreBitIdenticalWithOneAndTwoHostThreads) {
  EXPECT_EQ(runXla(HALF, INT, true, 1, nullptr), runXla(HALF, INT, true, 2, nullptr));
}

TEST(GatherXla, CreateGatherInputSpreadsTheUnselectedElementsOverTiles) {
  Bench b(16);
  Tensor in = popops::createGatherInput(b.graph, FLOAT, {6, 4, 32}, {1, 4, 32}, {0}, "in");
  ASSERT_EQ(in.shape(), (std::vector<std::size_t>{6, 4, 32}));
  // Each tile holds every row (dim 0) of its columns.
  for (std::size_t r = 1; r < 6; ++r)
    EXPECT_EQ(b.graph.getTileMapping(in[r]).size(), b.graph.getTileMapping(in[0]).size());
  std::size_t used = 0;
  for (const auto &m : b.graph.getTileMapping(in[0]))
    used += !m.empty();
  EXPECT_GT(used, 1u);
}

TEST(GatherOptions, RemapOutOfBoundIndicesReadsTheFirstRow) {
  Bench b(4);
  const std::vector<std::size_t> shape{5, 3};
  const Values input = slicebench::data(FLOAT, 15, 80);
  Tensor in = b.in(popops::createGatherInput(b.graph, FLOAT, shape, 0, {}, "in"), "in", input);
  Tensor idx = b.in(b.graph.addVariable(UNSIGNED_INT, {3}, "idx"), "idx", {2, 7, 4});
  b.graph.setTileMapping(idx, 0);
  b.out("plain", popops::gather(b.graph, in, idx, 0, b.prog, {}, "plain"));
  b.out("remapped", popops::gather(b.graph, in, idx, 0, b.prog, {}, "remap",
                                   {{"remapOutOfBoundIndices", "true"}}));
  auto r = b.run();
  EXPECT_EQ(r["plain"], reference::gather(input, shape, {2, 7, 4}, 0));
  EXPECT_EQ(r["remapped"], reference::gather(input, shape, {2, 0, 4}, 0));
}

template <class E = poputil::poplibs_error>
void expectError(const std::function<void()> &f, std::initializer_list<std::string> words) {
  try {
    f();
    FAIL() << "expected an exception";
  } catch (const E &e) {
    for (const auto &w : words)
      EXPECT_NE(std::string(e.what()).find(w), std::string::npos)
          << "'" << w << "' not in: " << e.what();
  }
}

TEST(GatherXlaErrors, BadArgumentsAreNamed) {
  Bench b(4);
  Tensor in = b.graph.addVariable(FLOAT, {5, 6}, "in");
  Tensor idx = b.graph.addVariable(UNSIGNED_INT, {4, 2}, "starts");
  Tensor floatIdx = b.graph.addVariable(FLOAT, {4, 2}, "floatStarts");
  auto g = [&](const Tensor &i, std::size_t ivd, std::vector<std::size_t> offsetDims,
               std::vector<std::size_t> sizes, std::vector<std::size_t> collapsed,
               std::vector<unsigned> map) {
    return
        [=, &b] { popops::gather(b.graph, in, i, ivd, offsetDims, sizes, collapsed, map, b.prog); };
  };
  expectError(g(floatIdx, 1, {}, {1, 1}, {0, 1}, {0, 1}), {"indices", "floatStarts", "INT"});
  expectError(g(idx, 3, {}, {1, 1}, {0, 1}, {0, 1}), {"indexVectorDim 3"});
  expectError(g(idx, 1, {}, {1, 1}, {0, 1}, {0}), {"startIndexMap", "2 start coordinates"});
  expectError(g(idx, 1, {}, {1}, {0, 1}, {0, 1}), {"sliceSizes", "2 entries"});
  expectError(g(idx, 1, {}, {1, 7}, {0}, {0, 1}), {"sliceSizes[1] = 7"});
  expectError(g(idx, 1, {1}, {2, 2}, {0}, {0, 1}), {"collapsedSliceDims[0]"});
  expectError(g(idx, 1, {0}, {1, 1}, {0, 1}, {0, 1}), {"offsetDims"});
  expectError(g(idx, 1, {}, {1, 1}, {0, 1}, {0, 0}), {"startIndexMap", "twice"});
  expectError(g(idx, 1, {}, {1, 1}, {0, 1}, {0, 2}), {"startIndexMap[1] = 2"});
}

} // namespace
