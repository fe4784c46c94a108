// multiUpdateMax/Mul, the grouped multi-slice family, the slice options and the planning and
// mapping helpers of popops/DynamicSlice.hpp against the golden reference
// (reference/DynamicSlice.hpp): FLOAT, HALF and INT; everything on one tile and spread over 16
// tiles; bit-identical with 1 and 2 host threads.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>

#include <poplar/Engine.hpp>
#include <poplar/Half.hpp>
#include <poplar/exceptions.hpp>
#include <popops/DynamicSlice.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <reference/DynamicSlice.hpp>

#include "SliceBench.hpp"

using namespace poplar;
using namespace poplar::program;
using reference::UpdateOp;
using slicebench::Bench;
using slicebench::data;
using slicebench::Values;
using Offsets = std::vector<std::size_t>;
inline Values asValues(const Offsets &o) { return Values(o.begin(), o.end()); }

namespace {

enum class Layout { OneTile, Spread };

/// A [rows][columns] tensor: on tile 0, or as the plan lays it out over every tile.
Tensor base(Bench &b, Layout layout, const Type &type, std::size_t groups,
            const std::vector<std::size_t> &shape, const popops::SlicePlan &plan) {
  if (layout == Layout::Spread)
    return groups
               ? popops::createGroupedSliceableTensor(b.graph, type, groups, shape, {0}, {1}, plan,
                                                      {}, "table")
               : popops::createSliceableTensor(b.graph, type, shape, {0}, {1}, plan, {}, "table");
  std::vector<std::size_t> full = shape;
  if (groups)
    full.insert(full.begin(), groups);
  Tensor t = b.graph.addVariable(type, full, "table");
  b.graph.setTileMapping(t, 0);
  return t;
}

Tensor slices(Bench &b, Layout layout, const Type &type, std::size_t groups,
              const std::vector<std::size_t> &shape, std::size_t n, const popops::SlicePlan &plan) {
  if (layout == Layout::Spread)
    return groups
               ? popops::createGroupedSliceTensor(b.graph, type, groups, shape, {0}, {1}, n, plan,
                                                  {}, "slices")
               : popops::createSliceTensor(b.graph, type, shape, {0}, {1}, n, plan, {}, "slices");
  std::vector<std::size_t> full{n, 1, shape[1]};
  if (groups)
    full.insert(full.begin(), groups);
  Tensor t = b.graph.addVariable(type, full, "slices");
  b.graph.setTileMapping(t, 0);
  return t;
}

Tensor indices(Bench &b, std::size_t groups, std::size_t n, const popops::SlicePlan &plan) {
  return groups ? popops::createGroupedIndicesTensor(b.graph, groups, {0}, n, plan, {}, "idx")
                : popops::createIndicesTensor(b.graph, {0}, n, plan, {}, "idx");
}

const std::vector<std::size_t> kShape{9, 21}; // 9 rows of 21 columns
// Repeated offsets (4 three times, 0 twice), the last row (8) and out-of-range ones (9, 40).
const Offsets kOffsets{4, 0, 8, 4, 9, 4, 0, 40};

void expectEqualValues(const Values &got, const Values &want, const std::string &what,
                       double tol = 0) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got[i])) << what << " element " << i;
    else
      EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << what << " element " << i;
  }
}

