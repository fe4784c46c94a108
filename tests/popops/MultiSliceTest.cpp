// multiSlice / multiUpdate / multiUpdateAdd (embedding lookups and gradients) against host loops.
#include <gtest/gtest.h>

#include <numeric>

#include <poplar/Half.hpp>
#include <poplar/exceptions.hpp>
#include <popops/DynamicSlice.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "SliceTestUtil.hpp"
#include "popops/kernels/SliceKernels.hpp"

using namespace poplar;
using namespace poplar::program;
using slicetest::bytesOf;
using slicetest::valuesOf;

TEST(SliceKernel, ScaledAccumulateMatchesReference) {
  auto kernel = tessera::codelets::popops::scaledAccumulateFloatKernel();
  for (std::size_t n : {0u, 1u, 5u, 8u, 17u, 100u}) {
    std::vector<float> x(n), got(n), want(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = 0.25f * float(i) - 3.0f;
      got[i] = want[i] = float(i % 7);
    }
    kernel(got.data(), x.data(), n, 1.5f);
    tessera::codelets::popops::scaledAccumulateFloatReference(want.data(), x.data(), n, 1.5f);
    for (std::size_t i = 0; i < n; ++i)
      EXPECT_NEAR(got[i], want[i], 1e-5f) << n << " " << i;
  }
}

namespace {

struct Embedding {
  std::size_t vocab, dim;
  std::vector<float> table;
};

Embedding makeTable(std::size_t vocab, std::size_t dim) {
  Embedding e{vocab, dim, std::vector<float>(vocab * dim)};
  for (std::size_t i = 0; i < e.table.size(); ++i)
    e.table[i] = float(i) * 0.5f - 7.0f;
  return e;
}

void lookupTest(unsigned tiles, std::size_t vocab, std::size_t dim, bool usePlan,
                const OptionFlags &options = {}) {
  Device d = slicetest::device(tiles);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  popops::SlicePlan plan;
  if (usePlan)
    plan = popops::embedding::plan(graph, FLOAT, vocab, dim, {5}, options);
  Tensor table =
      popops::createSliceableTensor(graph, FLOAT, {vocab, dim}, {0}, {1}, plan, options, "table");
  Tensor idx = popops::createIndicesTensor(graph, {0}, 5, plan, options, "idx");
  graph.createHostWrite("table", table);
  graph.createHostWrite("idx", idx);
  Sequence prog;
  Tensor out = popops::multiSlice(graph, table, idx, {0}, {1}, prog, plan, options, "lookup");
  ASSERT_EQ(out.shape(), (std::vector<std::size_t>{5, 1, dim}));
  graph.createHostRead("out", out);
  const Embedding e = makeTable(vocab, dim);
  // vocab + 3 is out of range: that lookup gives zeros.
  const std::vector<unsigned> indices{3, 0, unsigned(vocab - 1), 3, unsigned(vocab + 3)};
  auto r = slicetest::run(graph, d, prog, {{"table", bytesOf(e.table)}, {"idx", bytesOf(indices)}},
                          {{"out", 5 * dim * sizeof(float)}});
  const auto got = valuesOf<float>(r["out"]);
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t c = 0; c < dim; ++c) {
      const float want = indices[i] < vocab ? e.table[indices[i] * dim + c] : 0.0f;
      EXPECT_EQ(got[i * dim + c], want) << i << "," << c;
    }
}

} // namespace

TEST(MultiSlice, EmbeddingLookupOnOneTile) { lookupTest(1, 10, 3, false); }
TEST(MultiSlice, EmbeddingLookupSpreadOverTiles) { lookupTest(16, 37, 45, false); }
TEST(MultiSlice, EmbeddingLookupFollowsAPlan) { lookupTest(4, 23, 19, true); }

