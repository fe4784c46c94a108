// popops::cast's compute-set forms, castWithOutput and checkAccuracyWhenCast: the compute-set
// forms give the program forms' bits (all on one tile or spread over 16, 1 and 2 host threads),
// checkAccuracyWhenCast applies the relative-error rule on the device, and every misuse is
// reported naming the culprit.
// GCC 12 reports a false -Wrestrict inside std::string operator+ at -O3 (GCC bug 105329).
#pragma GCC diagnostic ignored "-Wrestrict"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Half.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/MetadataCreation.hpp>
#include <popops/Cast.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

using namespace poplar;
using namespace poplar::program;

namespace {

enum class Layout { ONE_TILE, SPREAD };

struct Rig {
  Device device;
  Graph graph;
  Sequence prog;
  Layout layout;
  explicit Rig(Layout l = Layout::SPREAD)
      : device([] {
          IPUModel m;
          m.tilesPerIPU = 16;
          return m.createDevice();
        }()),
        graph(device.getTarget()), layout(l) {
    popops::addCodelets(graph);
  }
  Tensor input(Type type, std::size_t n, const std::string &name) {
    Tensor t = graph.addVariable(type, {n}, name);
    if (layout == Layout::ONE_TILE)
      graph.setTileMapping(t, 0);
    else
      poputil::mapTensorLinearly(graph, t, 1, 1);
    graph.createHostWrite(name, t);
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

constexpr std::size_t kN = 37;

/// Floats that exercise rounding to half (ties, subnormals, overflow) and to int.
std::vector<float> floatValues() {
  std::vector<float> v;
  for (std::size_t i = 0; v.size() < kN; ++i) {
    const float base = static_cast<float>(i) - 18.0f;
    v.push_back(base * 0.7503f);
    v.push_back(1.0f + static_cast<float>(i) * 0.00048828125f); // 1 + i·2^-11: half ties
    v.push_back(base * 3000.5f);                                // some beyond the largest half
  }
  v.resize(kN);
  v[0] = 1e-6f; // a half subnormal
  return v;
}

/// For each (source, destination type) pair: the result bytes of the program form ("p:…") and
/// of the compute-set forms ("c:…", one shared compute set; "t:…" into a given tensor).
std::map<std::string, std::vector<unsigned char>> castBothWays(Layout layout, unsigned threads) {
  Rig r(layout);
  Tensor f = r.input(FLOAT, kN, "f"), h = r.input(HALF, kN, "h"), i = r.input(INT, kN, "i");
  const std::vector<std::pair<Tensor, Type>> pairs = {{f, HALF}, {f, INT},  {f, BOOL},  {h, FLOAT},
                                                      {h, INT},  {i, HALF}, {i, FLOAT}, {i, BOOL}};
  ComputeSet cs = r.graph.addComputeSet("casts");
  std::map<std::string, std::size_t> sizes;
  for (const auto &[src, type] : pairs) {
    const std::string key = src.elementType().toString() + ">" + type.toString();
    r.graph.createHostRead("p:" + key, popops::cast(r.graph, src, type, r.prog));
    r.graph.createHostRead("c:" + key, popops::cast(r.graph, src, type, cs, key));
    Tensor into = r.graph.clone(type, src, key + "/into");
    popops::cast(r.graph, src, into, cs);
    r.graph.createHostRead("t:" + key, into);
    const std::size_t bytes = kN * r.graph.getTarget().getTypeSize(type);
    sizes["p:" + key] = sizes["c:" + key] = sizes["t:" + key] = bytes;
  }
  r.prog.add(Execute(cs));
  OptionFlags opts;
  opts.set("target.hostThreads", std::to_string(threads));
  Engine e(r.graph, r.prog, opts);
  e.load(r.device);
  const auto fv = floatValues();
  std::vector<std::uint16_t> hv(kN);
  std::vector<int> iv(kN);
  for (std::size_t k = 0; k < kN; ++k) {
    hv[k] = floatToHalfBits(fv[k]);
    iv[k] = static_cast<int>(k * 977) - 20000;
  }
  e.writeTensor("f", fv.data(), fv.data() + kN);
  e.writeTensor("h", hv.data(), hv.data() + kN);
  e.writeTensor("i", iv.data(), iv.data() + kN);
  e.run();
  std::map<std::string, std::vector<unsigned char>> out;
  for (const auto &[name, bytes] : sizes) {
    out[name].resize(bytes);
    e.readTensor(name, out[name].data(), out[name].data() + bytes);
  }
  return out;
}

} // namespace

TEST(Cast, ComputeSetFormsGiveTheProgramFormsBits) {
  for (Layout layout : {Layout::ONE_TILE, Layout::SPREAD}) {
    SCOPED_TRACE(layout == Layout::ONE_TILE ? "one tile" : "spread");
    const auto one = castBothWays(layout, 1);
    for (const auto &[name, bytes] : one) {
      if (name[0] == 'p')
        continue;
      EXPECT_EQ(bytes, one.at("p" + name.substr(1))) << name;
    }
    // FLOAT -> HALF rounds to nearest even, as the host conversion does.
    const auto fv = floatValues();
    const auto &halves = one.at("c:float>half");
    for (std::size_t k = 0; k < kN; ++k) {
      std::uint16_t bits;
      std::memcpy(&bits, &halves[2 * k], 2);
      EXPECT_EQ(bits, floatToHalfBits(fv[k])) << fv[k];
    }
    EXPECT_EQ(castBothWays(layout, 2), one) << "2 host threads";
  }
}

TEST(Cast, ComputeSetFormKeepsTheSourceMapping) {
  Rig r;
  Tensor f = r.input(FLOAT, kN, "f");
  ComputeSet cs = r.graph.addComputeSet("cs");
  Tensor h = popops::cast(r.graph, f, HALF, cs);
  EXPECT_EQ(h.elementType(), HALF);
  EXPECT_EQ(r.graph.getTileMapping(h), r.graph.getTileMapping(f));
}

TEST(Cast, QuarterComputeSetFormsGiveTheProgramFormsBits) {
  for (Layout layout : {Layout::ONE_TILE, Layout::SPREAD}) {
    SCOPED_TRACE(layout == Layout::ONE_TILE ? "one tile" : "spread");
    Rig r(layout);
    Tensor f = r.input(FLOAT, kN, "f");
    Tensor md = createConstantMetadataTensor(r.graph, QuarterMetadata::Format::F143, -2);
    ComputeSet toQuarter = r.graph.addComputeSet("toQuarter");
    Tensor qc = popops::cast(r.graph, f, QUARTER, md, toQuarter);
    r.prog.add(Execute(toQuarter));
    Tensor qp = popops::cast(r.graph, f, QUARTER, md, r.prog);
    EXPECT_EQ(qc.getMetadata(), md);
    ComputeSet back = r.graph.addComputeSet("back");
    Tensor hc = popops::cast(r.graph, qc, HALF, back);
    r.prog.add(Execute(back));
    Tensor hp = popops::cast(r.graph, qp, HALF, r.prog);
    r.graph.createHostRead("qc", qc.reinterpret(UNSIGNED_CHAR));
    r.graph.createHostRead("qp", qp.reinterpret(UNSIGNED_CHAR));
    r.graph.createHostRead("hc", hc);
    r.graph.createHostRead("hp", hp);
    Engine e(r.graph, r.prog);
    e.load(r.device);
    const auto fv = floatValues();
    e.writeTensor("f", fv.data(), fv.data() + kN);
    e.run();
    std::vector<unsigned char> qcb(kN), qpb(kN);
    std::vector<std::uint16_t> hcb(kN), hpb(kN);
    e.readTensor("qc", qcb.data(), qcb.data() + kN);
    e.readTensor("qp", qpb.data(), qpb.data() + kN);
    e.readTensor("hc", hcb.data(), hcb.data() + kN);
    e.readTensor("hp", hpb.data(), hpb.data() + kN);
    EXPECT_EQ(qcb, qpb);
    EXPECT_EQ(hcb, hpb);
  }
}

TEST(Cast, CastWithOutputWritesTheGivenTensor) {
  Rig r;
  Tensor h = r.input(HALF, kN, "h");
  Tensor f = r.graph.clone(FLOAT, h, "f");
  popops::castWithOutput(r.graph, h, f, r.prog, "castWithOutput");
  r.graph.createHostRead("f", f);
  Engine e(r.graph, r.prog);
  e.load(r.device);
  const auto fv = floatValues();
  std::vector<std::uint16_t> hv(kN);
  for (std::size_t k = 0; k < kN; ++k)
    hv[k] = floatToHalfBits(fv[k]);
  e.writeTensor("h", hv.data(), hv.data() + kN);
  e.run();
  std::vector<float> got(kN);
  e.readTensor("f", got.data(), got.data() + kN);
  for (std::size_t k = 0; k < kN; ++k)
    EXPECT_EQ(got[k], halfBitsToFloat(hv[k])) << k;
}

TEST(Cast, ComputeSetFormErrorsNameTheCulprit) {
  Rig r;
  using E = poputil::poplibs_error;
  Tensor f = r.input(FLOAT, 4, "f");
  Tensor md = createConstantMetadataTensor(r.graph, QuarterMetadata::Format::F152, 0);
  ComputeSet cs = r.graph.addComputeSet("cs");
  expectThrowNaming<E>([&] { popops::cast(r.graph, f, QUARTER, cs); }, "metadata");
  expectThrowNaming<E>([&] { popops::cast(r.graph, f, HALF, md, cs); }, "half");
  expectThrowNaming<E>([&] { popops::cast(r.graph, f, HALF, md, r.prog); }, "half");
  expectThrowNaming<E>([&] { popops::cast(r.graph, f, LONGLONG, cs); }, "long long");
  Tensor longs = r.input(LONGLONG, 4, "longs");
  Tensor out = r.graph.clone(FLOAT, longs, "out");
  expectThrowNaming<E>([&] { popops::cast(r.graph, longs, out, cs); }, "'longs'");
  expectThrowNaming<E>([&] { popops::cast(r.graph, longs, CHAR, r.prog); }, "'longs'");
  Tensor wide = r.graph.addVariable(HALF, {5}, "wide");
  r.graph.setTileMapping(wide, 0);
  expectThrowNaming<E>([&] { popops::cast(r.graph, f, wide, cs); }, "'wide'");
}

namespace {

struct AccuracyCase {
  float x;
  double tolerance;
  bool accurate;
  const char *why;
};

} // namespace

TEST(CheckAccuracyWhenCast, AppliesTheRelativeErrorRuleOnTheDevice) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<AccuracyCase> cases = {{0.5f, 1e-6, true, "exact in half"},
                                           {0.1f, 1e-3, true, "off by 2.4e-5 < 1e-4"},
                                           {0.1f, 1e-4, false, "off by 2.4e-5 >= 1e-5"},
                                           {-3.14159f, 1e-3, true, "off by 9.7e-4 < 3.1e-3"},
                                           {65504.0f, 1e-6, true, "the largest half"},
                                           {65505.0f, 0.5, false, "beyond the largest half"},
                                           {1e6f, 0.5, false, "overflows"},
                                           {1e-5f, 0.1, true, "a half subnormal, off by < 3e-8"},
                                           {1e-9f, 0.5, false, "flushes to zero"},
                                           {0.0f, 1.0, false, "zero: the error 0 is not below 0"},
                                           {nan, 1.0, false, "NaN"}};
  for (Layout layout : {Layout::ONE_TILE, Layout::SPREAD}) {
    Rig r(layout);
    std::vector<Tensor> results;
    for (std::size_t k = 0; k < cases.size(); ++k) {
      Tensor x = r.graph.addVariable(FLOAT, {1}, "x" + std::to_string(k));
      const unsigned tile = layout == Layout::ONE_TILE ? 0 : static_cast<unsigned>(k % 16);
      r.graph.setTileMapping(x, tile);
      r.graph.createHostWrite("x" + std::to_string(k), x);
      Tensor ok = popops::checkAccuracyWhenCast(r.graph, x, HALF, cases[k].tolerance, r.prog);
      EXPECT_EQ(ok.elementType(), BOOL);
      EXPECT_EQ(ok.numElements(), 1u);
      EXPECT_EQ(r.graph.getTileMapping(ok)[tile].size(), 1u) << "the result sits with its input";
      r.graph.createHostRead("ok" + std::to_string(k), ok);
    }
    for (unsigned threads : {1u, 2u}) {
      OptionFlags opts;
      opts.set("target.hostThreads", std::to_string(threads));
      Engine e(r.graph, r.prog, opts);
      e.load(r.device);
      for (std::size_t k = 0; k < cases.size(); ++k)
        e.writeTensor("x" + std::to_string(k), &cases[k].x, &cases[k].x + 1);
      e.run();
      for (std::size_t k = 0; k < cases.size(); ++k) {
        unsigned char ok = 2;
        e.readTensor("ok" + std::to_string(k), &ok, &ok + 1);
        EXPECT_EQ(ok, cases[k].accurate ? 1 : 0) << cases[k].x << ": " << cases[k].why;
      }
    }
  }
}

TEST(CheckAccuracyWhenCast, ErrorsNameTheInput) {
  Rig r;
  using E = poputil::poplibs_error;
  Tensor ints = r.input(INT, 1, "anInt"), pair = r.input(FLOAT, 2, "aPair");
  Tensor one = r.input(FLOAT, 1, "one"), halfOne = r.input(HALF, 1, "halfOne");
  expectThrowNaming<E>([&] { popops::checkAccuracyWhenCast(r.graph, ints, HALF, 0.1, r.prog); },
                       "'anInt'");
  expectThrowNaming<E>([&] { popops::checkAccuracyWhenCast(r.graph, pair, HALF, 0.1, r.prog); },
                       "'aPair'");
  expectThrowNaming<E>([&] { popops::checkAccuracyWhenCast(r.graph, halfOne, FLOAT, 0.1, r.prog); },
                       "'halfOne'");
  expectThrowNaming<E>([&] { popops::checkAccuracyWhenCast(r.graph, one, FLOAT, 0.1, r.prog); },
                       "to float");
}

namespace {

/// The host's expectation of a cast to a small integer type of `bits` bits (signed or not):
/// from floating point, truncated and saturated (NaN gives 0); from an integer, modulo 2^bits.
double expectSmall(double x, bool fromFloat, unsigned bits, bool isSigned) {
  const double lo = isSigned ? -std::ldexp(1.0, bits - 1) : 0.0;
  const double hi = isSigned ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
  if (fromFloat) {
    if (std::isnan(x))
      return 0;
    return std::trunc(std::min(std::max(x, lo), hi));
  }
  const double m = std::ldexp(1.0, bits);
  double r = std::fmod(x, m);
  if (r < 0)
    r += m;
  return r > hi ? r - m : r;
}

double readSmall(const std::vector<unsigned char> &bytes, std::size_t i, unsigned bits,
                 bool isSigned) {
  if (bits == 8)
    return isSigned ? double(static_cast<signed char>(bytes[i])) : double(bytes[i]);
  std::uint16_t v;
  std::memcpy(&v, &bytes[2 * i], 2);
  return isSigned ? double(static_cast<std::int16_t>(v)) : double(v);
}

} // namespace

TEST(Cast, SmallIntegerTypesSaturateFromFloatAndWrapFromInt) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> fv = {-1e9f,  -300.7f, -128.9f, -0.9f,    0.0f, 0.99f,
                                 127.5f, 200.2f,  255.9f,  70000.0f, nan,  3.0f};
  const std::vector<int> iv = {-70000, -300, -129, -128, -1, 0, 1, 127, 128, 255, 256, 70000};
  const std::size_t n = fv.size();
  struct Target {
    Type type;
    unsigned bits;
    bool isSigned;
  };
  const std::vector<Target> targets = {{CHAR, 8, true},
                                       {SIGNED_CHAR, 8, true},
                                       {UNSIGNED_CHAR, 8, false},
                                       {SHORT, 16, true},
                                       {UNSIGNED_SHORT, 16, false}};
  std::map<std::string, std::vector<unsigned char>> firstRun;
  for (Layout layout : {Layout::ONE_TILE, Layout::SPREAD})
    for (unsigned threads : {1u, 2u}) {
      SCOPED_TRACE((layout == Layout::ONE_TILE ? "one tile, " : "spread, ") +
                   std::to_string(threads) + " threads");
      Rig r(layout);
      Tensor f = r.input(FLOAT, n, "f"), i = r.input(INT, n, "i");
      Tensor h = popops::cast(r.graph, f, HALF, r.prog);
      ComputeSet cs = r.graph.addComputeSet("casts");
      for (const auto &t : targets) {
        const std::string name = t.type.toString();
        r.graph.createHostRead("pf:" + name, popops::cast(r.graph, f, t.type, r.prog));
        r.graph.createHostRead("cf:" + name, popops::cast(r.graph, f, t.type, cs));
        r.graph.createHostRead("ph:" + name, popops::cast(r.graph, h, t.type, r.prog));
        Tensor small = popops::cast(r.graph, i, t.type, r.prog);
        r.graph.createHostRead("pi:" + name, small);
        // And back: a small integer widens exactly to float, half and int.
        r.graph.createHostRead("back:" + name, popops::cast(r.graph, small, FLOAT, r.prog));
        r.graph.createHostRead("backc:" + name, popops::cast(r.graph, small, INT, cs));
      }
      r.prog.add(Execute(cs));
      OptionFlags opts;
      opts.set("target.hostThreads", std::to_string(threads));
      Engine e(r.graph, r.prog, opts);
      e.load(r.device);
      e.writeTensor("f", fv.data(), fv.data() + n);
      e.writeTensor("i", iv.data(), iv.data() + n);
      e.run();
      std::map<std::string, std::vector<unsigned char>> got;
      for (const auto &t : targets) {
        const std::string name = t.type.toString();
        for (const char *p : {"pf:", "cf:", "pi:", "ph:"}) {
          auto &b = got[p + name];
          b.resize(n * t.bits / 8);
          e.readTensor(p + name, b.data(), b.data() + b.size());
        }
        for (const char *p : {"back:", "backc:"}) {
          auto &b = got[p + name];
          b.resize(n * 4);
          e.readTensor(p + name, b.data(), b.data() + b.size());
        }
        EXPECT_EQ(got["pf:" + name], got["cf:" + name]) << name;
        for (std::size_t k = 0; k < n; ++k) {
          EXPECT_EQ(readSmall(got["pf:" + name], k, t.bits, t.isSigned),
                    expectSmall(fv[k], true, t.bits, t.isSigned))
              << fv[k] << " to " << name;
          const float asHalf = static_cast<float>(poplar::half(fv[k]));
          EXPECT_EQ(readSmall(got["ph:" + name], k, t.bits, t.isSigned),
                    expectSmall(asHalf, true, t.bits, t.isSigned))
              << asHalf << " (half) to " << name;
          const double wrapped = expectSmall(iv[k], false, t.bits, t.isSigned);
          EXPECT_EQ(readSmall(got["pi:" + name], k, t.bits, t.isSigned), wrapped)
              << iv[k] << " to " << name;
          float back;
          int backInt;
          std::memcpy(&back, &got["back:" + name][4 * k], 4);
          std::memcpy(&backInt, &got["backc:" + name][4 * k], 4);
          EXPECT_EQ(back, wrapped) << name;
          EXPECT_EQ(backInt, wrapped) << name;
        }
      }
      if (firstRun.empty())
        firstRun = got;
      else
        EXPECT_EQ(got, firstRun) << "the same bits on every layout and thread count";
    }
}

