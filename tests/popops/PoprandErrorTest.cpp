// Every poprand argument check: the exception type and a message naming the culprit.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include <poplar/IPUModel.hpp>
#include <poprand/RandomGen.hpp>
#include <poprand/codelets.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

using namespace poplar;
using namespace poplar::program;

namespace {

struct Fixture {
  IPUModel model;
  Device device;
  Graph graph;
  Tensor seed, reference;
  Sequence prog;
  Fixture() : device(makeDevice(model)), graph(device.getTarget()) {
    poprand::addCodelets(graph);
    seed = graph.addVariable(UNSIGNED_INT, {2}, "goodSeed");
    graph.setTileMapping(seed, 0);
    reference = graph.addVariable(FLOAT, {4, 6}, "ref");
    poputil::mapTensorLinearly(graph, reference, 1, 1);
  }
  static Device makeDevice(IPUModel &m) {
    m.tilesPerIPU = 4;
    return m.createDevice();
  }
};

/// Runs f, expecting E whose message contains every one of `needles`.
template <class E>
void expectError(const std::function<void()> &f, std::initializer_list<std::string> needles) {
  try {
    f();
    FAIL() << "expected an exception";
  } catch (const E &e) {
    const std::string what = e.what();
    for (const auto &n : needles)
      EXPECT_NE(what.find(n), std::string::npos) << "missing '" << n << "' in: " << what;
  }
}

} // namespace

TEST(PoprandErrors, SeedOfWrongShapeIsRejectedByName) {
  Fixture f;
  Tensor bad = f.graph.addVariable(UNSIGNED_INT, {3}, "badSeed");
  f.graph.setTileMapping(bad, 0);
  expectError<poputil::poplibs_error>(
      [&] { poprand::uniform(f.graph, &bad, 0, f.reference, FLOAT, 0, 1, f.prog); },
      {"poprand::uniform", "badSeed", "[3]"});
}

TEST(PoprandErrors, SeedOfWrongTypeIsRejectedByName) {
  Fixture f;
  Tensor bad = f.graph.addVariable(INT, {2}, "intSeed");
  f.graph.setTileMapping(bad, 0);
  expectError<poputil::poplibs_error>(
      [&] { poprand::normal(f.graph, &bad, 0, f.reference, FLOAT, 0, 1, f.prog); },
      {"poprand::normal", "intSeed", "UNSIGNED_INT"});
}

TEST(PoprandErrors, SetSeedChecksTheMasterSeed) {
  Fixture f;
  Tensor bad = f.graph.addVariable(UNSIGNED_INT, {2, 1}, "master2d");
  f.graph.setTileMapping(bad, 0);
  expectError<poputil::poplibs_error>([&] { poprand::setSeed(f.graph, bad, 0, f.prog); },
                                      {"setSeed", "masterSeed", "master2d"});
}

TEST(PoprandErrors, KeepProbabilityOutsideZeroOneIsRejected) {
  Fixture f;
  Tensor in = f.graph.clone(f.reference, "in");
  for (double keep : {0.0, -0.5, 1.5})
    expectError<poputil::poplibs_error>(
        [&] { poprand::dropout(f.graph, &f.seed, 0, in, f.reference, keep, 1.0, f.prog); },
        {"dropout", "keepProbability"});
  // 1 is allowed (keeps everything).
  EXPECT_NO_THROW(poprand::dropout(f.graph, &f.seed, 0, in, f.reference, 1.0, 1.0, f.prog));
}

TEST(PoprandErrors, DropoutInputMustMatchTheReferenceShape) {
  Fixture f;
  Tensor in = f.graph.addVariable(FLOAT, {6, 4}, "wrongShapeIn");
  poputil::mapTensorLinearly(f.graph, in, 1, 1);
  expectError<poputil::poplibs_error>(
      [&] { poprand::dropout(f.graph, &f.seed, 0, in, f.reference, 0.5, 2.0, f.prog); },
      {"wrongShapeIn", "ref", "[6,4]", "[4,6]"});
}

TEST(PoprandErrors, MinGreaterThanMaxIsRejected) {
  Fixture f;
  expectError<poputil::poplibs_error>(
      [&] { poprand::uniform(f.graph, &f.seed, 0, f.reference, FLOAT, 2.0, 1.0, f.prog); },
      {"minVal", "maxVal", "2", "1"});
}