/// Runs one ungrouped update op on `layout` and compares with the reference.
void checkUpdate(UpdateOp op, const Type &type, Layout layout) {
  Bench b(16);
  const std::string opName = op == UpdateOp::Max ? "max" : op == UpdateOp::Mul ? "mul" : "add";
  const OptionFlags planOptions{{"operationForUpdate", opName}};
  auto plan =
      popops::embedding::plan(b.graph, type, kShape[0], kShape[1], {kOffsets.size()}, planOptions);
  const std::size_t n = kOffsets.size();
  const Values t0 = data(type, reference::numElements(kShape), 11);
  // Mul: factors near 1 keep HALF products in range.
  const Values s0 =
      op == UpdateOp::Mul ? data(type, n * kShape[1], 12, 0.5, 1.5) : data(type, n * kShape[1], 12);
  Tensor t = b.in(base(b, layout, type, 0, kShape, plan), "t", t0);
  Tensor s = b.in(slices(b, layout, type, 0, kShape, n, plan), "s", s0);
  Tensor idx = b.in(indices(b, 0, n, plan), "idx", asValues(kOffsets));
  if (op == UpdateOp::Max)
    popops::multiUpdateMax(b.graph, t, s, idx, {0}, {1}, b.prog, plan, planOptions, "max");
  else
    popops::multiUpdateMul(b.graph, t, s, idx, {0}, {1}, b.prog, plan, planOptions, "mul");
  b.out("t", t);
  Values want = t0;
  reference::multiUpdate(want, kShape, 0, s0, 1, kOffsets, op, type);
  expectEqualValues(b.run()["t"], want, opName + " " + type.toString());
}

TEST(MultiUpdateMax, TakesTheMaximumOfEverySliceAtRepeatedOffsetsAndIgnoresOutOfRange) {
  for (const auto &type : {FLOAT, HALF, INT})
    for (auto layout : {Layout::OneTile, Layout::Spread})
      checkUpdate(UpdateOp::Max, type, layout);
}

TEST(MultiUpdateMul, MultipliesByEverySliceInOffsetOrder) {
  for (const auto &type : {FLOAT, HALF, INT})
    for (auto layout : {Layout::OneTile, Layout::Spread})
      checkUpdate(UpdateOp::Mul, type, layout);
}

TEST(MultiUpdateMax, NaNInTheSlicePropagates) {
  Bench b(4);
  Tensor t = b.in(b.graph.addVariable(FLOAT, {3, 2}, "t"), "t", {1, 2, 3, 4, 5, 6});
  poputil::mapTensorLinearly(b.graph, t);
  Tensor s = b.in(b.graph.addVariable(FLOAT, {1, 1, 2}, "s"), "s", {NAN, 9});
  poputil::mapTensorLinearly(b.graph, s);
  Tensor idx = b.in(b.graph.addVariable(UNSIGNED_INT, {1, 1}, "idx"), "idx", {1});
  b.graph.setTileMapping(idx, 0);
  popops::multiUpdateMax(b.graph, t, s, idx, {0}, {1}, b.prog, {}, {});
  b.out("t", t);
  expectEqualValues(b.run()["t"], {1, 2, NAN, 9, 5, 6}, "max with NaN");
}

TEST(MultiUpdateAdd, FloatScaleOfAHalfTableKeepsItsPrecision) {
  // -341 + (1/3) * 1024 = 1/3: with the scale rounded to HALF first it would be 0.25.
  Bench b(4);
  Tensor t = b.in(b.graph.addVariable(HALF, {2, 4}, "t"), "t", Values(8, -341.0));
  poputil::mapTensorLinearly(b.graph, t);
  Tensor s = b.in(b.graph.addVariable(HALF, {1, 1, 4}, "s"), "s", Values(4, 1024.0));
  poputil::mapTensorLinearly(b.graph, s);
  Tensor idx = b.in(b.graph.addVariable(UNSIGNED_INT, {1, 1}, "idx"), "idx", {1});
  b.graph.setTileMapping(idx, 0);
  const float third = 1.0f / 3.0f;
  Tensor scale = b.in(b.graph.addVariable(FLOAT, {}, "scale"), "scale", {third});
  b.graph.setTileMapping(scale, 0);
  popops::multiUpdateAdd(b.graph, t, s, idx, scale, {0}, {1}, b.prog, {}, {});
  b.out("t", t);
  Values want(8, -341.0);
  reference::multiUpdate(want, {2, 4}, 0, Values(4, 1024.0), 1, {1}, UpdateOp::Add, HALF, third);
  EXPECT_NEAR(want[4], 1.0 / 3.0, 1e-3);
  expectEqualValues(b.run()["t"], want, "half table, float scale");
}