// PopLibs' slice/plan options (usedForSlice, usedForUpdate, operationForUpdate,
// availableMemoryProportion, indicesDistribution, planMinimisationTarget, indicesAreSorted) are
// planning hints: programs pass them to embedding::plan, the create* functions and multiSlice,
// and the lookup still returns the table's rows. Both "used for" flags false is an error, as in
// PopLibs; a bad value is an invalid_option.
TEST(MultiSlice, PopLibsSliceOptionsAreAcceptedAndKeepResults) {
  const OptionFlags options{{"usedForSlice", "true"},
                            {"usedForUpdate", "false"},
                            {"operationForUpdate", "none"},
                            {"availableMemoryProportion", "0.2"},
                            {"indicesDistribution", "onePoint"},
                            {"planMinimisationTarget", "cycles"},
                            {"indicesAreSorted", "true"}};
  lookupTest(4, 23, 19, true, options);
  lookupTest(4, 23, 19, false, options);

  Device d = slicetest::device(4);
  Graph graph(d.getTarget());
  EXPECT_THROW(popops::embedding::plan(graph, FLOAT, 10, 8, {2},
                                       {{"usedForSlice", "false"}, {"usedForUpdate", "false"}}),
               poputil::poplibs_error);
  EXPECT_THROW(popops::embedding::plan(graph, FLOAT, 10, 8, {2}, {{"operationForUpdate", "min"}}),
               poplar::invalid_option);
}

TEST(MultiSlice, PlanSplitsColumnsOverTiles) {
  Device d = slicetest::device(4);
  Graph graph(d.getTarget());
  auto plan = popops::embedding::plan(graph, FLOAT, 100, 64, {8}, {});
  Tensor t = popops::createSliceableTensor(graph, FLOAT, {100, 64}, {0}, {1}, plan, {}, "t");
  const auto mapping = graph.getTileMapping(t);
  for (unsigned tile = 0; tile < 4; ++tile)
    EXPECT_EQ(std::accumulate(mapping[tile].begin(), mapping[tile].end(), std::size_t(0),
                              [](std::size_t s, const Interval &i) { return s + i.size(); }),
              1600u)
        << tile;
  EXPECT_EQ(plan, popops::SlicePlan(plan));
  EXPECT_NE(plan, popops::SlicePlan());
}

TEST(MultiSlice, SlicesAlongInnerDimOfIntTensorMappedLinearly) {
  Device d = slicetest::device(4);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor t = graph.addVariable(INT, {3, 7}, "t");
  poputil::mapTensorLinearly(graph, t, 1, 1);
  Tensor idx = graph.addVariable(UNSIGNED_INT, {2}, "idx");
  graph.setTileMapping(idx, 1);
  graph.createHostWrite("t", t);
  graph.createHostWrite("idx", idx);
  Sequence prog;
  Tensor out = popops::multiSlice(graph, t, idx, {1}, {2}, prog, {}, {}); // [2][3][2]
  ASSERT_EQ(out.shape(), (std::vector<std::size_t>{2, 3, 2}));
  graph.createHostRead("out", out);
  std::vector<int> host(21);
  for (int i = 0; i < 21; ++i)
    host[i] = 100 - 3 * i;
  const std::vector<unsigned> indices{5, 6}; // 6 + 2 > 7: out of range -> zeros
  auto r = slicetest::run(graph, d, prog, {{"t", bytesOf(host)}, {"idx", bytesOf(indices)}},
                          {{"out", 12 * sizeof(int)}});
  const auto got = valuesOf<int>(r["out"]);
  for (int i = 0; i < 2; ++i)
    for (int row = 0; row < 3; ++row)
      for (int j = 0; j < 2; ++j) {
        const unsigned col = indices[i] + j;
        const int want = indices[i] + 2 <= 7 ? host[row * 7 + col] : 0;
        EXPECT_EQ(got[(i * 3 + row) * 2 + j], want) << i << row << j;
      }
}

