// popops::cast, scaledAddTo / scaledSubtractFrom and iota against host references.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Half.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/Cast.hpp>
#include <popops/Iota.hpp>
#include <popops/ScaledAdd.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

using namespace poplar;
using namespace poplar::program;

namespace {

struct Rig {
  Device device;
  Graph graph;
  Sequence prog;
  explicit Rig(unsigned tiles = 4)
      : device([&] {
          IPUModel m;
          m.tilesPerIPU = tiles;
          return m.createDevice();
        }()),
        graph(device.getTarget()) {
    popops::addCodelets(graph);
  }
  Tensor input(Type type, std::vector<std::size_t> shape, const std::string &name) {
    Tensor t = graph.addVariable(type, shape, name);
    poputil::mapTensorLinearly(graph, t, 1, 1);
    graph.createHostWrite(name, t);
    graph.createHostRead(name + ".out", t);
    return t;
  }
};

template <class E>
void expectThrowNaming(const std::function<void()> &fn, const std::string &part) {
  try {
    fn();
    ADD_FAILURE() << "expected an exception naming " << part;
  } catch (const E &e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

} // namespace

TEST(Cast, FloatToIntTruncatesTowardZeroAndKeepsTheMapping) {
  Rig r(16);
  Tensor x = r.input(FLOAT, {37}, "x");
  Tensor y = popops::cast(r.graph, x, INT, r.prog, "toInt");
  EXPECT_EQ(y.elementType(), INT);
  EXPECT_EQ(r.graph.getTileMapping(y), r.graph.getTileMapping(x));
  r.graph.createHostRead("y", y);
  Engine e(r.graph, r.prog);
  e.load(r.device);
  std::vector<float> in(37);
  for (int i = 0; i < 37; ++i)
    in[i] = (i - 18) * 0.75f;
  e.writeTensor("x", in.data(), in.data() + in.size());
  e.run();
  std::vector<int> got(37);
  e.readTensor("y", got.data(), got.data() + got.size());
  for (int i = 0; i < 37; ++i)
    EXPECT_EQ(got[i], static_cast<int>(in[i])) << i;
}

TEST(Cast, IntToHalfAndFloatToBoolIntoExistingTensors) {
  Rig r;
  Tensor a = r.input(INT, {9}, "a");
  Tensor h = r.graph.clone(HALF, a, "h");
  Tensor f = r.input(FLOAT, {9}, "f");
  Tensor b = r.graph.clone(BOOL, f, "b");
  popops::cast(r.graph, a, h, r.prog);
  r.prog.add(popops::cast(r.graph, f, b));
  r.graph.createHostRead("h", h);
  r.graph.createHostRead("b", b);
  Engine e(r.graph, r.prog);
  e.load(r.device);
  std::vector<int> ai = {0, 1, -1, 2047, 2049, 65504, 70000, -3, 1000};
  std::vector<float> fi = {0.0f, 0.5f, -0.0f, 2.0f, -1e-30f, 0.0f, 7.0f, 0.0f, 1.0f};
  e.writeTensor("a", ai.data(), ai.data() + 9);
  e.writeTensor("f", fi.data(), fi.data() + 9);
  e.run();
  std::vector<std::uint16_t> hb(9);
  std::vector<unsigned char> bb(9);
  e.readTensor("h", hb.data(), hb.data() + 9);
  e.readTensor("b", bb.data(), bb.data() + 9);
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(hb[i], floatToHalfBits(static_cast<float>(ai[i]))) << ai[i];
    EXPECT_EQ(bb[i] != 0, fi[i] != 0.0f) << fi[i];
  }
}

TEST(Cast, UnsupportedTypeAndShapeMismatchAreNamed) {
  Rig r;
  Tensor x = r.input(FLOAT, {4}, "x");
  expectThrowNaming<poputil::poplibs_error>([&] { popops::cast(r.graph, x, LONGLONG, r.prog); },
                                            "long long");
  Tensor y = r.graph.addVariable(INT, {5}, "y");
  r.graph.setTileMapping(y, 0);
  expectThrowNaming<poputil::poplibs_error>([&] { popops::cast(r.graph, x, y, r.prog); }, "int[5]");
}

TEST(ScaledAdd, AllFourFormsAgainstAHostLoop) {
  Rig r(16);
  const std::size_t n = 101;
  Tensor a1 = r.input(FLOAT, {n}, "a1"), a2 = r.input(FLOAT, {n}, "a2");
  Tensor a3 = r.input(FLOAT, {n}, "a3"), a4 = r.input(FLOAT, {n}, "a4");
  Tensor b = r.input(FLOAT, {n}, "b");
  Tensor k = r.graph.addConstant<float>(FLOAT, {}, 0.25f, "k");
  Tensor kInt = r.graph.addConstant<int>(INT, {1}, 3, "kInt");
  r.graph.setTileMapping(k, 5);
  r.graph.setTileMapping(kInt, 7);
  popops::scaledAddTo(r.graph, a1, b, 2.5f, r.prog);
  popops::scaledAddTo(r.graph, a2, b, k, r.prog);
  popops::scaledAddTo(r.graph, a3, 0.5f, b, -1.5f, r.prog);
  popops::scaledSubtractFrom(r.graph, a4, k, b, kInt, r.prog);
  Engine e(r.graph, r.prog);
  e.load(r.device);
  std::vector<float> av(n), bv(n);
  for (std::size_t i = 0; i < n; ++i) {
    av[i] = static_cast<float>(i) * 0.5f - 7.0f;
    bv[i] = static_cast<float>((i * 7) % 11) - 5.0f;
  }
  for (const char *h : {"a1", "a2", "a3", "a4"})
    e.writeTensor(h, av.data(), av.data() + n);
  e.writeTensor("b", bv.data(), bv.data() + n);
  e.run();
  std::vector<float> g1(n), g2(n), g3(n), g4(n);
  e.readTensor("a1.out", g1.data(), g1.data() + n);
  e.readTensor("a2.out", g2.data(), g2.data() + n);
  e.readTensor("a3.out", g3.data(), g3.data() + n);
  e.readTensor("a4.out", g4.data(), g4.data() + n);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_FLOAT_EQ(g1[i], av[i] + 2.5f * bv[i]);
    EXPECT_FLOAT_EQ(g2[i], av[i] + 0.25f * bv[i]);
    EXPECT_FLOAT_EQ(g3[i], 0.5f * av[i] - 1.5f * bv[i]);
    EXPECT_FLOAT_EQ(g4[i], 0.25f * av[i] - 3.0f * bv[i]);
  }
}