/// The grouped family over `groups` groups against the reference: slice, update, add (FLOAT
/// scale for HALF tables too), max, mul.
void checkGrouped(const Type &type, Layout layout, unsigned threads,
                  std::map<std::string, std::vector<char>> *bytes = nullptr) {
  const std::size_t groups = 3, n = 5;
  const std::vector<std::size_t> shape{6, 10};
  const Offsets offs{5, 0, 5, 6, 2, /* group 1 */ 1, 1, 1, 3, 4, /* group 2 */ 0, 2, 99, 2, 5};
  const std::size_t per = reference::numElements(shape);
  Bench b(16);
  auto plan = popops::embedding::plan(b.graph, type, groups, shape[0], shape[1], {n}, {});
  const Values t0 = data(type, groups * per, 21),
               s0 = data(type, groups * n * shape[1], 22, 0.5, 1.5);
  std::map<std::string, Values> want;
  auto addTable = [&](const std::string &name, UpdateOp op) {
    Tensor t = b.in(base(b, layout, type, groups, shape, plan), name, t0);
    Tensor s = b.in(slices(b, layout, type, groups, shape, n, plan), name + "Slices", s0);
    Tensor idx = b.in(indices(b, groups, n, plan), name + "Idx", asValues(offs));
    Values w = t0;
    if (op == UpdateOp::Set)
      popops::groupedMultiUpdate(b.graph, t, s, idx, {0}, {1}, b.prog, plan, {}, name);
    else if (op == UpdateOp::Max)
      popops::groupedMultiUpdateMax(b.graph, t, s, idx, {0}, {1}, b.prog, plan, {}, name);
    else if (op == UpdateOp::Mul)
      popops::groupedMultiUpdateMul(b.graph, t, s, idx, {0}, {1}, b.prog, plan, {}, name);
    else {
      // HALF tables take a FLOAT scale (rounded to HALF); others their own type.
      const Type scaleType = type == HALF ? FLOAT : type;
      Tensor scale = b.in(b.graph.addVariable(scaleType, {}, "scale"), name + "Scale", {-2});
      b.graph.setTileMapping(scale, 0);
      popops::groupedMultiUpdateAdd(b.graph, t, s, idx, scale, {0}, {1}, b.prog, plan, {}, name);
    }
    reference::groupedMultiUpdate(w, groups, shape, 0, s0, 1, offs, op, type, -2.0);
    b.out(name, t);
    want[name] = w;
    return t;
  };
  Tensor sliced = addTable("set", UpdateOp::Set);
  addTable("add", UpdateOp::Add);
  addTable("max", UpdateOp::Max);
  addTable("mul", UpdateOp::Mul);
  // Slice the table after its update, through the slicing indices of that table.
  Tensor sliceIdx = b.in(indices(b, groups, n, plan), "sliceIdx", asValues(offs));
  Tensor got =
      popops::groupedMultiSlice(b.graph, sliced, sliceIdx, {0}, {1}, b.prog, plan, {}, "lookup");
  ASSERT_EQ(got.shape(), (std::vector<std::size_t>{groups, n, 1, shape[1]}));
  b.out("slice", got);
  want["slice"] = reference::groupedMultiSlice(want["set"], groups, shape, 0, 1, offs);
  if (bytes) {
    *bytes = b.runBytes(threads);
    return;
  }
  auto r = b.run(threads);
  const double addTol = type == HALF ? 1e-3 : type == FLOAT ? 1e-6 : 0;
  for (const auto &[name, w] : want)
    expectEqualValues(r.at(name), w, name + " " + type.toString(), name == "add" ? addTol : 0);
}

TEST(GroupedMultiSlice, EveryGroupSlicesAndUpdatesItsOwnTable) {
  for (const auto &type : {FLOAT, HALF, INT})
    for (auto layout : {Layout::OneTile, Layout::Spread})
      checkGrouped(type, layout, 1);
}

