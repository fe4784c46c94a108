// poplin::fullyConnectedWeightTranspose against reference::fullyConnectedWeightTranspose (a plain
// transpose of each group's channel matrix): FLOAT and HALF, kernel 1 (the fully-connected case)
// and wider 1-d kernels, one tile and spread, 1 and 2 host threads; the result used as the
// weights of convolution(params); and the errors naming params and activations.
#include <gtest/gtest.h>

#include <poplin/Convolution.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Common.hpp>
#include <reference/Convolution.hpp>

#include "LinalgTestSupport.hpp"

using namespace poplin::testing;

namespace {

struct FcCase {
  std::size_t groups, inChans, outChans, kernel;
};

std::vector<double> runTranspose(poplar::Type type, const FcCase &c, const std::vector<double> &w,
                                 Mapping mapping = Mapping::Linear, unsigned hostThreads = 0) {
  LinalgHarness h;
  poplin::ConvParams params(type, 2, {8}, {c.kernel}, c.inChans, c.outChans, c.groups);
  auto fwd = h.input("w", type, {c.groups, c.inChans, c.outChans, c.kernel}, w, mapping);
  auto t = poplin::fullyConnectedWeightTranspose(h.graph(), fwd, params, h.prog(), "fcwt", {});
  EXPECT_EQ(t.shape(), (std::vector<std::size_t>{c.groups, c.outChans, c.inChans, c.kernel}));
  h.output("t", t);
  return h.run(hostThreads).at("t");
}

const FcCase kCases[] = {{1, 5, 3, 1}, {2, 8, 12, 1}, {3, 4, 6, 3}, {1, 1, 7, 1}};

} // namespace

TEST(FullyConnectedWeightTranspose, SwapsTheChannelsOfEveryGroupAndKernelPosition) {
  for (auto type : {poplar::FLOAT, poplar::HALF})
    for (const auto &c : kCases) {
      SCOPED_TRACE(type.toString() + " G" + std::to_string(c.groups) + " IC" +
                   std::to_string(c.inChans) + " OC" + std::to_string(c.outChans) + " K" +
                   std::to_string(c.kernel));
      const auto w = reference::roundTo(
          type, reference::randomValues(c.groups * c.inChans * c.outChans * c.kernel, 61));
      const auto expected =
          reference::fullyConnectedWeightTranspose(c.groups, c.inChans, c.outChans, c.kernel, w);
      for (auto mapping : {Mapping::OneTile, Mapping::Linear})
        EXPECT_EQ(runTranspose(type, c, w, mapping), expected); // a rearrangement: exact
    }
}

TEST(FullyConnectedWeightTranspose, OneAndTwoHostThreadsGiveIdenticalBits) {
  const FcCase c{2, 8, 12, 1};
  for (auto type : {poplar::FLOAT, poplar::HALF}) {
    const auto w = reference::roundTo(type, reference::randomValues(2 * 8 * 12, 62));
    EXPECT_EQ(runTranspose(type, c, w, Mapping::Linear, 1),
              runTranspose(type, c, w, Mapping::Linear, 2));
  }
}

TEST(FullyConnectedWeightTranspose, ResultServesAsTheWeightsOfTheBackwardConvolution) {
  // params is the backward pass's convolution; its weights come from the forward weights.
  const std::size_t G = 2, IC = 3, OC = 4, B = 2, W = 5;
  poplin::ConvParams params(poplar::FLOAT, B, {W}, {1}, IC, OC, G);
  LinalgHarness h;
  const auto fwdW = reference::randomValues(G * IC * OC, 63);
  const auto x = reference::randomValues(B * G * IC * W, 64);
  auto fwd = h.input("w", poplar::FLOAT, {G, IC, OC, 1}, fwdW);
  auto in = h.input("x", poplar::FLOAT, {B, G * IC, W}, x);
  auto weights =
      poplin::fullyConnectedWeightTranspose(h.graph(), fwd, params, h.prog(), "fcwt", {});
  h.output("y", poplin::convolution(h.graph(), in, weights, params, false, h.prog()));
  const auto out = h.run();
  const auto t = reference::fullyConnectedWeightTranspose(G, IC, OC, 1, fwdW);
  const auto expected = reference::referenceForward(params, std::vector<float>(x.begin(), x.end()),
                                                    std::vector<float>(t.begin(), t.end()));
  EXPECT_LT(reference::relativeError(out.at("y"), expected), 1e-5);
}

TEST(FullyConnectedWeightTranspose, BadParamsOrActivationsThrowNamingThem) {
  LinalgHarness h;
  auto w = h.graph().addVariable(poplar::FLOAT, {1, 5, 3, 1}, "w");
  h.graph().setTileMapping(w, 0);
  auto message = [&](const poplin::ConvParams &p, const poplar::Tensor &t) -> std::string {
    try {
      poplin::fullyConnectedWeightTranspose(h.graph(), t, p, h.prog(), "fcwt", {});
    } catch (const poputil::poplibs_error &e) {
      return e.what();
    }
    return "(no poplibs_error)";
  };
  const poplin::ConvParams twoD(poplar::FLOAT, 2, {4, 4}, {1, 1}, 5, 3, 1);
  EXPECT_NE(message(twoD, w).find("params must describe a 1-d convolution"), std::string::npos);
  const poplin::ConvParams swapped(poplar::FLOAT, 2, {4}, {1}, 3, 5, 1);
  EXPECT_NE(message(swapped, w).find("activations (the forward weights) must have shape [1,3,5,1]"),
            std::string::npos);
  const poplin::ConvParams half(poplar::HALF, 2, {4}, {1}, 5, 3, 1);
  EXPECT_NE(message(half, w).find("activations have type float but params.inputType is half"),
            std::string::npos);
}
