// Builds small graphs with the installed SDK, runs them on an IPU Model and checks every result
// against a naive host loop, so each installed library (and the codelet library behind it) is
// loaded and used: poplar/poputil, popops (map, reduce), poprand (uniform), poplin (matMul),
// popnn (softmax) and a codelet compiled at run time from CONSUMER_CODELET_FILE.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Program.hpp>
#include <poplar/Version.hpp>
#include <poplin/MatMul.hpp>
#include <poplin/codelets.hpp>
#include <popnn/NonLinearity.hpp>
#include <popnn/codelets.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <popops/codelets.hpp>
#include <poprand/RandomGen.hpp>
#include <poprand/codelets.hpp>
#include <poputil/TileMapping.hpp>

#ifndef CONSUMER_CODELET_FILE
#error "CONSUMER_CODELET_FILE must name codelets/AffineVertex.cpp"
#endif

using namespace poplar;
using namespace poplar::program;

namespace {

constexpr std::size_t M = 3, K = 5, N = 4;

/// Counts the elements of `got` that differ from `want` by more than `tolerance` (relative to
/// max(1, |want|)), printing each with `what`.
int countMismatches(const char *what, const std::vector<float> &got, const std::vector<float> &want,
                    float tolerance) {
  int mismatches = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::fabs(got[i] - want[i]) > tolerance * std::max(1.0f, std::fabs(want[i]))) {
      std::fprintf(stderr, "%s[%zu] = %.9g, expected %.9g\n", what, i, got[i], want[i]);
      ++mismatches;
    }
  }
  return mismatches;
}

/// Small integers as floats, so sums and products are exact.
std::vector<float> pattern(std::size_t n, int mod, int offset) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(static_cast<int>((i * 7) % mod) + offset);
  return v;
}

} // namespace