TEST(GroupedMultiSlice, ResultsAreBitIdenticalWithOneAndTwoHostThreads) {
  for (const auto &type : {FLOAT, HALF}) {
    std::map<std::string, std::vector<char>> one, two;
    checkGrouped(type, Layout::Spread, 1, &one);
    checkGrouped(type, Layout::Spread, 2, &two);
    EXPECT_EQ(one, two) << type.toString();
  }
}

TEST(GroupedMultiSlice, GroupedTensorsPutEachGroupOnItsOwnTiles) {
  Bench b(16);
  auto plan = popops::embedding::plan(b.graph, FLOAT, 4, 10, 8, {3}, {});
  Tensor t = popops::createGroupedSliceableTensor(b.graph, FLOAT, 4, {10, 8}, {0}, {1}, plan, {});
  ASSERT_EQ(t.shape(), (std::vector<std::size_t>{4, 10, 8}));
  for (std::size_t g = 0; g < 4; ++g) {
    const auto mapping = b.graph.getTileMapping(t[g]);
    for (unsigned tile = 0; tile < mapping.size(); ++tile)
      if (!mapping[tile].empty()) {
        EXPECT_EQ(tile / 4, g) << "group " << g << " on tile " << tile;
      }
  }
  Tensor s = popops::createGroupedSliceTensor(b.graph, FLOAT, 4, {10, 8}, {0}, {1}, 3, plan, {});
  EXPECT_EQ(s.shape(), (std::vector<std::size_t>{4, 3, 1, 8}));
  Tensor i = popops::createGroupedIndicesTensor(b.graph, 4, {0}, 3, plan, {});
  EXPECT_EQ(i.shape(), (std::vector<std::size_t>{4, 3, 1}));
  EXPECT_EQ(i.elementType(), UNSIGNED_INT);
}

/// multiSlice with the index options against the reference.
Values sliceWithOptions(const OptionFlags &options, const Offsets &offs,
                        const reference::SliceIndexOptions &ref, Values *want) {
  Bench b(4);
  const Values t0 = data(FLOAT, reference::numElements(kShape), 31);
  Tensor t = b.in(popops::createSliceableTensor(b.graph, FLOAT, kShape, {0}, {1}, 0, "t"), "t", t0);
  Tensor idx =
      b.in(b.graph.addVariable(UNSIGNED_INT, {offs.size(), 1}, "idx"), "idx", asValues(offs));
  poputil::mapTensorLinearly(b.graph, idx);
  b.out("out", popops::multiSlice(b.graph, t, idx, {0}, {1}, b.prog, {}, options, "lookup"));
  *want = reference::multiSlice(t0, kShape, 0, 1, offs, ref);
  return b.run()["out"];
}

TEST(MultiSliceOptions, RemapOutOfBoundIndicesReadsRowZero) {
  Values want;
  const auto got =
      sliceWithOptions({{"remapOutOfBoundIndices", "true"}}, {3, 9, 100, 8}, {true, false}, &want);
  expectEqualValues(got, want, "remapped");
  EXPECT_EQ(got[21], got[42]); // offsets 9 and 100 both read row 0
}

TEST(MultiSliceOptions, PaddingIndexSlicesZerosEvenWhenRemapping) {
  Values want;
  const auto got =
      sliceWithOptions({{"remapOutOfBoundIndices", "true"}, {"paddingIndexUsed", "true"}},
                       {9, 2, 10}, {true, true}, &want);
  expectEqualValues(got, want, "padding");
  for (std::size_t c = 0; c < kShape[1]; ++c)
    EXPECT_EQ(got[c], 0.0);
}

TEST(MultiSliceOptions, ValidateIndicesStopsTheRunOnAnOutOfRangeIndex) {
  Values want;
  // The padding index is never reported.
  EXPECT_NO_THROW(sliceWithOptions({{"validateIndices", "true"}, {"paddingIndexUsed", "true"}},
                                   {1, 9}, {false, true}, &want));
  try {
    sliceWithOptions({{"validateIndices", "true"}}, {1, 10}, {}, &want);
    FAIL() << "expected application_runtime_error";
  } catch (const poplar::application_runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("outside the sliced dimension"), std::string::npos)
        << e.what();
  }
}

