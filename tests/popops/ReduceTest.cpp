// popops::reduce against a naive double reference: every operation, FLOAT/HALF/INT/BOOL, one and
// many tiles, odd sizes, views, many dimension sets, scale and update, reduceMany, thread counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "ReduceTestSupport.hpp"

using namespace reduce_test;
using poplar::Device;
using poplar::Tensor;
using popops::Operation;

namespace {

std::size_t product(const std::vector<std::size_t> &s) {
  std::size_t n = 1;
  for (auto x : s)
    n *= x;
  return n;
}

std::vector<double> absolute(std::vector<double> v) {
  for (auto &x : v)
    x = std::abs(x);
  return v;
}

/// Runs `r` on sample data and checks every output against the reference.
void check(const Run &r, const std::vector<std::size_t> &viewShape, unsigned seed = 1) {
  const Operation op = r.params.op;
  const auto input = sampleInput(r.type, op, product(viewShape), seed);
  std::vector<std::size_t> outShape;
  const auto got = runReduce(r, input, &outShape);
  const auto want = ::reference::reduce(input, viewShape, r.dims, op);
  const auto magnitude =
      ::reference::reduce(absolute(input), viewShape, r.dims,
                op == Operation::SQUARE_ADD ? Operation::SQUARE_ADD : Operation::ADD);
  std::vector<std::size_t> wantShape;
  for (std::size_t d = 0; d < viewShape.size(); ++d)
    if (std::find(r.dims.begin(), r.dims.end(), d) == r.dims.end())
      wantShape.push_back(viewShape[d]);
  ASSERT_EQ(outShape, wantShape);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double mag = op == Operation::MUL       ? std::abs(want[i])
                       : op == Operation::LOG_ADD ? 1.0
                                                  : magnitude[i];
    EXPECT_NEAR(got[i], want[i], tolerance(r.type, r.outType, op, want[i], mag))
        << "output " << i << " op " << op << " type " << r.type.toString();
  }
}

Run basic(poplar::Type type, Operation op, std::vector<std::size_t> shape,
          std::vector<std::size_t> dims, unsigned tiles = 16) {
  Run r;
  r.type = r.outType = type;
  r.params = op;
  r.varShape = std::move(shape);
  r.dims = std::move(dims);
  r.tiles = tiles;
  return r;
}

const Operation kArithmetic[] = {Operation::ADD, Operation::MUL,        Operation::MIN,
                                 Operation::MAX, Operation::SQUARE_ADD, Operation::LOG_ADD};

} // namespace

TEST(Reduce, EveryArithmeticOperationOnFloatHalfAndInt) {
  for (auto type : {poplar::FLOAT, poplar::HALF, poplar::INT})
    for (Operation op : kArithmetic) {
      if (type == poplar::INT && op == Operation::LOG_ADD)
        continue;
      for (auto dims : {std::vector<std::size_t>{1}, std::vector<std::size_t>{0, 2}}) {
        SCOPED_TRACE(testing::Message() << op << " " << type.toString());
        check(basic(type, op, {6, 7, 5}, dims), {6, 7, 5});
      }
    }
}

TEST(Reduce, LogicalOperationsOnBool) {
  for (Operation op : {Operation::LOGICAL_AND, Operation::LOGICAL_OR})
    for (auto dims :
         {std::vector<std::size_t>{0}, std::vector<std::size_t>{1}, std::vector<std::size_t>{0, 1}})
      check(basic(poplar::BOOL, op, {9, 4}, dims), {9, 4});
}

TEST(Reduce, ManyDimensionSetsOnRank4) {
  const std::vector<std::vector<std::size_t>> sets = {{},     {0},    {3},       {1, 3},
                                                      {2, 0}, {3, 1}, {0, 1, 2}, {3, 1, 0, 2}};
  for (const auto &dims : sets)
    for (unsigned tiles : {1u, 16u}) {
      SCOPED_TRACE(testing::Message() << "dims " << dims.size() << " tiles " << tiles);
      check(basic(poplar::FLOAT, Operation::ADD, {3, 4, 5, 6}, dims, tiles), {3, 4, 5, 6});
      check(basic(poplar::INT, Operation::MAX, {3, 4, 5, 6}, dims, tiles), {3, 4, 5, 6});
      check(basic(poplar::HALF, Operation::MIN, {3, 4, 5, 6}, dims, tiles), {3, 4, 5, 6});
    }
}