// PopLibs casts B to A's type before A += k·B, and documents the option
// scaleFloatToHalfTolerance next to optimizeForSpeed; X_MINUS_AX_PLUS_BY makes the
// two-scale form A = A - scaleA·A + scaleB·B (DEFAULT keeps A = scaleA·A + scaleB·B).
TEST(ScaledAdd, HalfBIsCastToFloatAAndSpecialisationsFollowTheirFormulas) {
  Rig r(4);
  const std::size_t n = 37;
  Tensor a1 = r.input(FLOAT, {n}, "a1"), a2 = r.input(FLOAT, {n}, "a2");
  Tensor a3 = r.input(FLOAT, {n}, "a3"), a4 = r.input(FLOAT, {n}, "a4");
  Tensor bh = r.input(HALF, {n}, "bh");
  Tensor b = r.input(FLOAT, {n}, "b");
  Tensor sa = r.graph.addConstant<float>(FLOAT, {}, 0.125f, "sa");
  Tensor sb = r.graph.addConstant<float>(FLOAT, {}, 3.0f, "sb");
  r.graph.setTileMapping(sa, 1);
  r.graph.setTileMapping(sb, 2);
  popops::scaledAddTo(r.graph, a1, bh, -2.0f, r.prog, {},
                      {{"scaleFloatToHalfTolerance", "1e-3"}, {"optimizeForSpeed", "true"}});
  popops::scaledAddTo(r.graph, a2, sa, b, sb, r.prog,
                      popops::ScaledAddSpecialisation::X_MINUS_AX_PLUS_BY);
  popops::scaledAddTo(r.graph, a3, 0.75f, b, -0.5f, r.prog,
                      popops::ScaledAddSpecialisation::X_MINUS_AX_PLUS_BY);
  popops::scaledAddTo(r.graph, a4, 0.75f, b, -0.5f, r.prog,
                      popops::ScaledAddSpecialisation::DEFAULT);
  Engine e(r.graph, r.prog);
  e.load(r.device);
  std::vector<float> av(n), bv(n);
  std::vector<half> bhv(n);
  for (std::size_t i = 0; i < n; ++i) {
    av[i] = static_cast<float>(i) * 0.25f - 3.0f;
    bv[i] = static_cast<float>((i * 5) % 9) - 4.0f;
    bhv[i] = half(static_cast<float>(i) * 0.1f - 1.0f);
  }
  for (const char *h : {"a1", "a2", "a3", "a4"})
    e.writeTensor(h, av.data(), av.data() + n);
  e.writeTensor("b", bv.data(), bv.data() + n);
  e.writeTensor("bh", bhv.data(), bhv.data() + n);
  e.run();
  std::vector<float> g1(n), g2(n), g3(n), g4(n);
  e.readTensor("a1.out", g1.data(), g1.data() + n);
  e.readTensor("a2.out", g2.data(), g2.data() + n);
  e.readTensor("a3.out", g3.data(), g3.data() + n);
  e.readTensor("a4.out", g4.data(), g4.data() + n);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_FLOAT_EQ(g1[i], av[i] - 2.0f * float(bhv[i])) << i;
    EXPECT_FLOAT_EQ(g2[i], av[i] - 0.125f * av[i] + 3.0f * bv[i]) << i;
    EXPECT_FLOAT_EQ(g3[i], av[i] - 0.75f * av[i] - 0.5f * bv[i]) << i;
    EXPECT_FLOAT_EQ(g4[i], 0.75f * av[i] - 0.5f * bv[i]) << i;
  }
}