TEST(DynamicSliceOptions, PaddingIndexGivesZerosInsteadOfRowZero) {
  Bench b(4);
  const Values t0 = data(FLOAT, reference::numElements(kShape), 41);
  Tensor t = b.in(popops::createSliceableTensor(b.graph, FLOAT, kShape, {0}, {2}, 0, "t"), "t", t0);
  Tensor off = b.in(b.graph.addVariable(UNSIGNED_INT, {1}, "off"), "off", {9});
  b.graph.setTileMapping(off, 0);
  b.out("padded", popops::dynamicSlice(b.graph, t, off, {0}, {2}, b.prog, "pad",
                                       {{"paddingIndexUsed", "true"}}));
  b.out("wrapped", popops::dynamicSlice(b.graph, t, off, {0}, {2}, b.prog, "wrap"));
  auto r = b.run();
  expectEqualValues(r["padded"], reference::dynamicSlice(t0, kShape, 0, 2, 9, true), "padded");
  expectEqualValues(r["wrapped"], reference::dynamicSlice(t0, kShape, 0, 2, 9), "wrapped");
}

TEST(MultiSliceHostOffsets, ConstantOffsetsSliceAndAccumulate) {
  Bench b(4);
  const Values t0 = data(FLOAT, reference::numElements(kShape), 51);
  const std::vector<unsigned> offs{2, 7, 2, 30};
  const Offsets offsZ(offs.begin(), offs.end());
  Tensor t = b.in(popops::createSliceableTensor(b.graph, FLOAT, kShape, {0}, {1}, 0, "t"), "t", t0);
  Tensor sliced = popops::multiSlice(b.graph, t, offs, 0, b.prog, "lookup");
  ASSERT_EQ(sliced.shape(), (std::vector<std::size_t>{4, 1, kShape[1]}));
  b.out("sliced", sliced);
  Tensor scale = b.graph.addConstant(FLOAT, {}, 0.5f, "scale");
  b.graph.setTileMapping(scale, 0);
  Tensor acc =
      b.in(popops::createSliceableTensor(b.graph, FLOAT, kShape, {0}, {1}, 0, "acc"), "acc", t0);
  popops::multiUpdateAdd(b.graph, acc, sliced, offs, scale, 0, b.prog, "grad");
  b.out("acc", acc);
  auto r = b.run();
  const Values wantSlices = reference::multiSlice(t0, kShape, 0, 1, offsZ);
  expectEqualValues(r["sliced"], wantSlices, "sliced");
  Values wantAcc = t0;
  reference::multiUpdate(wantAcc, kShape, 0, wantSlices, 1, offsZ, UpdateOp::Add, FLOAT, 0.5);
  expectEqualValues(r["acc"], wantAcc, "acc", 1e-6);
}

TEST(SliceMapping, GetSliceMappingIsTheMappingOfTheSlice) {
  Bench b(16);
  Tensor t = b.graph.addVariable(FLOAT, {6, 5, 7}, "t");
  poputil::mapTensorLinearly(b.graph, t, 1, 3);
  Tensor off = b.graph.addVariable(UNSIGNED_INT, {2}, "off");
  b.graph.setTileMapping(off, 0);
  Tensor s = popops::dynamicSlice(b.graph, t, off, {0, 2}, {2, 3}, b.prog);
  EXPECT_EQ(popops::getSliceMapping(b.graph, t, {0, 2}, {2, 3}), b.graph.getTileMapping(s));
}

