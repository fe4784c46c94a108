// Error paths of the Tensor view API: each throws the specific poplar exception and names the
// tensor (by its variable's debug name) and the bad argument.
#include <gtest/gtest.h>

#include <poplar/Graph.hpp>
#include <poplar/exceptions.hpp>

#include "ErrorMatchers.hpp"
#include "ViewReference.hpp"

using namespace poplar;

namespace {

class TensorErrors : public ::testing::Test {
protected:
  TensorErrors() : device(viewref::smallDevice(4)), graph(device.getTarget()) {
    t = graph.addVariable(FLOAT, {3, 4}, "weights");
  }
  Device device;
  Graph graph;
  Tensor t;
};

} // namespace

TEST_F(TensorErrors, SliceEndPastDimensionIsIndexError) {
  EXPECT_THROW_MSG(index_error, t.slice(2, 9, 1),
                   {"[2, 9)", "dimension 1", "'weights'", "float[3,4]"});
}

TEST_F(TensorErrors, SliceBeginAfterEndIsIndexError) {
  EXPECT_THROW_MSG(index_error, t.slice(3, 1, 0), {"[3, 1)", "'weights'"});
}

TEST_F(TensorErrors, SliceOfMissingDimensionIsIndexError) {
  EXPECT_THROW_MSG(index_error, t.slice(0, 1, 2),
                   {"dimension 2", "'weights'", "float[3,4]", "rank 2"});
  EXPECT_THROW_MSG(index_error, t.slice(Interval(0, 1), 5), {"dimension 5"});
}

TEST_F(TensorErrors, MultiDimSliceWithWrongIndexCountIsIndexError) {
  EXPECT_THROW_MSG(index_error, t.slice({0}, {1, 1}), {"'weights'", "got 1 and 2"});
  EXPECT_THROW_MSG(index_error, t.slice({0, 0}, {1, 5}), {"[0, 5)", "'weights'"});
}

TEST_F(TensorErrors, SlicesWithABadIntervalIsIndexError) {
  EXPECT_THROW_MSG(index_error, t.slices({Interval(0, 2), Interval(2, 7)}, 1),
                   {"[2, 7)", "'weights'"});
}

TEST_F(TensorErrors, OperatorBracketPastTheEndIsIndexError) {
  EXPECT_THROW_MSG(index_error, t[3], {"index 3", "dimension 0", "'weights'"});
  EXPECT_THROW_MSG(index_error, t[1][4], {"index 4", "'weights'"});
}

TEST_F(TensorErrors, IndexingARankZeroTensorIsIndexError) {
  Tensor s = graph.addVariable(INT, {}, "scalar");
  EXPECT_THROW_MSG(index_error, s[0], {"rank-0", "'scalar'"});
  EXPECT_THROW_MSG(index_error, t.index({1, 2, 0}), {"rank-0", "'weights'"});
}

TEST_F(TensorErrors, DimOutOfRangeIsIndexError) {
  EXPECT_THROW_MSG(index_error, t.dim(2), {"dimension 2", "'weights'", "float[3,4]"});
}

TEST_F(TensorErrors, ReshapeToAnotherElementCountIsShapeError) {
  EXPECT_THROW_MSG(shape_error, t.reshape({5, 2}), {"'weights'", "[5,2]", "from 12 to 10"});
  EXPECT_THROW_MSG(shape_error, t.reshapePartial(0, 1, {2}),
                   {"'weights'", "[2,4]", "from 12 to 8"});
}

TEST_F(TensorErrors, ReshapePartialOfBadRangeIsIndexError) {
  EXPECT_THROW_MSG(index_error, t.reshapePartial(1, 3, {4}), {"[1, 3)", "'weights'"});
  EXPECT_THROW_MSG(index_error, t.reshapePartial(2, 1, {}), {"[2, 1)", "'weights'"});
}

TEST_F(TensorErrors, FlattenOfBadRangeIsIndexError) {
  EXPECT_THROW_MSG(index_error, t.flatten(1, 3), {"flatten", "[1, 3)", "'weights'"});
  EXPECT_THROW_MSG(index_error, t.flatten(1, 1), {"flatten", "[1, 1)", "'weights'"});
}

TEST_F(TensorErrors, DimShuffleWithBadPermutationIsIndexError) {
  EXPECT_THROW_MSG(index_error, t.dimShuffle({0}), {"1 entries", "rank 2", "'weights'"});
  EXPECT_THROW_MSG(index_error, t.dimShuffle({1, 1}), {"entry 1", "repeated", "'weights'"});
  EXPECT_THROW_MSG(index_error, t.dimShuffle({0, 2}), {"entry 2", "'weights'"});
}

TEST_F(TensorErrors, DimShufflePartialWithBadListsIsIndexError) {
  EXPECT_THROW_MSG(index_error, t.dimShufflePartial({0, 1}, {1}),
                   {"2 source", "1 destination", "'weights'"});
  EXPECT_THROW_MSG(index_error, t.dimShufflePartial({0, 0}, {1, 0}), {"repeated", "'weights'"});
  EXPECT_THROW_MSG(index_error, t.dimShufflePartial({2}, {0}),
                   {"source dimension 2", "'weights'", "rank 2"});
}

