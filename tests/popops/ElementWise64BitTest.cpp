// popops::map and the named binary operations on 64-bit integers (LONGLONG, UNSIGNED_LONGLONG):
// every operation PopLibs offers for them against reference::wideIntegerBinary, on one tile and
// spread linearly over 16, with constants and broadcast operands, the in-place and
// with-output forms, bit-identical results for 1 and 2 host threads, and the errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>
#include <reference/WideIntegerElementWise.hpp>

using namespace poplar;
using namespace poplar::program;
namespace pe = popops::expr;
using B = pe::BinaryOpType;

namespace {

struct OpCase {
  const char *name;
  B op;
  bool comparison;
};
const OpCase kOps[] = {
    {"ADD", B::ADD, false},
    {"SUBTRACT", B::SUBTRACT, false},
    {"MULTIPLY", B::MULTIPLY, false},
    {"DIVIDE", B::DIVIDE, false},
    {"REMAINDER", B::REMAINDER, false},
    {"MAXIMUM", B::MAXIMUM, false},
    {"MINIMUM", B::MINIMUM, false},
    {"BITWISE_AND", B::BITWISE_AND, false},
    {"BITWISE_OR", B::BITWISE_OR, false},
    {"BITWISE_XOR", B::BITWISE_XOR, false},
    {"BITWISE_XNOR", B::BITWISE_XNOR, false},
    {"SHIFT_LEFT", B::SHIFT_LEFT, false},
    {"SHIFT_RIGHT", B::SHIFT_RIGHT, false},
    {"SHIFT_RIGHT_SIGN_EXTEND", B::SHIFT_RIGHT_SIGN_EXTEND, false},
    {"EQUAL", B::EQUAL, true},
    {"NOT_EQUAL", B::NOT_EQUAL, true},
    {"LESS_THAN", B::LESS_THAN, true},
    {"LESS_THAN_EQUAL", B::LESS_THAN_EQUAL, true},
    {"GREATER_THAN", B::GREATER_THAN, true},
    {"GREATER_THAN_EQUAL", B::GREATER_THAN_EQUAL, true},
};

constexpr std::size_t kN = 96;

/// Operand bit patterns: edge values (0, ±1, the extremes, 2^32 neighbours), equal pairs,
/// shift amounts from 0 to 70, and random 64-bit patterns.
void operands(std::vector<std::uint64_t> &a, std::vector<std::uint64_t> &b) {
  const std::uint64_t edges[] = {0,
                                 1,
                                 ~std::uint64_t(0),
                                 std::uint64_t(1) << 63,
                                 (std::uint64_t(1) << 63) - 1,
                                 std::uint64_t(1) << 32,
                                 (std::uint64_t(1) << 32) - 1,
                                 12345678901234ull,
                                 static_cast<std::uint64_t>(-987654321098ll)};
  std::mt19937_64 rng(64);
  a.assign(kN, 0);
  b.assign(kN, 0);
  for (std::size_t i = 0; i < kN; ++i) {
    a[i] = i < 81 ? edges[i % 9] : rng();
    b[i] = i < 81 ? edges[i / 9] : (i % 2 ? a[i] : rng());
  }
  // Small and oversized shift amounts (and divisors) at the end.
  for (std::size_t i = 0; i < 8; ++i)
    b[kN - 1 - i] = i * 9 + (i > 5 ? 10 : 0); // 0, 9, …, 45, 64, 73
}

struct Outcome {
  std::vector<std::vector<unsigned char>> bytes; // one per op, in kOps order
};

/// Every op of `type` over `tiles` tiles with `threads` host threads.
Outcome runAll(Type type, unsigned tiles, unsigned threads) {
  IPUModel model;
  model.tilesPerIPU = tiles;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  Sequence prog;
  Tensor a = graph.addVariable(type, {kN}, "a"), b = graph.addVariable(type, {kN}, "b");
  poputil::mapTensorLinearly(graph, a, 1, 1);
  poputil::mapTensorLinearly(graph, b, 1, 1);
  graph.createHostWrite("a", a);
  graph.createHostWrite("b", b);
  std::vector<std::size_t> sizes;
  for (const OpCase &c : kOps) {
    if (c.op == B::SHIFT_RIGHT_SIGN_EXTEND && type == UNSIGNED_LONGLONG)
      continue;
    Tensor r = popops::map(graph, pe::BinaryOp(c.op, pe::_1, pe::_2), {a, b}, prog, c.name);
    graph.createHostRead(c.name, r);
    sizes.push_back(r.numElements() * graph.getTarget().getTypeSize(r.elementType()));
  }
  OptionFlags options;
  options.set("target.hostThreads", std::to_string(threads));
  Engine engine(graph, prog, options);
  engine.load(device);
  std::vector<std::uint64_t> av, bv;
  operands(av, bv);
  engine.writeTensor("a", av.data(), av.data() + kN);
  engine.writeTensor("b", bv.data(), bv.data() + kN);
  engine.run();
  Outcome o;
  std::size_t k = 0;
  for (const OpCase &c : kOps) {
    if (c.op == B::SHIFT_RIGHT_SIGN_EXTEND && type == UNSIGNED_LONGLONG)
      continue;
    o.bytes.emplace_back(sizes[k]);
    engine.readTensor(c.name, o.bytes.back().data(), o.bytes.back().data() + sizes[k]);
    ++k;
  }
  return o;
}

template <class F> void expectThrowNaming(F &&f, const std::string &needle) {
  try {
    f();
    FAIL() << "expected poplibs_error naming " << needle;
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

} // namespace

TEST(ElementWise64Bit, EveryOperationMatchesTheReference) {
  std::vector<std::uint64_t> av, bv;
  operands(av, bv);
  for (Type type : {LONGLONG, UNSIGNED_LONGLONG})
    for (unsigned tiles : {1u, 16u}) {
      SCOPED_TRACE(type.toString() + " on " + std::to_string(tiles) + " tiles");
      const Outcome o = runAll(type, tiles, 1);
      std::size_t k = 0;
      for (const OpCase &c : kOps) {
        if (c.op == B::SHIFT_RIGHT_SIGN_EXTEND && type == UNSIGNED_LONGLONG)
          continue;
        const auto &bytes = o.bytes[k++];
        for (std::size_t i = 0; i < kN; ++i) {
          const std::uint64_t want =
              reference::wideIntegerBinary(c.name, av[i], bv[i], type == LONGLONG);
          const std::uint64_t got =
              c.comparison ? bytes[i] : reinterpret_cast<const std::uint64_t *>(bytes.data())[i];
          ASSERT_EQ(got, want) << c.name << " of " << av[i] << ", " << bv[i] << " (element " << i
                               << ")";
        }
      }
    }
}

TEST(ElementWise64Bit, OneAndTwoHostThreadsAgreeBitForBit) {
  const Outcome one = runAll(LONGLONG, 16, 1), two = runAll(LONGLONG, 16, 2);
  ASSERT_EQ(one.bytes.size(), two.bytes.size());
  for (std::size_t k = 0; k < one.bytes.size(); ++k)
    EXPECT_EQ(one.bytes[k], two.bytes[k]) << kOps[k].name;
}

// Named functions with constants, broadcasting, in place and with an output.
TEST(ElementWise64Bit, NamedFormsConstantsAndBroadcasting) {
  IPUModel model;
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  Sequence prog;
  Tensor m = graph.addVariable(LONGLONG, {4, 8}, "m");
  Tensor row = graph.addVariable(LONGLONG, {8}, "row");
  Tensor s = graph.addVariable(LONGLONG, {1}, "s");
  poputil::mapTensorLinearly(graph, m, 1, 1);
  graph.setTileMapping(row, 3);
  graph.setTileMapping(s, 1);
  for (const char *n : {"m", "row", "s"})
    graph.createHostWrite(n, n[0] == 'm' ? m : n[0] == 'r' ? row : s);
  Tensor plusRow = popops::add(graph, m, row, prog, "plusRow");
  Tensor timesThree = popops::mul(graph, m, 3, prog, "timesThree");
  Tensor fiveMinus = popops::sub(graph, 5, m, prog, "fiveMinus");
  Tensor less = popops::lt(graph, m, s, prog, "less");
  Tensor out = graph.clone(m, "out");
  popops::subWithOutput(graph, m, row, out, prog, "subWithOutput");
  Tensor inPlace = graph.clone(m, "inPlace");
  prog.add(Copy(m, inPlace));
  popops::addInPlace(graph, inPlace, inPlace, prog, "double");
  EXPECT_EQ(less.elementType(), BOOL);
  EXPECT_EQ(plusRow.shape(), m.shape());
  for (const auto &[n, t] : {std::pair<const char *, Tensor>{"plusRow", plusRow},
                             {"timesThree", timesThree},
                             {"fiveMinus", fiveMinus},
                             {"out", out},
                             {"inPlace", inPlace}})
    graph.createHostRead(n, t);
  graph.createHostRead("less", less);
  Engine engine(graph, prog);
  engine.load(device);
  std::vector<long long> mv(32), rv(8), sv = {1ll << 40};
  for (std::size_t i = 0; i < 32; ++i)
    mv[i] = (static_cast<long long>(i) - 16) * (1ll << 37) + static_cast<long long>(i);
  for (std::size_t j = 0; j < 8; ++j)
    rv[j] = (1ll << 50) - static_cast<long long>(j) * 7;
  engine.writeTensor("m", mv.data(), mv.data() + 32);
  engine.writeTensor("row", rv.data(), rv.data() + 8);
  engine.writeTensor("s", sv.data(), sv.data() + 1);
  engine.run();
  std::vector<long long> got(32);
  const auto expectEach = [&](const char *n, const std::function<long long(std::size_t)> &want) {
    engine.readTensor(n, got.data(), got.data() + 32);
    for (std::size_t i = 0; i < 32; ++i)
      ASSERT_EQ(got[i], want(i)) << n << " element " << i;
  };
  expectEach("plusRow", [&](std::size_t i) { return mv[i] + rv[i % 8]; });
  expectEach("timesThree", [&](std::size_t i) { return mv[i] * 3; });
  expectEach("fiveMinus", [&](std::size_t i) { return 5 - mv[i]; });
  expectEach("out", [&](std::size_t i) { return mv[i] - rv[i % 8]; });
  expectEach("inPlace", [&](std::size_t i) { return mv[i] * 2; });
  std::vector<unsigned char> lessv(32);
  engine.readTensor("less", lessv.data(), lessv.data() + 32);
  for (std::size_t i = 0; i < 32; ++i)
    EXPECT_EQ(lessv[i], mv[i] < sv[0] ? 1 : 0) << i;
}

TEST(ElementWise64Bit, UnsupportedFormsAreRefusedNamingTheCulprit) {
  IPUModel model;
  model.tilesPerIPU = 1;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  Sequence prog;
  Tensor l = graph.addVariable(LONGLONG, {4}, "longs");
  Tensor u = graph.addVariable(UNSIGNED_LONGLONG, {4}, "ulongs");
  Tensor i = graph.addVariable(INT, {4}, "ints");
  Tensor wrongShape = graph.addVariable(LONGLONG, {3}, "three");
  Tensor bools = graph.addVariable(BOOL, {4}, "bools");
  for (const Tensor &t : {l, u, i, wrongShape, bools})
    graph.setTileMapping(t, 0);
  expectThrowNaming([&] { popops::map(graph, pe::Neg(pe::_1), {l}, prog); }, "64-bit");
  expectThrowNaming(
      [&] {
        popops::map(graph, pe::_1 + pe::_2 * pe::_1, {l, l}, prog);
      },
      "MULTIPLY(");
  expectThrowNaming([&] { popops::map(graph, pe::Pow(pe::_1, pe::_2), {l, l}, prog); }, "POWER");
  expectThrowNaming([&] { popops::add(graph, l, i, prog); }, "'ints'");
  expectThrowNaming([&] { popops::add(graph, l, u, prog); }, "'ulongs'");
  expectThrowNaming([&] { popops::add(graph, l, 0.5f, prog); }, "0.5");
  expectThrowNaming([&] { popops::shiftRightSignExtend(graph, u, u, prog); }, "unsigned long long");
  expectThrowNaming([&] { popops::add(graph, l, wrongShape, prog); }, "cannot be broadcast");
  expectThrowNaming([&] { popops::ltInPlace(graph, l, l, prog); }, "'longs'");
  expectThrowNaming([&] { popops::addWithOutput(graph, l, l, bools, prog); }, "'bools'");
}
