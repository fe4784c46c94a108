// popnn::dropout: kept elements are scaled, dropped ones are zero, the mask is reproducible.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popnn/Dropout.hpp>
#include <popnn/codelets.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

using namespace poplar;
using namespace poplar::program;

namespace {

struct DropoutRun {
  std::vector<float> input, first, again, otherModifier;
};

DropoutRun runDropout(double keep, std::size_t n) {
  IPUModel model;
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  popnn::addCodelets(graph);
  Tensor x = graph.addVariable(FLOAT, {n}, "x");
  poputil::mapTensorLinearly(graph, x, 1, 1);
  Tensor seed = graph.addConstant<unsigned>(UNSIGNED_INT, {2}, {1234u, 99u}, "seed");
  graph.setTileMapping(seed, 0);
  Sequence prog;
  const double scale = 1.0 / keep;
  Tensor a = popnn::dropout(graph, &seed, 7, x, x, keep, scale, prog, "a");
  Tensor b = popnn::dropout(graph, &seed, 7, x, x, keep, scale, prog, "b");
  Tensor c = popnn::dropout(graph, &seed, 8, x, x, keep, scale, prog, "c");
  graph.createHostWrite("x", x);
  graph.createHostRead("a", a);
  graph.createHostRead("b", b);
  graph.createHostRead("c", c);
  Engine engine(graph, prog);
  engine.load(device);
  DropoutRun r;
  r.input.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    r.input[i] = 1.0f + static_cast<float>(i % 13);
  engine.writeTensor("x", r.input.data(), r.input.data() + n);
  engine.run();
  r.first.resize(n);
  r.again.resize(n);
  r.otherModifier.resize(n);
  engine.readTensor("a", r.first.data(), r.first.data() + n);
  engine.readTensor("b", r.again.data(), r.again.data() + n);
  engine.readTensor("c", r.otherModifier.data(), r.otherModifier.data() + n);
  return r;
}

} // namespace

TEST(PopnnDropout, KeptElementsAreScaledAndTheMaskIsReproducible) {
  const double keep = 0.75;
  const std::size_t n = 8192;
  const DropoutRun r = runDropout(keep, n);
  std::size_t kept = 0, differ = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float scaled = static_cast<float>(r.input[i] * (1.0 / keep));
    ASSERT_TRUE(r.first[i] == 0.0f || std::fabs(r.first[i] - scaled) <= 1e-5f * scaled)
        << i << ": " << r.first[i];
    kept += r.first[i] != 0.0f;
    differ += (r.first[i] != 0.0f) != (r.otherModifier[i] != 0.0f);
  }
  EXPECT_EQ(r.first, r.again); // same seed and modifier: the backward pass sees the same mask
  // Binomial(n, keep): 5 standard deviations.
  const double sd = std::sqrt(n * keep * (1 - keep));
  EXPECT_NEAR(static_cast<double>(kept), n * keep, 5 * sd);
  EXPECT_GT(differ, n / 10) << "another seedModifier should give another mask";
}

TEST(PopnnDropout, KeepProbabilityOutsideTheUnitIntervalIsRejected) {
  IPUModel model;
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  popnn::addCodelets(graph);
  Tensor x = graph.addVariable(FLOAT, {8}, "x");
  graph.setTileMapping(x, 0);
  Sequence prog;
  try {
    popnn::dropout(graph, nullptr, 0, x, x, 1.5, 1.0, prog);
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("keepProbability"), std::string::npos) << e.what();
  }
}