TEST_F(TensorErrors, DimRollOutOfRangeIsIndexError) {
  EXPECT_THROW_MSG(index_error, t.dimRoll(2, 0), {"dimRoll(2, 0)", "'weights'"});
  EXPECT_THROW_MSG(index_error, t.dimRoll(0, 2), {"dimRoll(0, 2)", "'weights'"});
}

TEST_F(TensorErrors, TransposeOfRank3IsShapeError) {
  Tensor c = graph.addVariable(FLOAT, {2, 2, 2}, "cube");
  EXPECT_THROW_MSG(shape_error, c.transpose(), {"rank-2", "'cube'", "float[2,2,2]"});
}

TEST_F(TensorErrors, ExpandPastTheEndIsIndexError) {
  EXPECT_THROW_MSG(index_error, t.expand({3}), {"position 3", "'weights'"});
}

TEST_F(TensorErrors, SqueezeOfNonUnitDimIsShapeError) {
  EXPECT_THROW_MSG(shape_error, t.squeeze({1}), {"dimension 1", "size 4", "'weights'"});
}

TEST_F(TensorErrors, SqueezeOfMissingOrRepeatedDimIsIndexError) {
  Tensor u = graph.addVariable(FLOAT, {1, 3}, "unit");
  EXPECT_THROW_MSG(index_error, u.squeeze({2}), {"dimension 2", "'unit'"});
  EXPECT_THROW_MSG(index_error, u.squeeze({0, 0}), {"repeated", "'unit'"});
}

TEST_F(TensorErrors, RepeatingViewsOfMissingDimAreIndexErrors) {
  EXPECT_THROW_MSG(index_error, t.broadcast(2, 2), {"broadcast", "dimension 2", "'weights'"});
  EXPECT_THROW_MSG(index_error, t.reverse(3), {"reverse", "dimension 3", "'weights'"});
  EXPECT_THROW_MSG(index_error, t.subSample(2, 2), {"subSample", "dimension 2", "'weights'"});
  EXPECT_THROW_MSG(index_error, t.upsample(2, 4), {"upsample", "dimension 4", "'weights'"});
}

TEST_F(TensorErrors, SubSampleWithStrideZeroIsIndexError) {
  EXPECT_THROW_MSG(index_error, t.subSample(0, 1), {"stride 0", "'weights'"});
}

TEST_F(TensorErrors, ReinterpretToAnotherSizeIsTypeError) {
  EXPECT_THROW_MSG(type_error, t.reinterpret(HALF), {"'weights'", "half", "4 vs 2 bytes"});
  Tensor c = graph.addVariable(CHAR, {4}, "bytes");
  EXPECT_THROW_MSG(type_error, c.reinterpret(INT), {"'bytes'", "int", "1 vs 4 bytes"});
}

TEST_F(TensorErrors, ConcatOfMismatchedShapesIsShapeError) {
  Tensor other = graph.addVariable(FLOAT, {3, 5}, "bias");
  EXPECT_THROW_MSG(shape_error, concat(t, other, 0),
                   {"tensor 1", "'bias'", "float[3,5]", "'weights'"});
  // Along dim 1 the same pair is fine.
  EXPECT_EQ(concat(t, other, 1).shape(), (std::vector<std::size_t>{3, 9}));
}

TEST_F(TensorErrors, ConcatOfMismatchedRanksIsShapeError) {
  Tensor v = graph.addVariable(FLOAT, {4}, "vec");
  EXPECT_THROW_MSG(shape_error, concat(t, v, 0), {"'vec'", "float[4]"});
  EXPECT_THROW_MSG(shape_error, append(t, t, 0), {"'weights'"});
}

TEST_F(TensorErrors, ConcatOfMismatchedElementTypesIsTypeError) {
  Tensor h = graph.addVariable(HALF, {3, 4}, "halves");
  EXPECT_THROW_MSG(type_error, concat(t, h, 0), {"'halves'", "half", "float"});
}

TEST_F(TensorErrors, ConcatOfNothingIsShapeError) {
  EXPECT_THROW_MSG(shape_error, concat(std::vector<Tensor>{}, 0), {"empty"});
}

TEST_F(TensorErrors, ConcatAlongMissingDimIsIndexError) {
  EXPECT_THROW_MSG(index_error, concat(t, t, 2), {"dimension 2", "'weights'"});
}

TEST_F(TensorErrors, OperationsOnADefaultTensorArePoplarErrors) {
  Tensor invalid;
  EXPECT_THROW_MSG(poplar_error, invalid.shape(), {"invalid"});
  EXPECT_THROW_MSG(poplar_error, invalid.slice(0, 1), {"invalid"});
  EXPECT_THROW_MSG(poplar_error, concat(t, invalid), {"invalid"});
}
