// Every public error path of the convolution API: the exception type and that the message names
// the culprit.
#include <gtest/gtest.h>

#include <string>

#include <poplar/exceptions.hpp>
#include <poputil/exceptions.hpp>

#include "ConvTestSupport.hpp"

using namespace poplin::testing;
using poplar::FLOAT;
using poplin::ConvParams;

namespace {

template <class E, class F> void expectThrowNaming(F &&f, const std::string &needle) {
  try {
    f();
    FAIL() << "expected an exception naming '" << needle << "'";
  } catch (const E &e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

struct ConvErrors : ::testing::Test {
  poplar::Device device = convDevice(4);
  poplar::Graph graph{device.getTarget()};
  poplar::program::Sequence prog;
  ConvParams params{FLOAT, 2, {6, 6}, {3, 3}, 4, 5, 1};
  void SetUp() override { poplin::addCodelets(graph); }
  poplar::Tensor input(const std::vector<std::size_t> &shape) {
    return userTensor(graph, FLOAT, shape, "in");
  }
};

TEST_F(ConvErrors, InnerChannelMismatchNamesInput) {
  auto in = input({2, 3, 6, 6}), w = input({1, 5, 4, 3, 3});
  expectThrowNaming<poputil::poplibs_error>(
      [&] { poplin::convolution(graph, in, w, params, false, prog); }, "'in'");
}

TEST_F(ConvErrors, RankErrorNamesInput) {
  auto in = input({2, 4, 36}), w = input({1, 5, 4, 3, 3});
  expectThrowNaming<poputil::poplibs_error>(
      [&] { poplin::convolution(graph, in, w, params, false, prog); }, "rank 3");
}

TEST_F(ConvErrors, MoreThanThreeSpatialDimensionsRejected) {
  params = ConvParams(FLOAT, 1, {2, 2, 2, 2}, {1, 1, 1, 1}, 1, 1, 1);
  expectThrowNaming<poputil::poplibs_error>([&] { poplin::createInput(graph, params, "in"); },
                                            "4 spatial dimensions");
}

TEST_F(ConvErrors, TransformOfWrongRankNamesTheField) {
  params.inputTransform.paddingLower = {1};
  expectThrowNaming<poputil::poplibs_error>([&] { params.validate(); },
                                            "inputTransform.paddingLower");
  params = ConvParams(FLOAT, 2, {6, 6}, {3}, 4, 5, 1);
  expectThrowNaming<poputil::poplibs_error>([&] { params.validate(); }, "kernelShape");
}

TEST_F(ConvErrors, GroupsNotDividingChannelsNamesGroups) {
  // 3 groups of 1 input channel cannot take a 4-channel input.
  params = ConvParams(FLOAT, 2, {6, 6}, {3, 3}, 1, 1, 3);
  auto in = input({2, 4, 6, 6}), w = input({3, 1, 1, 3, 3});
  expectThrowNaming<poputil::poplibs_error>(
      [&] { poplin::convolution(graph, in, w, params, false, prog); }, "3 groups");
}

TEST_F(ConvErrors, NoOutputLeftNamesTheDimension) {
  params = ConvParams(FLOAT, 1, {4, 6}, {3, 3}, 1, 1, 1);
  params.kernelTransform.dilation = {3, 1}; // a 7-wide kernel over 4 inputs
  expectThrowNaming<poputil::poplibs_error>([&] { poplin::createInput(graph, params, "in"); },
                                            "dimension 0");
  params.kernelTransform.dilation = {1, 1};
  params.outputTransform.truncationLower = {0, 4};
  expectThrowNaming<poputil::poplibs_error>([&] { params.validate(); }, "truncation");
  params.outputTransform.truncationLower = {0, 0};
  params.outputTransform.stride = {0, 1};
  expectThrowNaming<poputil::poplibs_error>([&] { params.validate(); }, "stride[0]");
}

TEST_F(ConvErrors, WeightsOfWrongShapeNamed) {
  auto in = input({2, 4, 6, 6}), w = input({1, 4, 5, 3, 3});
  expectThrowNaming<poputil::poplibs_error>(
      [&] { poplin::convolution(graph, in, w, params, false, prog); }, "weights");
  auto z = input({2, 5, 4, 4}), bad = input({1, 5, 4, 2, 3});
  expectThrowNaming<poputil::poplibs_error>(
      [&] { poplin::convolutionWeightUpdate(graph, z, bad, in, params, 1.0f, prog); }, "weights");
  auto badZ = input({2, 5, 4, 5});
  expectThrowNaming<poputil::poplibs_error>(
      [&] { poplin::calculateWeightDeltas(graph, badZ, in, params, prog); }, "zDeltas");
  auto wt = input({1, 4, 5, 2, 2});
  expectThrowNaming<poputil::poplibs_error>(
      [&] { poplin::weightsTransposeChansFlipXY(graph, w, wt, prog); }, "weightsOut");
}

TEST_F(ConvErrors, BiasErrorsNameTheOperands) {
  auto acts = input({2, 4, 6, 6}), biases = input({5});
  expectThrowNaming<poputil::poplibs_error>([&] { poplin::addBias(graph, acts, biases, prog); },
                                            "biases");
  expectThrowNaming<poputil::poplibs_error>(
      [&] { poplin::convolutionBiasUpdate(graph, acts, biases, 1.0f, {}, prog); }, "biases");
  expectThrowNaming<poputil::poplibs_error>([&] { poplin::createBiases(graph, input({4}), "b"); },
                                            "rank 1");
}

TEST_F(ConvErrors, AvailableMemoryProportionOutsideRange) {
  for (const char *v : {"0", "1.5", "-0.1", "lots"})
    expectThrowNaming<poplar::invalid_option>(
        [&] {
          poplin::createWeights(graph, params, "w", {{"availableMemoryProportion", v}});
        },
        "availableMemoryProportion");
}

TEST_F(ConvErrors, UnknownOptionSuggestsNearestName) {
  expectThrowNaming<poplar::invalid_option>(
      [&] {
        poplin::createInput(graph, params, "in", {{"availableMemoryProprtion", "0.5"}});
      },
      "did you mean 'availableMemoryProportion'");
  expectThrowNaming<poplar::invalid_option>(
      [&] {
        poplin::createInput(graph, params, "in", {{"pass", "TRAINING_FW"}});
      },
      "TRAINING_FWD");
  expectThrowNaming<poplar::invalid_option>(
      [&] {
        poplin::createInput(graph, params, "in", {{"partialsType", "double"}});
      },
      "partialsType");
}

TEST_F(ConvErrors, ErrorsDeriveFromPoplarError) {
  auto in = input({2, 3, 6, 6}), w = input({1, 5, 4, 3, 3});
  EXPECT_THROW(poplin::convolution(graph, in, w, params, false, prog), poplar::poplar_error);
}

} // namespace