TEST(ScaledAdd, MismatchesAndBadOptionsAreNamed) {
  Rig r;
  Tensor a = r.input(FLOAT, {4}, "a");
  Tensor b = r.input(FLOAT, {5}, "b");
  Tensor k2 = r.input(FLOAT, {2}, "k2");
  expectThrowNaming<poputil::poplibs_error>(
      [&] { popops::scaledAddTo(r.graph, a, b, 1.0f, r.prog); }, "float[5]");
  expectThrowNaming<poputil::poplibs_error>(
      [&] { popops::scaledSubtractFrom(r.graph, a, a, k2, r.prog); }, "scaleB float[2]");
  expectThrowNaming<invalid_option>(
      [&] {
        popops::scaledAddTo(r.graph, a, a, 1.0f, r.prog, {}, {{"optimiseForSpeed", "true"}});
      },
      "'optimiseForSpeed' (did you mean 'optimizeForSpeed'?)");
}

TEST(Iota, UnsignedAndIntAcrossTiles) {
  Rig r(16);
  Tensor u = r.input(UNSIGNED_INT, {50}, "u");
  Tensor s = r.input(INT, {23}, "s");
  popops::iota(r.graph, u, 7u, r.prog);
  popops::iota(r.graph, s, -10, r.prog);
  Engine e(r.graph, r.prog);
  e.load(r.device);
  e.run();
  std::vector<unsigned> gu(50);
  std::vector<int> gs(23);
  e.readTensor("u.out", gu.data(), gu.data() + 50);
  e.readTensor("s.out", gs.data(), gs.data() + 23);
  for (unsigned i = 0; i < 50; ++i)
    EXPECT_EQ(gu[i], 7 + i);
  for (int i = 0; i < 23; ++i)
    EXPECT_EQ(gs[i], -10 + i);
}

TEST(Iota, WrongRankOrTypeIsNamed) {
  Rig r;
  Tensor m = r.input(UNSIGNED_INT, {2, 3}, "m");
  Tensor f = r.input(FLOAT, {3}, "f");
  expectThrowNaming<poputil::poplibs_error>([&] { popops::iota(r.graph, m, 0u, r.prog); },
                                            "unsigned int[2,3]");
  expectThrowNaming<poputil::poplibs_error>([&] { popops::iota(r.graph, f, 0, r.prog); },
                                            "float[3]");
}