TEST(SliceMapping, SliceableTensorFromSliceHoldsTheSliceColumnsOnTheSameTiles) {
  Bench b(16);
  Tensor s = b.graph.addVariable(HALF, {1, 12}, "s");
  poputil::mapTensorLinearly(b.graph, s, 1, 2);
  Tensor t = popops::createSliceableTensorFromSlice(b.graph, s, {0}, {5}, "t");
  ASSERT_EQ(t.shape(), (std::vector<std::size_t>{5, 12}));
  for (std::size_t r = 0; r < 5; ++r)
    EXPECT_EQ(b.graph.getTileMapping(t[r]), b.graph.getTileMapping(s[0])) << "row " << r;
}

TEST(EmbeddingPlan, PlanMultipleEqualsPlanningOneByOne) {
  Bench b(4);
  std::vector<popops::embedding::SlicePlanningParameters> params{
      {b.graph, HALF, 2, 1, 1, {1, 1}, {}}, {b.graph, FLOAT, 1, 4, 16, {2}, {}}};
  std::vector<popops::SlicePlan> oneByOne;
  for (const auto &p : params)
    oneByOne.push_back(popops::embedding::plan(p.graph, p.dataType, p.groupSize, p.numEntries,
                                               p.outputSize, p.numLookups, p.optionFlags));
  EXPECT_NE(oneByOne[0], oneByOne[1]);
  EXPECT_EQ(popops::embedding::planMultiple(params), oneByOne);
  EXPECT_TRUE((oneByOne[0] < oneByOne[1]) != (oneByOne[1] < oneByOne[0]));
  EXPECT_TRUE(popops::SlicePlan() < oneByOne[0]);
  EXPECT_EQ(popops::embedding::plan(b.graph, FLOAT, 4, 16, {2}, {}), oneByOne[1]);
}

// Error paths: the message names the argument at fault.
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

class GroupedSliceErrors : public ::testing::Test {
protected:
  Bench b{4};
  popops::SlicePlan plan = popops::embedding::plan(b.graph, FLOAT, 2, 10, 4, {3}, {});
  Tensor table = popops::createGroupedSliceableTensor(b.graph, FLOAT, 2, {10, 4}, {0}, {1}, plan,
                                                      {}, "groupedTable");
  Tensor idx = popops::createGroupedIndicesTensor(b.graph, 2, {0}, 3, plan, {}, "groupedIds");
  Tensor s = popops::createGroupedSliceTensor(b.graph, FLOAT, 2, {10, 4}, {0}, {1}, 3, plan, {},
                                              "groupedSlices");
};

TEST_F(GroupedSliceErrors, OffsetsWithAnotherGroupSizeAreNamed) {
  Tensor other = b.graph.addVariable(UNSIGNED_INT, {3, 3, 1}, "threeGroupIds");
  expectError([&] { popops::groupedMultiSlice(b.graph, table, other, {0}, {1}, b.prog, plan, {}); },
              {"groupedMultiSlice", "offsets", "threeGroupIds", "3 groups"});
  Tensor s3 = b.graph.addVariable(FLOAT, {3, 3, 1, 4}, "threeGroupSlices");
  expectError(
      [&] { popops::groupedMultiUpdateMax(b.graph, table, s3, idx, {0}, {1}, b.prog, plan, {}); },
      {"groupedMultiUpdateMax", "slices", "threeGroupSlices"});
}

TEST_F(GroupedSliceErrors, PlanForAnotherGroupSizeIsRejected) {
  expectError(
      [&] {
        popops::createGroupedSliceableTensor(b.graph, FLOAT, 3, {10, 4}, {0}, {1}, plan, {});
      },
      {"createGroupedSliceableTensor", "groupSize 3", "plan's groupSize 2"});
  expectError([&] { popops::createGroupedIndicesTensor(b.graph, 2, {0}, 3, {}, {}); },
              {"createGroupedIndicesTensor", "plan is empty"});
}