TEST(Reduce, AllDimensionsGiveAScalar) {
  std::vector<std::size_t> shape;
  auto r = basic(poplar::FLOAT, Operation::ADD, {1013}, {0});
  const auto input = sampleInput(poplar::FLOAT, Operation::ADD, 1013);
  const auto got = runReduce(r, input, &shape);
  EXPECT_TRUE(shape.empty());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_NEAR(got[0], ::reference::reduce(input, {1013}, {0}, Operation::ADD)[0], 1e-3);
}

TEST(Reduce, OddSizesOnOneAndManyTiles) {
  for (unsigned tiles : {1u, 4u, 16u})
    for (auto dims : {std::vector<std::size_t>{0}, std::vector<std::size_t>{1}}) {
      check(basic(poplar::FLOAT, Operation::ADD, {37, 129}, dims, tiles), {37, 129});
      check(basic(poplar::HALF, Operation::SQUARE_ADD, {37, 129}, dims, tiles), {37, 129});
    }
}

TEST(Reduce, DimShuffledAndSlicedViews) {
  auto shuffled = basic(poplar::FLOAT, Operation::ADD, {4, 6, 5}, {0});
  shuffled.view = [](const Tensor &t) { return t.dimShuffle({2, 0, 1}); }; // [5,4,6]
  check(shuffled, {5, 4, 6});
  shuffled.dims = {1, 2};
  check(shuffled, {5, 4, 6});
  auto sliced = basic(poplar::HALF, Operation::MAX, {8, 10}, {1});
  sliced.view = [](const Tensor &t) { return t.slice({1, 3}, {7, 9}); }; // [6,6]
  check(sliced, {6, 6});
  auto transposed = basic(poplar::INT, Operation::ADD, {7, 9}, {0});
  transposed.view = [](const Tensor &t) { return t.transpose(); }; // [9,7]
  check(transposed, {9, 7});
}

TEST(Reduce, FloatToHalfAndHalfToFloat) {
  auto r = basic(poplar::FLOAT, Operation::ADD, {12, 10}, {1});
  r.outType = poplar::HALF;
  check(r, {12, 10});
  r = basic(poplar::HALF, Operation::LOG_ADD, {12, 10}, {0});
  r.outType = poplar::FLOAT;
  check(r, {12, 10});
}

TEST(Reduce, EmptyDimsIsACopyOrCast) {
  auto r = basic(poplar::HALF, Operation::ADD, {5, 7}, {});
  r.outType = poplar::FLOAT;
  const auto input = sampleInput(poplar::HALF, Operation::ADD, 35);
  EXPECT_EQ(runReduce(r, input), input);
}

TEST(Reduce, LongFloatSumIsAccurate) {
  // 300k values of 0.1: a naive float loop drifts by ~1e-3 relative; blocked stays ~1e-6.
  auto r = basic(poplar::FLOAT, Operation::ADD, {300000}, {0}, 4);
  const std::vector<double> input(300000, 0.1f);
  const double want = 300000 * static_cast<double>(0.1f);
  EXPECT_NEAR(runReduce(r, input)[0], want, want * 2e-6);
}

TEST(Reduce, ResultsAreBitIdenticalForOneAndTwoHostThreads) {
  auto r = basic(poplar::FLOAT, Operation::ADD, {64, 300}, {0});
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> input(64 * 300);
  for (auto &x : input)
    x = static_cast<float>(u(gen));
  r.hostThreads = 1;
  const auto one = runReduce(r, input);
  r.hostThreads = 2;
  EXPECT_EQ(one, runReduce(r, input));
  r.dims = {1};
  r.hostThreads = 1;
  const auto innerOne = runReduce(r, input);
  r.hostThreads = 2;
  EXPECT_EQ(innerOne, runReduce(r, input));
}

