// Layers reject inputs of the wrong shape with an app_error naming the layer and what it expects.
#include <gtest/gtest.h>

#include <poplar/IPUModel.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/layers/BatchNorm.hpp>
#include <tessera/apps/layers/Conv2d.hpp>
#include <tessera/apps/layers/Dense.hpp>

namespace tessera::apps {
namespace {

class LayerErrors : public ::testing::Test {
protected:
  LayerErrors()
      : device(model().createDevice()), graph(device.getTarget()), ctx(graph, poplar::FLOAT, 1) {
    popops::addCodelets(graph);
  }
  static poplar::IPUModel model() {
    poplar::IPUModel m;
    m.tilesPerIPU = 4;
    return m;
  }
  poplar::Tensor input(std::vector<std::size_t> shape) {
    poplar::Tensor t = graph.addVariable(poplar::FLOAT, shape, "x");
    poputil::mapTensorLinearly(graph, t);
    return t;
  }
  void expectNamed(Layer &layer, const poplar::Tensor &x, const std::string &expected) {
    poplar::program::Sequence prog;
    try {
      layer.forward(ctx, x, Mode::Training, prog);
      FAIL() << "layer '" << layer.name() << "' accepted a bad input";
    } catch (const app_error &e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("'" + layer.name() + "'"), std::string::npos) << what;
      EXPECT_NE(what.find(expected), std::string::npos) << what;
    }
  }
  poplar::Device device;
  poplar::Graph graph;
  BuildContext ctx;
};

TEST_F(LayerErrors, Conv2dWithTheWrongChannelCountNamesTheLayer) {
  Conv2d conv("stage9/conv", Conv2dOptions{3, 8, 3, 1, 1, false});
  expectNamed(conv, input({2, 1, 8, 8}), "[B][3][H][W]");
}

TEST_F(LayerErrors, DenseWithTheWrongFeatureCountNamesTheLayer) {
  Dense dense("head/fc", 16, 10);
  expectNamed(dense, input({2, 15}), "[B][16]");
}

TEST_F(LayerErrors, BatchNormWithTheWrongChannelCountNamesTheLayer) {
  BatchNorm bn("stem/bn", 4);
  expectNamed(bn, input({2, 5, 3, 3}), "4 channels");
}

TEST_F(LayerErrors, DuplicateParameterNamesAreRejected) {
  poplar::Tensor w = input({3});
  ctx.addParameter("same", w, true);
  EXPECT_THROW(ctx.addParameter("same", w, true), app_error);
}

} // namespace
} // namespace tessera::apps