namespace {

template <class T>
std::vector<T> runUpdate(bool add, Type type, unsigned tiles, std::size_t vocab, std::size_t dim,
                         const std::vector<unsigned> &indices, const std::vector<T> &base,
                         const std::vector<T> &slices, T scaleValue) {
  Device d = slicetest::device(tiles);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor t = popops::createSliceableTensor(graph, type, {vocab, dim}, {0}, {1}, 0, "table");
  const std::size_t n = indices.size();
  Tensor s = popops::createSliceTensor(graph, t, {0}, {1}, n, "grads");
  Tensor idx = popops::createIndicesTensor(graph, {0}, n, {}, {}, "idx");
  graph.createHostWrite("t", t);
  graph.createHostWrite("s", s);
  graph.createHostWrite("idx", idx);
  graph.createHostRead("t", t);
  Sequence prog;
  if (add) {
    Tensor scale = graph.addVariable(type, {}, "scale");
    graph.setTileMapping(scale, 0);
    graph.createHostWrite("scale", scale);
    popops::multiUpdateAdd(graph, t, s, idx, scale, {0}, {1}, prog, {}, {});
  } else {
    popops::multiUpdate(graph, t, s, idx, {0}, {1}, prog, {}, {});
  }
  std::map<std::string, std::vector<char>> in{
      {"t", bytesOf(base)}, {"s", bytesOf(slices)}, {"idx", bytesOf(indices)}};
  if (add)
    in["scale"] = bytesOf(std::vector<T>{scaleValue});
  auto r = slicetest::run(graph, d, prog, in, {{"t", base.size() * sizeof(T)}});
  return valuesOf<T>(r["t"]);
}

} // namespace

TEST(MultiUpdateAdd, AccumulatesRepeatedIndicesInOrder) {
  for (unsigned tiles : {1u, 16u}) {
    const std::size_t vocab = 13, dim = 21;
    const std::vector<unsigned> indices{2, 7, 2, 12, 99, 2, 0};
    std::vector<float> base(vocab * dim), slices(indices.size() * dim);
    for (std::size_t i = 0; i < base.size(); ++i)
      base[i] = 0.1f * float(i);
    for (std::size_t i = 0; i < slices.size(); ++i)
      slices[i] = 1.0f / float(i + 1);
    const float scale = -0.5f;
    auto got = runUpdate<float>(true, FLOAT, tiles, vocab, dim, indices, base, slices, scale);
    std::vector<float> want = base;
    for (std::size_t i = 0; i < indices.size(); ++i)
      if (indices[i] < vocab)
        for (std::size_t c = 0; c < dim; ++c)
          want[indices[i] * dim + c] += scale * slices[i * dim + c];
    for (std::size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-5f) << tiles << " " << i;
  }
}

TEST(MultiUpdateAdd, HalfAccumulatesInFloatAndRoundsEachStep) {
  const std::size_t vocab = 5, dim = 9;
  const std::vector<unsigned> indices{1, 1, 4};
  std::vector<half> base(vocab * dim, half(1.0f)), slices(indices.size() * dim);
  for (std::size_t i = 0; i < slices.size(); ++i)
    slices[i] = half(float(i) * 0.25f);
  auto got = runUpdate<half>(true, HALF, 4, vocab, dim, indices, base, slices, half(2.0f));
  std::vector<half> want = base;
  for (std::size_t i = 0; i < indices.size(); ++i)
    for (std::size_t c = 0; c < dim; ++c) {
      half &w = want[indices[i] * dim + c];
      w = half(float(w) + 2.0f * float(slices[i * dim + c]));
    }
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(float(got[i]), float(want[i])) << i;
}

// PopLibs lets a HALF table take a FLOAT scale in multiUpdateAdd (otherwise the scale has the
// table's type); the table accumulates t[i] += scale * s[i] in place.
TEST(MultiUpdateAdd, HalfTableTakesAFloatScale) {
  Device d = slicetest::device(4);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  const std::size_t vocab = 6, dim = 5;
  const std::vector<unsigned> indices{4, 1, 4};
  Tensor t = popops::createSliceableTensor(graph, HALF, {vocab, dim}, {0}, {1}, 0, "table");
  Tensor s = popops::createSliceTensor(graph, t, {0}, {1}, indices.size(), "grads");
  Tensor idx = popops::createIndicesTensor(graph, {0}, indices.size(), {}, {}, "idx");
  Tensor scale = graph.addVariable(FLOAT, {}, "scale");
  graph.setTileMapping(scale, 0);
  graph.createHostWrite("t", t);
  graph.createHostWrite("s", s);
  graph.createHostWrite("idx", idx);
  graph.createHostWrite("scale", scale);
  graph.createHostRead("t", t);
  Sequence prog;
  popops::multiUpdateAdd(graph, t, s, idx, scale, {0}, {1}, prog, {}, {});
  std::vector<half> base(vocab * dim), slices(indices.size() * dim);
  for (std::size_t i = 0; i < base.size(); ++i)
    base[i] = half(0.5f * float(i));
  for (std::size_t i = 0; i < slices.size(); ++i)
    slices[i] = half(float(i) - 3.0f);
  const float scaleValue = -0.25f; // exact in HALF, so rounding the scale changes nothing
  auto r = slicetest::run(graph, d, prog,
                          {{"t", bytesOf(base)},
                           {"s", bytesOf(slices)},
                           {"idx", bytesOf(indices)},
                           {"scale", bytesOf(std::vector<float>{scaleValue})}},
                          {{"t", base.size() * sizeof(half)}});
  const auto got = valuesOf<half>(r["t"]);
  std::vector<half> want = base;
  for (std::size_t i = 0; i < indices.size(); ++i)
    for (std::size_t c = 0; c < dim; ++c) {
      half &w = want[indices[i] * dim + c];
      w = half(float(w) + scaleValue * float(slices[i * dim + c]));
    }
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(float(got[i]), float(want[i])) << i;

  Tensor intScale = graph.addVariable(INT, {}, "intScale");
  graph.setTileMapping(intScale, 0);
  EXPECT_THROW(popops::multiUpdateAdd(graph, t, s, idx, intScale, {0}, {1}, prog, {}, {}),
               poputil::poplibs_error);
}

