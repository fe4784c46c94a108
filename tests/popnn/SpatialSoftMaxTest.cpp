// popnn::spatialSoftMax2D against reference/SpatialSoftMax.hpp: joint softmax and disabled
// softmax, temperatures, FLOAT and HALF, one tile and 16, the temperature variable, and a rank
// error naming `fields`.
#include <popnn/SpatialSoftMax.hpp>
#include <poputil/exceptions.hpp>
#include <reference/SpatialSoftMax.hpp>

#include "PopnnTestHarness.hpp"

using namespace popnn_test;

namespace {

struct SsmCase {
  bool half;
  bool disableSoftmax;
  Layout layout;
};

class SpatialSoftMax : public testing::TestWithParam<SsmCase> {};

std::string ssmName(const testing::TestParamInfo<SsmCase> &info) {
  return std::string(info.param.half ? "half" : "float") +
         (info.param.disableSoftmax ? "_noSoftmax_" : "_softmax_") +
         layoutName(info.param.layout);
}

TEST_P(SpatialSoftMax, ExpectedCoordinatesMatchReference) {
  const auto c = GetParam();
  const poplar::Type type = c.half ? poplar::HALF : poplar::FLOAT;
  const std::size_t F = 3, H = 5, W = 4;
  const float temperature = 0.5f;
  auto x = randomValues(F * H * W, 301, -1, 1);
  if (c.disableSoftmax) // already probabilities: one positive field per F, joint sum 1
    for (auto &v : x)
      v = (v + 1.0) / (F * H * W);
  x = roundTo(type, x);
  Harness h(c.layout);
  auto fields = h.input(type, {F, H, W}, x, "fields");
  auto [coords, temp] =
      popnn::spatialSoftMax2D(h.graph(), h.prog(), fields, temperature, c.disableSoftmax);
  ASSERT_EQ(coords.shape(), (std::vector<std::size_t>{F, 2}));
  ASSERT_EQ(temp.rank(), 0u);
  EXPECT_EQ(temp.elementType(), type);
  h.output("coords", coords);
  h.output("temperature", temp);
  auto r = h.run();
  EXPECT_NEAR(r["temperature"][0], temperature, 1e-6);
  const double tol = c.half ? 5e-3 : 1e-5;
  expectClose(r["coords"], reference::spatialSoftMax2D(x, F, H, W, temperature, c.disableSoftmax),
              tol, tol, "coordinates");
}

INSTANTIATE_TEST_SUITE_P(Fields, SpatialSoftMax,
                         testing::Values(SsmCase{false, false, Layout::SINGLE_TILE},
                                         SsmCase{false, false, Layout::MULTI_TILE},
                                         SsmCase{false, true, Layout::MULTI_TILE},
                                         SsmCase{true, false, Layout::MULTI_TILE},
                                         SsmCase{true, true, Layout::SINGLE_TILE}),
                         ssmName);

TEST(SpatialSoftMaxCoordinates, APeakedFieldPointsAtItsPeak) {
  // One field, a very sharp peak at row 3 of 5 and column 0 of 3: (y, x) = (0.5, -1).
  const std::size_t H = 5, W = 3;
  std::vector<double> x(H * W, 0.0);
  x[3 * W + 0] = 30.0;
  Harness h(Layout::SINGLE_TILE);
  auto fields = h.input(poplar::FLOAT, {1, H, W}, x, "fields");
  h.output("coords", popnn::spatialSoftMax2D(h.graph(), h.prog(), fields, 1.0f).first);
  expectClose(h.run()["coords"], {0.5, -1.0}, 1e-4, 0, "peak");
}

TEST(SpatialSoftMaxErrors, FieldsOfRankOtherThanThreeAreRefusedNamingFields) {
  Harness h(Layout::SINGLE_TILE);
  auto t = h.graph().addVariable(poplar::FLOAT, {4, 4}, "flat");
  try {
    popnn::spatialSoftMax2D(h.graph(), h.prog(), t, 1.0f);
    FAIL() << "expected poplibs_error";
  } catch (const poplar::poplar_error &e) {
    EXPECT_NE(std::string(e.what()).find("'fields'"), std::string::npos) << e.what();
  }
}

} // namespace