TEST(PoprandErrors, UnsupportedOutputTypesAreRejectedByName) {
  Fixture f;
  expectError<poputil::poplibs_error>(
      [&] { poprand::uniform(f.graph, &f.seed, 0, f.reference, BOOL, 0, 1, f.prog); },
      {"uniform", "bool"});
  expectError<poputil::poplibs_error>(
      [&] { poprand::normal(f.graph, &f.seed, 0, f.reference, INT, 0, 1, f.prog); },
      {"normal", "int"});
  expectError<poputil::poplibs_error>(
      [&] { poprand::truncatedNormal(f.graph, &f.seed, 0, f.reference, INT, 0, 1, 2, f.prog); },
      {"truncatedNormal", "int"});
  expectError<poputil::poplibs_error>(
      [&] { poprand::bernoulli(f.graph, &f.seed, 0, f.reference, UNSIGNED_INT, 0.5, f.prog); },
      {"bernoulli", "unsigned int"});
  Tensor intIn = f.graph.addVariable(INT, {4, 6}, "intIn");
  poputil::mapTensorLinearly(f.graph, intIn, 1, 1);
  expectError<poputil::poplibs_error>(
      [&] { poprand::dropout(f.graph, &f.seed, 0, intIn, f.reference, 0.5, 2.0, f.prog); },
      {"dropout", "int"});
}

TEST(PoprandErrors, IntUniformNeedsIntegerBoundsInRange) {
  Fixture f;
  expectError<poputil::poplibs_error>(
      [&] { poprand::uniform(f.graph, &f.seed, 0, f.reference, INT, 0.5, 3, f.prog); },
      {"INT", "minVal", "0.5"});
  expectError<poputil::poplibs_error>(
      [&] { poprand::uniform(f.graph, &f.seed, 0, f.reference, INT, 0, 1e10, f.prog); },
      {"INT", "maxVal", "1e+10"});
}

TEST(PoprandErrors, BadDistributionParametersAreRejectedByName) {
  Fixture f;
  expectError<poputil::poplibs_error>(
      [&] { poprand::bernoulli(f.graph, &f.seed, 0, f.reference, FLOAT, 1.5, f.prog); },
      {"prob", "1.5"});
  expectError<poputil::poplibs_error>(
      [&] { poprand::normal(f.graph, &f.seed, 0, f.reference, FLOAT, 0, -1, f.prog); },
      {"stdDev", "-1"});
  expectError<poputil::poplibs_error>(
      [&] { poprand::truncatedNormal(f.graph, &f.seed, 0, f.reference, FLOAT, 0, 1, 0, f.prog); },
      {"alpha", "0"});
}

TEST(PoprandErrors, UnmappedReferenceIsRejectedByName) {
  Fixture f;
  Tensor unmapped = f.graph.addVariable(FLOAT, {8}, "unmappedRef");
  expectError<invalid_tile_mapping>(
      [&] { poprand::uniform(f.graph, &f.seed, 0, unmapped, FLOAT, 0, 1, f.prog); },
      {"unmappedRef"});
}

TEST(PoprandErrors, LogUniformChecksItsInterval) {
  Fixture f;
  expectError<poputil::poplibs_error>(
      [&] { poprand::logUniform(f.graph, &f.seed, 0, f.reference, FLOAT, 0.5, 4, f.prog); },
      {"logUniform", "minVal", "0.5"});
  expectError<poputil::poplibs_error>(
      [&] { poprand::logUniform(f.graph, &f.seed, 0, f.reference, FLOAT, 4, 4, f.prog); },
      {"maxVal", "minVal", "4"});
  expectError<poputil::poplibs_error>(
      [&] { poprand::logUniform(f.graph, &f.seed, 0, f.reference, FLOAT, 2, 4, f.prog, 1.0); },
      {"base", "1"});
  expectError<poputil::poplibs_error>(
      [&] { poprand::logUniform(f.graph, &f.seed, 0, f.reference, HALF, 2049.1, 2049.9, f.prog); },
      {"no half value", "2049.1", "2049.9"});
  expectError<poputil::poplibs_error>(
      [&] { poprand::logUniform(f.graph, &f.seed, 0, f.reference, BOOL, 2, 4, f.prog); },
      {"logUniform", "bool"});
}

TEST(PoprandErrors, ShapedDropoutReferenceMustBroadcastToTheInput) {
  Fixture f;
  Tensor in = f.graph.addVariable(FLOAT, {4, 5}, "shapedIn");
  poputil::mapTensorLinearly(f.graph, in, 1, 1);
  expectError<poputil::poplibs_error>(
      [&] { poprand::shapedDropout(f.graph, &f.seed, 0, in, f.reference, 0.5, 2.0, f.prog); },
      {"shapedDropout", "ref", "[4,6]", "shapedIn", "[4,5]"});
  Tensor rows = f.graph.addVariable(FLOAT, {4, 1}, "rows");
  poputil::mapTensorLinearly(f.graph, rows, 1, 1);
  expectError<poputil::poplibs_error>(
      [&] { poprand::shapedDropout(f.graph, &f.seed, 0, in, rows, 0.0, 2.0, f.prog); },
      {"shapedDropout", "keepProbability"});
}