TEST(MultiUpdate, LastWriteWinsAndOutOfRangeIsIgnored) {
  const std::size_t vocab = 6, dim = 5;
  const std::vector<unsigned> indices{4, 0, 4, 6, 100};
  std::vector<unsigned> base(vocab * dim), slices(indices.size() * dim);
  for (std::size_t i = 0; i < base.size(); ++i)
    base[i] = unsigned(i);
  for (std::size_t i = 0; i < slices.size(); ++i)
    slices[i] = 1000u + unsigned(i);
  auto got = runUpdate<unsigned>(false, UNSIGNED_INT, 4, vocab, dim, indices, base, slices, 0u);
  std::vector<unsigned> want = base;
  for (std::size_t i = 0; i < indices.size(); ++i)
    if (indices[i] < vocab)
      for (std::size_t c = 0; c < dim; ++c)
        want[indices[i] * dim + c] = slices[i * dim + c];
  EXPECT_EQ(got, want);
}

namespace {

/// multiSlice and multiUpdateAdd of `indices` into a [vocab, dim] table under the given options.
void runWithOffsets(const std::vector<unsigned> &indices, const OptionFlags &engineOptions) {
  Device d = slicetest::device(4);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  const std::size_t vocab = 6, dim = 5;
  Tensor table = popops::createSliceableTensor(graph, FLOAT, {vocab, dim}, {0}, {1}, 0, "table");
  Tensor idx = popops::createIndicesTensor(graph, {0}, indices.size(), {}, {}, "idx");
  graph.createHostWrite("idx", idx);
  Sequence prog;
  Tensor out = popops::multiSlice(graph, table, idx, {0}, {1}, prog, {}, {}, "lookup");
  Tensor scale = graph.addConstant<float>(FLOAT, {}, 1.0f, "scale");
  graph.setTileMapping(scale, 0);
  popops::multiUpdateAdd(graph, table, out, idx, scale, {0}, {1}, prog, {}, {}, "grad");
  Engine engine(graph, prog, engineOptions);
  engine.load(d);
  engine.writeTensor("idx", indices.data(), indices.data() + indices.size());
  engine.run();
}

} // namespace

TEST(MultiSlice, RuntimeVerifyReportsAnOutOfRangeIndexClearly) {
  // Without the option an out-of-range index is defined (zeros / skipped): no error.
  EXPECT_NO_THROW(runWithOffsets({1, 9}, {}));
  try {
    runWithOffsets({1, 9}, {{"debug.runtimeVerify", "true"}});
    FAIL() << "expected application_runtime_error";
  } catch (const application_runtime_error &e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("popops::MultiSlice<float>"), std::string::npos) << m;
    EXPECT_NE(m.find("lookup"), std::string::npos) << m;
    EXPECT_NE(m.find("outside the sliced dimension"), std::string::npos) << m;
  }
  // In range, the checks pass.
  EXPECT_NO_THROW(runWithOffsets({0, 5, 2}, {{"debug.runtimeVerify", "true"}}));
}
