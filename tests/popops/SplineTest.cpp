// popops::splineBasis and popops::splineWeighting against the golden references: every degree,
// FLOAT and HALF, all on one tile or spread over 16, 1 and 2 host threads, and every error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Half.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/SplineBasis.hpp>
#include <popops/SplineWeighting.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Common.hpp>
#include <reference/SplineBasis.hpp>
#include <reference/SplineWeighting.hpp>

using namespace poplar;
using namespace poplar::program;

namespace {

enum class Layout { ONE_TILE, SPREAD };

/// A 16-tile device whose tensors sit on tile 0 (ONE_TILE) or linearly over all tiles.
struct Rig {
  Device device;
  Graph graph;
  Sequence prog;
  Layout layout;
  std::map<std::string, Type> types;
  explicit Rig(Layout l)
      : device([] {
          IPUModel m;
          m.tilesPerIPU = 16;
          return m.createDevice();
        }()),
        graph(device.getTarget()), layout(l) {
    popops::addCodelets(graph);
  }
  void place(const Tensor &t) {
    if (layout == Layout::ONE_TILE)
      graph.setTileMapping(t, 0);
    else
      poputil::mapTensorLinearly(graph, t, 1, 1);
  }
  Tensor tensor(Type type, std::vector<std::size_t> shape, const std::string &name) {
    Tensor t = graph.addVariable(type, shape, name);
    place(t);
    graph.createHostWrite(name, t);
    return t;
  }
  void output(const std::string &name, const Tensor &t) { graph.createHostRead(name, t); }
};

/// Host bytes of `values` as `type` holds them (FLOAT, HALF, INT or UNSIGNED_CHAR).
std::vector<unsigned char> bytesOf(Type type, const std::vector<double> &values) {
  std::vector<unsigned char> out;
  for (double x : values) {
    unsigned char b[4];
    std::size_t n = 4;
    if (type == FLOAT) {
      const float f = static_cast<float>(x);
      std::memcpy(b, &f, 4);
    } else if (type == HALF) {
      const std::uint16_t h = floatToHalfBits(static_cast<float>(x));
      std::memcpy(b, &h, 2);
      n = 2;
    } else if (type == INT) {
      const int i = static_cast<int>(x);
      std::memcpy(b, &i, 4);
    } else {
      b[0] = static_cast<unsigned char>(x);
      n = 1;
    }
    out.insert(out.end(), b, b + n);
  }
  return out;
}

std::vector<double> valuesOf(Type type, const std::vector<unsigned char> &bytes) {
  std::vector<double> out;
  const std::size_t size = type == HALF ? 2 : 4;
  for (std::size_t at = 0; at + size <= bytes.size(); at += size) {
    if (type == FLOAT) {
      float f;
      std::memcpy(&f, &bytes[at], 4);
      out.push_back(f);
    } else if (type == HALF) {
      std::uint16_t h;
      std::memcpy(&h, &bytes[at], 2);
      out.push_back(halfBitsToFloat(h));
    } else {
      int i;
      std::memcpy(&i, &bytes[at], 4);
      out.push_back(i);
    }
  }
  return out;
}

/// Runs the rig's program with the given inputs and host threads; the named outputs' bytes.
std::map<std::string, std::vector<unsigned char>>
run(Rig &r, const std::map<std::string, std::vector<unsigned char>> &inputs,
    const std::map<std::string, std::size_t> &outputBytes, unsigned threads = 1) {
  OptionFlags opts;
  opts.set("target.hostThreads", std::to_string(threads));
  Engine e(r.graph, r.prog, opts);
  e.load(r.device);
  for (const auto &[name, bytes] : inputs)
    e.writeTensor(name, bytes.data(), bytes.data() + bytes.size());
  e.run();
  std::map<std::string, std::vector<unsigned char>> out;
  for (const auto &[name, n] : outputBytes) {
    out[name].resize(n);
    e.readTensor(name, out[name].data(), out[name].data() + n);
  }
  return out;
}

/// Pseudo coordinates on a 1/1024 grid in [0, 1] (so v = pseudo · n is exact in float and the
/// integer parts agree with the double reference), the last edge exactly 1.
std::vector<double> gridPseudo(std::size_t n, unsigned seed) {
  auto v = reference::randomValues(n, seed, 0.0, 1.0);
  for (auto &x : v)
    x = std::floor(x * 1024) / 1024;
  for (std::size_t i = n >= 3 ? n - 3 : 0; i < n; ++i)
    v[i] = 1.0;
  return v;
}

struct BasisCase {
  Type type;
  Layout layout;
  unsigned degree;
};

const std::vector<int> kKernelSize{5, 4, 6};
const std::vector<unsigned char> kOpen{1, 0, 1};

/// splineBasis of `numEdges` edges over the three dimensions above on rig `r`; the outputs are
/// "basis" and "weightIndex" (returned too).
std::pair<Tensor, Tensor> buildBasis(Rig &r, Type type, std::size_t numEdges, unsigned degree) {
  Tensor pseudo = r.tensor(type, {numEdges, 3}, "pseudo");
  Tensor kernelSize = r.tensor(INT, {3}, "kernelSize");
  Tensor isOpen = r.tensor(UNSIGNED_CHAR, {3}, "isOpenSpline");
  std::size_t numSplines = 1;
  for (int d = 0; d < 3; ++d)
    numSplines *= degree + 1;
  Tensor basis = r.graph.addVariable(type, {numEdges, numSplines}, "basis");
  Tensor weightIndex = r.graph.addVariable(INT, {numEdges, numSplines}, "weightIndex");
  r.place(basis);
  r.place(weightIndex);
  popops::splineBasis(r.graph, pseudo, kernelSize, isOpen, basis, weightIndex, degree, r.prog,
                      "spline");
  r.output("basis", basis);
  r.output("weightIndex", weightIndex);
  return {basis, weightIndex};
}

std::map<std::string, std::vector<unsigned char>> basisInputs(Type type,
                                                              const std::vector<double> &pseudo) {
  return {{"pseudo", bytesOf(type, pseudo)},
          {"kernelSize", bytesOf(INT, {5, 4, 6})},
          {"isOpenSpline", bytesOf(UNSIGNED_CHAR, {1, 0, 1})}};
}

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

TEST(SplineBasis, MatchesTheReferenceForEveryDegreeTypeAndLayout) {
  const std::size_t numEdges = 29;
  for (Type type : {FLOAT, HALF})
    for (Layout layout : {Layout::ONE_TILE, Layout::SPREAD})
      for (unsigned degree : {1u, 2u, 3u}) {
        SCOPED_TRACE(type.toString() + " degree " + std::to_string(degree) +
                     (layout == Layout::ONE_TILE ? " one tile" : " spread"));
        Rig r(layout);
        buildBasis(r, type, numEdges, degree);
        const std::size_t numSplines = (degree + 1) * (degree + 1) * (degree + 1);
        const auto pseudo = gridPseudo(numEdges * 3, 7 + degree);
        const std::size_t size = type == HALF ? 2 : 4;
        auto out = run(
            r, basisInputs(type, pseudo),
            {{"basis", numEdges * numSplines * size}, {"weightIndex", numEdges * numSplines * 4}});
        const auto want = reference::splineBasis(reference::roundTo(type, pseudo), numEdges,
                                                 kKernelSize, kOpen, degree);
        const auto basis = valuesOf(type, out["basis"]);
        const auto index = valuesOf(INT, out["weightIndex"]);
        const double tol = type == HALF ? 1e-3 : 1e-6;
        for (std::size_t i = 0; i < want.basis.size(); ++i) {
          EXPECT_NEAR(basis[i], want.basis[i], tol) << i;
          EXPECT_EQ(index[i], want.weightIndex[i]) << i;
        }
      }
}

TEST(SplineBasis, EachEdgesBasisSumsToOne) {
  // A partition of unity: the (degree+1)^D weights of an edge add up to 1.
  Rig r(Layout::SPREAD);
  buildBasis(r, FLOAT, 11, 3);
  auto out = run(r, basisInputs(FLOAT, gridPseudo(33, 3)), {{"basis", 11 * 64 * 4}});
  const auto basis = valuesOf(FLOAT, out["basis"]);
  for (std::size_t e = 0; e < 11; ++e) {
    double sum = 0;
    for (std::size_t s = 0; s < 64; ++s)
      sum += basis[e * 64 + s];
    EXPECT_NEAR(sum, 1.0, 1e-5) << e;
  }
}

TEST(SplineBasis, ClosedSplineWrapsPastTheLastKernelPoint) {
  // One closed dimension of 4 points, degree 1: pseudo 0.9375 gives v = 3.75, between point 3
  // and point 0 (wrapped), weighted 0.25 and 0.75. Open, the same pseudo gives v = 2.8125.
  Rig r(Layout::ONE_TILE);
  Tensor pseudo = r.tensor(FLOAT, {1, 1}, "pseudo");
  Tensor kernelSize = r.tensor(INT, {1}, "kernelSize");
  Tensor isOpen = r.tensor(UNSIGNED_CHAR, {1}, "isOpenSpline");
  Tensor basis = r.graph.addVariable(FLOAT, {1, 2}, "basis");
  Tensor weightIndex = r.graph.addVariable(INT, {1, 2}, "weightIndex");
  r.place(basis);
  r.place(weightIndex);
  popops::splineBasis(r.graph, pseudo, kernelSize, isOpen, basis, weightIndex, 1, r.prog);
  r.output("basis", basis);
  r.output("weightIndex", weightIndex);
  for (unsigned char open : {0, 1}) {
    auto out = run(r,
                   {{"pseudo", bytesOf(FLOAT, {0.9375})},
                    {"kernelSize", bytesOf(INT, {4})},
                    {"isOpenSpline", bytesOf(UNSIGNED_CHAR, {double(open)})}},
                   {{"basis", 8}, {"weightIndex", 8}});
    const auto b = valuesOf(FLOAT, out["basis"]);
    const auto w = valuesOf(INT, out["weightIndex"]);
    if (open == 0) {
      EXPECT_EQ(w, (std::vector<double>{3, 0}));
      EXPECT_EQ(b, (std::vector<double>{0.25, 0.75}));
    } else {
      EXPECT_EQ(w, (std::vector<double>{2, 3}));
      EXPECT_EQ(b, (std::vector<double>{0.1875, 0.8125}));
    }
  }
}

namespace {

/// splineWeighting on rig `r` with basis and weight index written by the host; output "out".
void buildWeighting(Rig &r, Type type, std::size_t edges, std::size_t in, std::size_t outCh,
                    std::size_t points, std::size_t splines) {
  Tensor input = r.tensor(type, {edges, in}, "input");
  Tensor weight = r.tensor(type, {points, in, outCh}, "weight");
  Tensor basis = r.tensor(type, {edges, splines}, "basis");
  Tensor weightIndex = r.tensor(INT, {edges, splines}, "weightIndex");
  Tensor out = popops::splineWeighting(r.graph, input, weight, basis, weightIndex, r.prog, "sw");
  EXPECT_EQ(out.shape(), (std::vector<std::size_t>{edges, outCh}));
  EXPECT_EQ(out.elementType(), type);
  r.output("out", out);
}

struct WeightingData {
  std::vector<double> input, weight, basis;
  std::vector<int> index;
};

WeightingData weightingData(Type type, std::size_t edges, std::size_t in, std::size_t outCh,
                            std::size_t points, std::size_t splines) {
  WeightingData d;
  d.input = reference::roundTo(type, reference::randomValues(edges * in, 21));
  d.weight = reference::roundTo(type, reference::randomValues(points * in * outCh, 22));
  d.basis = reference::roundTo(type, reference::randomValues(edges * splines, 23, 0.0, 1.0));
  for (std::size_t i = 0; i < edges * splines; ++i)
    d.index.push_back(static_cast<int>((i * 7 + i / splines) % points));
  d.index[3] = -1;                       // outside the weights: contributes nothing
  d.index[5] = static_cast<int>(points); // likewise
  return d;
}

std::map<std::string, std::vector<unsigned char>> weightingInputs(Type type,
                                                                  const WeightingData &d) {
  return {{"input", bytesOf(type, d.input)},
          {"weight", bytesOf(type, d.weight)},
          {"basis", bytesOf(type, d.basis)},
          {"weightIndex", bytesOf(INT, std::vector<double>(d.index.begin(), d.index.end()))}};
}

} // namespace

TEST(SplineWeighting, MatchesTheReferenceForEachTypeAndLayout) {
  const std::size_t edges = 37, in = 5, outCh = 7, points = 12, splines = 8;
  for (Type type : {FLOAT, HALF})
    for (Layout layout : {Layout::ONE_TILE, Layout::SPREAD}) {
      SCOPED_TRACE(type.toString() + (layout == Layout::ONE_TILE ? " one tile" : " spread"));
      Rig r(layout);
      buildWeighting(r, type, edges, in, outCh, points, splines);
      const auto d = weightingData(type, edges, in, outCh, points, splines);
      auto out =
          run(r, weightingInputs(type, d), {{"out", edges * outCh * (type == HALF ? 2 : 4)}});
      const auto got = valuesOf(type, out["out"]);
      const auto want = reference::splineWeighting(d.input, d.weight, d.basis, d.index, edges, in,
                                                   outCh, splines);
      for (std::size_t i = 0; i < want.size(); ++i) {
        const double tol = type == HALF ? 2e-3 * (1 + std::fabs(want[i])) : 1e-5;
        EXPECT_NEAR(got[i], want[i], tol) << i;
      }
    }
}

TEST(Spline, ConvolutionGivesTheSameBitsWithOneAndTwoHostThreads) {
  // The two halves chained as a spline convolution uses them: splineWeighting reads the basis
  // and weight indices splineBasis computed on the device.
  const std::size_t edges = 29, in = 3, outCh = 4, points = 5 * 4 * 6, splines = 27;
  for (Type type : {FLOAT, HALF}) {
    SCOPED_TRACE(type.toString());
    auto once = [&](unsigned threads) {
      Rig r(Layout::SPREAD);
      auto [basis, index] = buildBasis(r, type, edges, 2);
      Tensor input = r.tensor(type, {edges, in}, "input");
      Tensor weight = r.tensor(type, {points, in, outCh}, "weight");
      r.output("out", popops::splineWeighting(r.graph, input, weight, basis, index, r.prog));
      auto inputs = basisInputs(type, gridPseudo(edges * 3, 5));
      inputs["input"] = bytesOf(type, reference::randomValues(edges * in, 31));
      inputs["weight"] = bytesOf(type, reference::randomValues(points * in * outCh, 32));
      const std::size_t size = type == HALF ? 2 : 4;
      return run(r, inputs,
                 {{"basis", edges * splines * size},
                  {"weightIndex", edges * splines * 4},
                  {"out", edges * outCh * size}},
                 threads);
    };
    const auto one = once(1), two = once(2);
    for (const auto &[name, bytes] : one)
      EXPECT_EQ(two.at(name), bytes) << name;
  }
}

TEST(SplineBasis, ErrorsNameTheTensorAtFault) {
  Rig r(Layout::ONE_TILE);
  auto var = [&](Type t, std::vector<std::size_t> shape, const std::string &name) {
    Tensor x = r.graph.addVariable(t, shape, name);
    r.graph.setTileMapping(x, 0);
    return x;
  };
  Tensor pseudo = var(FLOAT, {4, 2}, "pseudo"), kernel = var(INT, {2}, "kernel");
  Tensor open = var(UNSIGNED_CHAR, {2}, "open");
  Tensor basis = var(FLOAT, {4, 9}, "basis"), index = var(INT, {4, 9}, "index");
  using E = poputil::poplibs_error;
  auto call = [&](const Tensor &p, const Tensor &k, const Tensor &o, const Tensor &b,
                  const Tensor &w, unsigned degree) {
    return
        [&, p, k, o, b, w, degree] { popops::splineBasis(r.graph, p, k, o, b, w, degree, r.prog); };
  };
  expectThrowNaming<E>(call(var(FLOAT, {8}, "flatPseudo"), kernel, open, basis, index, 2),
                       "flatPseudo");
  expectThrowNaming<E>(call(var(INT, {4, 2}, "intPseudo"), kernel, open, basis, index, 2),
                       "intPseudo");
  expectThrowNaming<E>(call(pseudo, var(INT, {2, 1}, "kernel2d"), open, basis, index, 2),
                       "kernel2d");
  expectThrowNaming<E>(call(pseudo, var(UNSIGNED_INT, {2}, "kernelU"), open, basis, index, 2),
                       "kernelU");
  expectThrowNaming<E>(call(pseudo, kernel, var(UNSIGNED_CHAR, {1, 2}, "open2d"), basis, index, 2),
                       "open2d");
  expectThrowNaming<E>(call(pseudo, kernel, var(BOOL, {2}, "openBool"), basis, index, 2),
                       "openBool");
  expectThrowNaming<E>(call(pseudo, var(INT, {3}, "kernel3"), open, basis, index, 2), "kernel3");
  expectThrowNaming<E>(call(pseudo, kernel, var(UNSIGNED_CHAR, {3}, "open3"), basis, index, 2),
                       "open3");
  expectThrowNaming<E>(call(pseudo, kernel, open, basis, index, 0), "degree 0");
  expectThrowNaming<E>(call(pseudo, kernel, open, basis, index, 4), "degree 4");
  expectThrowNaming<E>(call(pseudo, kernel, open, var(FLOAT, {4, 8}, "basis48"), index, 2),
                       "basis48");
  expectThrowNaming<E>(call(pseudo, kernel, open, var(HALF, {4, 9}, "basisHalf"), index, 2),
                       "basisHalf");
  expectThrowNaming<E>(call(pseudo, kernel, open, basis, var(INT, {5, 9}, "index59"), 2),
                       "index59");
  expectThrowNaming<E>(call(pseudo, kernel, open, basis, var(FLOAT, {4, 9}, "indexF"), 2),
                       "indexF");
}

TEST(SplineWeighting, ErrorsNameTheTensorAtFault) {
  Rig r(Layout::ONE_TILE);
  auto var = [&](Type t, std::vector<std::size_t> shape, const std::string &name) {
    Tensor x = r.graph.addVariable(t, shape, name);
    r.graph.setTileMapping(x, 0);
    return x;
  };
  Tensor input = var(FLOAT, {6, 3}, "input"), weight = var(FLOAT, {10, 3, 4}, "weight");
  Tensor basis = var(FLOAT, {6, 8}, "basis"), index = var(INT, {6, 8}, "index");
  using E = poputil::poplibs_error;
  auto call = [&](const Tensor &i, const Tensor &w, const Tensor &b, const Tensor &x) {
    return [&, i, w, b, x] { popops::splineWeighting(r.graph, i, w, b, x, r.prog); };
  };
  expectThrowNaming<E>(call(var(FLOAT, {18}, "input1d"), weight, basis, index), "input1d");
  expectThrowNaming<E>(call(var(INT, {6, 3}, "inputInt"), weight, basis, index), "inputInt");
  expectThrowNaming<E>(call(input, var(FLOAT, {30, 4}, "weight2d"), basis, index), "weight2d");
  expectThrowNaming<E>(call(input, var(HALF, {10, 3, 4}, "weightHalf"), basis, index),
                       "weightHalf");
  expectThrowNaming<E>(call(input, weight, var(FLOAT, {48}, "basis1d"), index), "basis1d");
  expectThrowNaming<E>(call(input, weight, var(HALF, {6, 8}, "basisHalf"), index), "basisHalf");
  expectThrowNaming<E>(call(input, weight, basis, var(INT, {48}, "index1d")), "index1d");
  expectThrowNaming<E>(call(input, weight, basis, var(UNSIGNED_INT, {6, 8}, "indexU")), "indexU");
  expectThrowNaming<E>(call(input, weight, var(FLOAT, {5, 8}, "basis5"), index), "basis5");
  expectThrowNaming<E>(call(input, weight, basis, var(INT, {5, 8}, "index5")), "index5");
  expectThrowNaming<E>(call(input, weight, basis, var(INT, {6, 7}, "index67")), "index67");
  expectThrowNaming<E>(call(input, var(FLOAT, {10, 2, 4}, "weight2"), basis, index), "weight2");
}