TEST_F(GroupedSliceErrors, BadRanksAndIndexTypesAreNamed) {
  Tensor flat = b.graph.addVariable(FLOAT, {10}, "flatTable");
  expectError([&] { popops::groupedMultiSlice(b.graph, flat, idx, {0}, {1}, b.prog, plan, {}); },
              {"groupedMultiSlice", "flatTable", "rank"});
  Tensor flatIds = b.graph.addVariable(UNSIGNED_INT, {2}, "flatIds");
  expectError(
      [&] { popops::groupedMultiSlice(b.graph, table, flatIds, {0}, {1}, b.prog, plan, {}); },
      {"offsets", "flatIds", "[groupSize][numOffsets]"});
  Tensor floatIds = b.graph.addVariable(FLOAT, {2, 3, 1}, "floatIds");
  expectError(
      [&] { popops::groupedMultiUpdate(b.graph, table, s, floatIds, {0}, {1}, b.prog, plan, {}); },
      {"groupedMultiUpdate", "offsets", "UNSIGNED_INT"});
  Tensor halfScale = b.graph.addVariable(HALF, {}, "halfScale");
  expectError(
      [&] {
        popops::groupedMultiUpdateAdd(b.graph, table, s, idx, halfScale, {0}, {1}, b.prog, plan,
                                      {});
      },
      {"groupedMultiUpdateAdd", "scale", "halfScale"});
}

TEST(SliceUpdateErrors, MaxAndMulNameMismatchedSlices) {
  Bench b(4);
  Tensor t = b.graph.addVariable(FLOAT, {10, 4}, "maxTable");
  Tensor idx = b.graph.addVariable(UNSIGNED_INT, {3, 1}, "ids");
  Tensor wrongType = b.graph.addVariable(HALF, {3, 1, 4}, "halfSlices");
  Tensor wrongShape = b.graph.addVariable(FLOAT, {3, 1, 5}, "wideSlices");
  expectError([&] { popops::multiUpdateMax(b.graph, t, wrongType, idx, {0}, {1}, b.prog, {}, {}); },
              {"multiUpdateMax", "halfSlices", "element type"});
  expectError(
      [&] { popops::multiUpdateMul(b.graph, t, wrongShape, idx, {0}, {1}, b.prog, {}, {}); },
      {"multiUpdateMul", "wideSlices", "[3,1,4]"});
  expectError<poplar::invalid_option>(
      [&] {
        popops::multiUpdateMax(b.graph, t, wrongShape, idx, {0}, {1}, b.prog, {},
                               {{"remapOutOfBoundIndices", "maybe"}});
      },
      {"remapOutOfBoundIndices"});
  expectError([&] { popops::createSliceableTensorFromSlice(b.graph, t, {2}, {3}); },
              {"createSliceableTensorFromSlice", "dims[0]"});
}

} // namespace

namespace {

TEST(DynamicSliceOptions, OffsetWithACopyPerTileReadsTheFirstCopy) {
  Bench b(4);
  const std::vector<std::size_t> shape{6, 8};
  const Values t0 = slicebench::data(FLOAT, 48, 91);
  Tensor t = b.in(popops::createSliceableTensor(b.graph, FLOAT, shape, {0}, {2}, 0, "t"), "t", t0);
  Tensor off = b.in(b.graph.addVariable(UNSIGNED_INT, {1, 4}, "offPerTile"), "off", {3, 3, 3, 3});
  poputil::mapTensorLinearly(b.graph, off);
  b.out("s", popops::dynamicSlice(b.graph, t, off, {0}, {2}, b.prog));
  Tensor u = b.in(popops::createSliceableTensor(b.graph, FLOAT, shape, {0}, {2}, 0, "u"), "u", t0);
  Tensor upd = b.in(b.graph.addVariable(FLOAT, {2, 8}, "upd"), "upd", Values(16, 7.0));
  poputil::mapTensorLinearly(b.graph, upd);
  popops::dynamicUpdate(b.graph, u, upd, off, {0}, {2}, b.prog);
  b.out("u", u);
  auto r = b.run();
  expectEqualValues(r["s"], reference::dynamicSlice(t0, shape, 0, 2, 3), "slice");
  Values want = t0;
  std::fill(want.begin() + 24, want.begin() + 40, 7.0);
  expectEqualValues(r["u"], want, "update");
}

} // namespace