namespace {

/// reduceWithOutput into `out` holding `initial`, returning out afterwards.
std::vector<float> reduceInto(const std::vector<float> &input, const std::vector<float> &initial,
                              Operation op, bool update, bool useScale, float scaleValue) {
  Device d = device(4);
  poplar::Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor in =
      graph.addVariable(poplar::FLOAT, {static_cast<std::size_t>(input.size() / 3), 3}, "in");
  poputil::mapTensorLinearly(graph, in, 1, 1);
  Tensor out = graph.addVariable(poplar::FLOAT, {3}, "out");
  graph.setTileMapping(out, 3);
  Tensor scale = graph.addConstant(poplar::FLOAT, {}, scaleValue, "scale");
  graph.setTileMapping(scale, 1);
  graph.createHostWrite("in", in);
  graph.createHostWrite("out", out);
  graph.createHostRead("out", out);
  poplar::program::Sequence prog;
  popops::ReduceParams params =
      useScale ? popops::ReduceParams(op, update, scale) : popops::ReduceParams(op, update);
  popops::reduceWithOutput(graph, in, out, {0}, params, prog);
  poplar::Engine engine(graph, prog);
  engine.load(d);
  engine.writeTensor("in", input.data(), input.data() + input.size());
  engine.writeTensor("out", initial.data(), initial.data() + initial.size());
  engine.run();
  std::vector<float> got(3);
  engine.readTensor("out", got.data(), got.data() + 3);
  return got;
}

} // namespace

TEST(ReduceWithOutput, ScaleAndUpdateForAdd) {
  std::vector<float> input;
  for (int i = 0; i < 30; ++i)
    input.push_back(static_cast<float>(i % 7) - 2.5f);
  const std::vector<float> initial = {1.0f, -2.0f, 10.0f};
  std::vector<double> colSum(3, 0.0);
  for (std::size_t i = 0; i < input.size(); ++i)
    colSum[i % 3] += input[i];
  const auto plain = reduceInto(input, initial, Operation::ADD, false, false, 0);
  const auto scaled = reduceInto(input, initial, Operation::ADD, false, true, 0.5f);
  const auto updated = reduceInto(input, initial, Operation::ADD, true, true, -2.0f);
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(plain[c], colSum[c], 1e-5);
    EXPECT_NEAR(scaled[c], 0.5 * colSum[c], 1e-5);
    EXPECT_NEAR(updated[c], initial[c] - 2.0 * colSum[c], 1e-5);
  }
}

TEST(ReduceWithOutput, LogAddUpdateAddsInLogSpace) {
  std::vector<float> input;
  for (int i = 0; i < 12; ++i)
    input.push_back(static_cast<float>(i) * 0.25f - 1.0f);
  const std::vector<float> initial = {0.0f, -3.0f, 2.0f};
  const auto got = reduceInto(input, initial, Operation::LOG_ADD, true, true, 0.5f);
  for (int c = 0; c < 3; ++c) {
    double s = 0;
    for (std::size_t i = c; i < input.size(); i += 3)
      s += std::exp(static_cast<double>(input[i]));
    const double lse = std::log(s) + 0.5;
    const double want = std::log(std::exp(lse) + std::exp(static_cast<double>(initial[c])));
    EXPECT_NEAR(got[c], want, 1e-5);
  }
}