TEST(Cast, QuarterConvertsToAndFromCharTypesThroughFloat) {
  Rig r;
  Tensor u = r.input(UNSIGNED_CHAR, 11, "u");
  Tensor md = createConstantMetadataTensor(r.graph, QuarterMetadata::Format::F143, 0);
  Tensor q = popops::cast(r.graph, u, QUARTER, md, r.prog);
  r.graph.createHostRead("c", popops::cast(r.graph, q, SIGNED_CHAR, r.prog));
  Engine e(r.graph, r.prog);
  e.load(r.device);
  std::vector<unsigned char> in(11);
  for (unsigned k = 0; k < 11; ++k)
    in[k] = static_cast<unsigned char>(k); // 0 … 10: exact in F143 at scale 0
  e.writeTensor("u", in.data(), in.data() + 11);
  e.run();
  std::vector<signed char> out(11);
  e.readTensor("c", out.data(), out.data() + 11);
  for (unsigned k = 0; k < 11; ++k)
    EXPECT_EQ(out[k], static_cast<signed char>(k));
}

TEST(Cast, LongLongTypesConvertFromIntegersOnly) {
  for (Layout layout : {Layout::ONE_TILE, Layout::SPREAD}) {
    SCOPED_TRACE(layout == Layout::ONE_TILE ? "one tile" : "spread");
    Rig r(layout);
    const std::size_t n = 6;
    Tensor i = r.input(INT, n, "i"), u = r.input(UNSIGNED_INT, n, "u");
    Tensor s = r.input(SHORT, n, "s");
    ComputeSet cs = r.graph.addComputeSet("casts");
    Tensor il = popops::cast(r.graph, i, LONGLONG, r.prog);
    r.graph.createHostRead("il", il);
    r.graph.createHostRead("ul", popops::cast(r.graph, u, UNSIGNED_LONGLONG, cs));
    r.graph.createHostRead("sl", popops::cast(r.graph, s, LONGLONG, r.prog));
    r.graph.createHostRead("lul", popops::cast(r.graph, il, UNSIGNED_LONGLONG, r.prog));
    r.prog.add(Execute(cs));
    Engine e(r.graph, r.prog);
    e.load(r.device);
    const std::vector<int> iv = {-2147483647 - 1, -5, -1, 0, 7, 2147483647};
    const std::vector<unsigned> uv = {0u, 1u, 5u, 65536u, 2147483648u, 4294967295u};
    const std::vector<std::int16_t> sv = {-32768, -300, -1, 0, 300, 32767};
    e.writeTensor("i", iv.data(), iv.data() + n);
    e.writeTensor("u", uv.data(), uv.data() + n);
    e.writeTensor("s", sv.data(), sv.data() + n);
    e.run();
    std::vector<long long> il8(n), sl8(n);
    std::vector<unsigned long long> ul8(n), lul8(n);
    e.readTensor("il", il8.data(), il8.data() + n);
    e.readTensor("ul", ul8.data(), ul8.data() + n);
    e.readTensor("sl", sl8.data(), sl8.data() + n);
    e.readTensor("lul", lul8.data(), lul8.data() + n);
    for (std::size_t k = 0; k < n; ++k) {
      EXPECT_EQ(il8[k], static_cast<long long>(iv[k]));
      EXPECT_EQ(ul8[k], static_cast<unsigned long long>(uv[k]));
      EXPECT_EQ(sl8[k], static_cast<long long>(sv[k]));
      EXPECT_EQ(lul8[k], static_cast<unsigned long long>(static_cast<long long>(iv[k])));
    }
  }
  Rig r;
  using E = poputil::poplibs_error;
  Tensor f = r.input(FLOAT, 3, "floats"), l = r.input(LONGLONG, 3, "longs");
  ComputeSet cs = r.graph.addComputeSet("cs");
  expectThrowNaming<E>([&] { popops::cast(r.graph, f, LONGLONG, r.prog); }, "'floats'");
  expectThrowNaming<E>([&] { popops::cast(r.graph, f, UNSIGNED_LONGLONG, cs); }, "'floats'");
  expectThrowNaming<E>([&] { popops::cast(r.graph, l, INT, r.prog); }, "'longs'");
  expectThrowNaming<E>([&] { popops::cast(r.graph, l, HALF, cs); }, "'longs'");
}