int main() {
  std::printf("%s\n", versionString().c_str());

  IPUModel model;
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  poprand::addCodelets(graph);
  poplin::addCodelets(graph);
  popnn::addCodelets(graph);
  // -H lists every header the compiler opens: the driver checks poplar/Vertex.hpp came from the
  // installed prefix, not from the source tree the SDK was built in.
  std::ostringstream compileOutput;
  graph.addCodelets(CONSUMER_CODELET_FILE, CodeletFileType::Auto, "-H", compileOutput);
  std::istringstream compileLines(compileOutput.str());
  for (std::string line; std::getline(compileLines, line);)
    if (line.find("poplar/Vertex.hpp") != std::string::npos)
      std::printf("codelet header: %s\n", line.substr(line.find_first_not_of(". ")).c_str());

  const std::vector<float> aHost = pattern(M * K, 5, -2), bHost = pattern(K * N, 4, -1);
  Tensor a = graph.addVariable(FLOAT, {M, K}, "a");
  Tensor b = graph.addVariable(FLOAT, {K, N}, "b");
  poputil::mapTensorLinearly(graph, a);
  poputil::mapTensorLinearly(graph, b);
  graph.createHostWrite("a", a);
  graph.createHostWrite("b", b);
  Sequence prog;

  // popops: squared = a * a + 1, element-wise; rowSums = the sum of each row of squared.
  namespace pe = popops::expr;
  Tensor squared = popops::map(graph, pe::_1 * pe::_1 + pe::Const(1.0f), {a}, prog, "squared");
  Tensor rowSums = popops::reduce(graph, squared, {1}, popops::Operation::ADD, prog, "rowSums");
  // poplin: product = a · b; popnn: probabilities = softmax over each row of product.
  Tensor product = poplin::matMul(graph, a, b, prog, "product");
  Tensor probabilities =
      popnn::nonLinearity(graph, popnn::NonLinearityType::SOFTMAX, product, prog, "softmax");
  // poprand: numbers in [-1, 3] shaped like b.
  Tensor random = poprand::uniform(graph, nullptr, 7, b, FLOAT, -1.0, 3.0, prog, "random");
  // The run-time codelet: affine = 2 a + 1, one vertex per row on its own tile.
  Tensor affine = graph.addVariable(FLOAT, {M, K}, "affine");
  ComputeSet cs = graph.addComputeSet("affine");
  for (std::size_t row = 0; row < M; ++row) {
    VertexRef v = graph.addVertex(cs, "AffineVertex");
    graph.connect(v["in"], a[row]);
    graph.connect(v["out"], affine[row]);
    graph.setTileMapping(v, static_cast<unsigned>(row));
    graph.setTileMapping(affine[row], static_cast<unsigned>(row));
  }
  prog.add(Execute(cs));

  const std::vector<std::pair<std::string, Tensor>> outputs = {
      {"squared", squared}, {"rowSums", rowSums},
      {"product", product}, {"probabilities", probabilities},
      {"random", random},   {"affine", affine}};
  for (const auto &[name, t] : outputs)
    graph.createHostRead(name, t);

  Engine engine(graph, prog);
  engine.load(device);
  engine.writeTensor("a", aHost.data(), aHost.data() + aHost.size());
  engine.writeTensor("b", bHost.data(), bHost.data() + bHost.size());
  engine.run();
  auto read = [&](const std::string &name, std::size_t n) {
    std::vector<float> v(n, -999.0f);
    engine.readTensor(name, v.data(), v.data() + v.size());
    return v;
  };

  // The same computations as naive host loops.
  std::vector<float> wantSquared(M * K), wantRowSums(M, 0.0f), wantProduct(M * N, 0.0f),
      wantProbabilities(M * N), wantAffine(M * K);
  for (std::size_t i = 0; i < M * K; ++i) {
    wantSquared[i] = aHost[i] * aHost[i] + 1.0f;
    wantRowSums[i / K] += wantSquared[i];
    wantAffine[i] = 2.0f * aHost[i] + 1.0f;
  }
  for (std::size_t m = 0; m < M; ++m)
    for (std::size_t n = 0; n < N; ++n)
      for (std::size_t k = 0; k < K; ++k)
        wantProduct[m * N + n] += aHost[m * K + k] * bHost[k * N + n];
  for (std::size_t m = 0; m < M; ++m) {
    const float *row = &wantProduct[m * N];
    const float rowMax = *std::max_element(row, row + N);
    double sum = 0;
    for (std::size_t n = 0; n < N; ++n)
      sum += std::exp(static_cast<double>(row[n] - rowMax));
    for (std::size_t n = 0; n < N; ++n)
      wantProbabilities[m * N + n] =
          static_cast<float>(std::exp(static_cast<double>(row[n] - rowMax)) / sum);
  }

  int mismatches =
      countMismatches("squared", read("squared", M * K), wantSquared, 0.0f) +
      countMismatches("rowSums", read("rowSums", M), wantRowSums, 0.0f) +
      countMismatches("product", read("product", M * N), wantProduct, 0.0f) +
      countMismatches("probabilities", read("probabilities", M * N), wantProbabilities, 1e-5f) +
      countMismatches("affine", read("affine", M * K), wantAffine, 0.0f);
  const std::vector<float> randomValues = read("random", K * N);
  for (std::size_t i = 0; i < randomValues.size(); ++i) {
    if (!(randomValues[i] >= -1.0f && randomValues[i] <= 3.0f)) {
      std::fprintf(stderr, "random[%zu] = %g, expected a number in [-1, 3]\n", i, randomValues[i]);
      ++mismatches;
    }
  }
  if (std::all_of(randomValues.begin(), randomValues.end(),
                  [&](float x) { return x == randomValues[0]; })) {
    std::fprintf(stderr, "random: all %zu numbers are %g\n", randomValues.size(), randomValues[0]);
    ++mismatches;
  }

  if (mismatches != 0) {
    std::fprintf(stderr, "install consumer: %d results differ from the host reference\n",
                 mismatches);
    return 1;
  }
  std::printf("install consumer: popops, poprand, poplin, popnn and run-time codelet results "
              "match the host reference\n");
  return 0;
}