TEST(ReduceMany, TwoReductionsShareTwoComputeSets) {
  Device d = device(4);
  poplar::Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor a = graph.addVariable(poplar::FLOAT, {5, 8}, "a");
  Tensor b = graph.addVariable(poplar::INT, {6, 3}, "b");
  poputil::mapTensorLinearly(graph, a, 1, 1);
  poputil::mapTensorLinearly(graph, b, 1, 1);
  graph.createHostWrite("a", a);
  graph.createHostWrite("b", b);
  std::vector<popops::SingleReduceOp> ops = {
      popops::SingleReduceOp(a, {1}, Operation::MAX, "maxA"),
      popops::SingleReduceOp(b, {0}, Operation::ADD, poplar::INT, "sumB")};
  std::vector<Tensor> outs;
  poplar::program::Sequence prog;
  popops::reduceMany(graph, ops, outs, prog);
  ASSERT_EQ(outs.size(), 2u);
  graph.createHostRead("oa", outs[0]);
  graph.createHostRead("ob", outs[1]);
  poplar::Engine engine(graph, prog);
  engine.load(d);
  std::vector<float> ha(40);
  std::vector<int> hb(18);
  for (int i = 0; i < 40; ++i)
    ha[i] = static_cast<float>((i * 37) % 11) - 4.0f;
  for (int i = 0; i < 18; ++i)
    hb[i] = i * i - 50;
  engine.writeTensor("a", ha.data(), ha.data() + 40);
  engine.writeTensor("b", hb.data(), hb.data() + 18);
  engine.run();
  std::vector<float> oa(5);
  std::vector<int> ob(3);
  engine.readTensor("oa", oa.data(), oa.data() + 5);
  engine.readTensor("ob", ob.data(), ob.data() + 3);
  for (int r = 0; r < 5; ++r) {
    float m = ha[r * 8];
    for (int c = 1; c < 8; ++c)
      m = std::max(m, ha[r * 8 + c]);
    EXPECT_EQ(oa[r], m);
  }
  for (int c = 0; c < 3; ++c) {
    long long s = 0;
    for (int r = 0; r < 6; ++r)
      s += hb[r * 3 + c];
    EXPECT_EQ(ob[c], s);
  }
}

TEST(Reduce, OperationPrintsAndParsesItsName) {
  std::ostringstream os;
  os << Operation::SQUARE_ADD;
  EXPECT_EQ(os.str(), "SQUARE_ADD");
  std::istringstream is("LOG_ADD");
  Operation op = Operation::ADD;
  is >> op;
  EXPECT_EQ(op, Operation::LOG_ADD);
}

TEST(Reduce, ReducingZeroElementsGivesTheIdentity) {
  auto r = basic(poplar::FLOAT, Operation::ADD, {0, 3}, {0}, 4);
  EXPECT_EQ(runReduce(r, {}), std::vector<double>(3, 0.0));
  r = basic(poplar::INT, Operation::MUL, {3, 0}, {1}, 4);
  EXPECT_EQ(runReduce(r, {}), std::vector<double>(3, 1.0));
}

TEST(Reduce, LongColumnSumsAreAccurate) {
  // Outer reduction of 40000 rows x 3 columns on one tile: blocked column sums.
  auto r = basic(poplar::FLOAT, Operation::ADD, {40000, 3}, {0}, 1);
  const std::vector<double> input(120000, 0.1f);
  const double want = 40000 * static_cast<double>(0.1f);
  for (double got : runReduce(r, input))
    EXPECT_NEAR(got, want, want * 2e-6);
}

TEST(ReduceWithOutput, WritesIntoAStridedViewAndLeavesTheRestAlone) {
  Device d = device(4);
  poplar::Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor in = graph.addVariable(poplar::INT, {5, 4}, "in");
  poputil::mapTensorLinearly(graph, in, 1, 1);
  Tensor big = graph.addVariable(poplar::INT, {4, 2}, "big");
  poputil::mapTensorLinearly(graph, big, 1, 1);
  graph.createHostWrite("in", in);
  graph.createHostWrite("big", big);
  graph.createHostRead("big", big);
  poplar::program::Sequence prog;
  // Column 1 of big: a strided view spread over tiles.
  popops::reduceWithOutput(graph, in, big.slice(1, 2, 1).reshape({4}), {0}, Operation::ADD, prog);
  poplar::Engine engine(graph, prog);
  engine.load(d);
  std::vector<int> hin(20), hbig(8, -7);
  for (int i = 0; i < 20; ++i)
    hin[i] = 3 * i - 11;
  engine.writeTensor("in", hin.data(), hin.data() + 20);
  engine.writeTensor("big", hbig.data(), hbig.data() + 8);
  engine.run();
  engine.readTensor("big", hbig.data(), hbig.data() + 8);
  for (int c = 0; c < 4; ++c) {
    int s = 0;
    for (int r = 0; r < 5; ++r)
      s += hin[r * 4 + c];
    EXPECT_EQ(hbig[c * 2 + 1], s) << c;
    EXPECT_EQ(hbig[c * 2], -7) << c;
  }
}
