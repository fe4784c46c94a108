// GfloatCast's configuration API: what a format derives (calculation, native and storage types,
// kind, packed parameter word), the params tensor, the enumerations' names and their spelling in
// vertex names, option parsing — and every invalid parameter rejected with poputil::poplibs_error
// naming it.
#include "GfloatTestHarness.hpp"

#include <poplar/exceptions.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>
#include <reference/Common.hpp>

using namespace gfloat_test;
using popfloat::experimental::FormatType;
using popfloat::experimental::SpecType;
using popfloat::experimental::SRDensityType;

namespace {

/// Runs f, expecting poputil::poplibs_error whose message contains `culprit`.
template <class F> void expectError(F &&f, const std::string &culprit) {
  try {
    f();
    ADD_FAILURE() << "no poplibs_error naming " << culprit;
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find(culprit), std::string::npos) << e.what();
  }
}

TEST(GfloatFormat, DerivesTypesKindAndPackedWord) {
  const GfloatCast::FormatConfig autoHalf(3, 4, 7, true, false);
  EXPECT_EQ(autoHalf.getCalculationType(), poplar::HALF);
  EXPECT_EQ(autoHalf.getNativeType(), poplar::HALF);
  EXPECT_EQ(autoHalf.getStorageType(), poplar::CHAR);
  EXPECT_EQ(autoHalf.getPackedFloatBits(), 8u);
  EXPECT_TRUE(autoHalf.isPackedFloatFormat());
  EXPECT_FALSE(autoHalf.isBlockFloat());
  EXPECT_EQ(autoHalf.getPackedFloatParameters(), 3u | (4u << 8) | (7u << 16) | (1u << 24));
  const GfloatCast::FormatConfig bf16(7, 8, 127, false, true, SpecType::AUTO);
  EXPECT_EQ(bf16.getCalculationType(), poplar::FLOAT);
  EXPECT_EQ(bf16.getNativeType(), poplar::FLOAT);
  EXPECT_EQ(bf16.getFormatType(), FormatType::BFLOAT16);
  EXPECT_EQ(bf16.getStorageType(), poplar::SHORT);
  const GfloatCast::FormatConfig block(7, 0, -3, true, false, poplar::FLOAT);
  EXPECT_TRUE(block.isBlockFloat());
  EXPECT_EQ(block.getPackedFloatParameters() >> 16 & 0xFFu, 0xFDu);
  GfloatCast::FormatConfig copy(bf16);
  EXPECT_TRUE(copy == copy);
}

TEST(GfloatFormat, OptionsDescribeAFormat) {
  GfloatCast::GfloatFormatOptions defaults;
  EXPECT_EQ(defaults.numMantissaBits, 10u);
  const GfloatCast::GfloatFormatOptions opts(poplar::OptionFlags{
      {"numMantissaBits", "2"}, {"numExponentBits", "5"}, {"enableInfsAndNans", "false"}});
  const GfloatCast::FormatConfig f(opts, poplar::FLOAT);
  EXPECT_EQ(f.getFormatType(), FormatType::MAX_NORM_ALIGN_GF8);
  const GfloatCast::GfloatCastOptions cast(
      poplar::OptionFlags{{"roundMode", "SX"}, {"srNoiseDensity", "UNIFORM"}, {"srNoiseMax", "1"}});
  EXPECT_EQ(cast.roundMode, RoundType::SX);
  EXPECT_EQ(cast.srNoiseDensity, SRDensityType::UNIFORM);
  EXPECT_THROW(GfloatCast::GfloatFormatOptions(poplar::OptionFlags{{"numMantisaBits", "2"}}),
               poplar::invalid_option);
}

TEST(GfloatNames, EnumsSpellAsInVertexNames) {
  EXPECT_EQ(popfloat::experimental::roundTypeToString(RoundType::SX), "SX");
  EXPECT_EQ(popfloat::experimental::formatTypeToString(FormatType::ONE_FIVE_TWO_GF8),
            "ONE_FIVE_TWO_GF8");
  EXPECT_EQ(popfloat::experimental::srDensityTypeToString(SRDensityType::TRUNCATED_LOGIT_NORMAL),
            "TRUNCATED_LOGIT_NORMAL");
  EXPECT_EQ(popfloat::experimental::specTypeToPoplarType(SpecType::INT8), poplar::CHAR);
  EXPECT_EQ(poputil::templateVertex("V", poplar::FLOAT, RoundType::RN),
            "V<float,popfloat::experimental::RoundType::RN>");
  EXPECT_EQ(poputil::templateVertex("V", SRDensityType::LAPLACE, FormatType::BFLOAT16),
            "V<popfloat::experimental::SRDensityType::LAPLACE,"
            "popfloat::experimental::FormatType::BFLOAT16>");
  expectError([] { popfloat::experimental::specTypeToPoplarType(SpecType::AUTO); }, "AUTO");
  expectError([] { popfloat::experimental::roundTypeToString(static_cast<RoundType>(42)); }, "42");
}

TEST(GfloatParams, ParamsTensorHoldsTheUnpackedFormat) {
  Harness h(Layout::SINGLE_TILE);
  GfloatCast cast(GfloatCast::FormatConfig(4, 3, -5, false, true, poplar::FLOAT),
                  GfloatCast::RoundConfig(RoundType::RN, 24, poplar::FLOAT), false);
  cast.createCastOpParamsTensor(h.graph(), h.prog());
  ASSERT_TRUE(cast.isCastOpParamSet());
  h.output("p", cast.getCastOpParams());
  auto packed =
      h.input(poplar::INT, {double(cast.getFormatConfig().getPackedFloatParameters())}, "packed");
  h.output("q", GfloatCast::createCastOpParamsTensor(h.graph(), h.prog(), poplar::FLOAT, packed));
  const auto out = h.run();
  EXPECT_EQ(out.at("p"), (std::vector<double>{4, 3, -5, 2}));
  EXPECT_EQ(out.at("q"), (std::vector<double>{4, 3, -5, 2}));
}

TEST(GfloatErrors, InvalidFormatParametersAreNamed) {
  expectError([] { GfloatCast::FormatConfig(24, 8, 127, true, true, poplar::FLOAT); },
              "numMantissaBits 24");
  expectError([] { GfloatCast::FormatConfig(11, 5, 15, true, true, poplar::HALF); },
              "numMantissaBits 11");
  expectError([] { GfloatCast::FormatConfig(3, 9, 127, true, true, poplar::FLOAT); },
              "numExponentBits 9");
  expectError([] { GfloatCast::FormatConfig(3, 6, 15, true, true, poplar::HALF); },
              "numExponentBits 6");
  expectError([] { GfloatCast::FormatConfig(3, 4, 200, true, true, poplar::FLOAT); },
              "exponentBias 200");
  expectError([] { GfloatCast::FormatConfig(3, 4, -129, true, true, poplar::FLOAT); },
              "exponentBias -129");
  expectError([] { GfloatCast::FormatConfig(3, 7, -10, true, true, poplar::FLOAT); },
              "exponentBias -10");
  expectError([] { GfloatCast::FormatConfig(3, 4, -10, true, true, poplar::HALF); },
              "exponentBias -10");
  expectError([] { GfloatCast::FormatConfig(7, 0, 0, false, false, poplar::FLOAT); },
              "enableDenorms");
  expectError([] { GfloatCast::FormatConfig(0, 5, 15, true, true, poplar::FLOAT); },
              "enableInfsAndNans");
  expectError([] { GfloatCast::FormatConfig(3, 4, 7, true, true, poplar::INT); },
              "calculationType int");
  expectError([] { GfloatCast::FormatConfig(3, 4, 7, true, true, SpecType::INT8); },
              "specCalculationType");
}

TEST(GfloatErrors, InvalidRoundingParametersAreNamed) {
  expectError([] { GfloatCast::RoundConfig(RoundType::INV, 24, poplar::FLOAT); }, "roundMode");
  expectError([] { GfloatCast::RoundConfig(RoundType::SX, 0, poplar::FLOAT); }, "numSRBits 0");
  expectError([] { GfloatCast::RoundConfig(RoundType::SX, 12, poplar::HALF); }, "numSRBits 12");
  expectError(
      [] {
        GfloatCast::RoundConfig(RoundType::SX, 8, poplar::FLOAT, static_cast<SRDensityType>(99));
      },
      "srNoiseDensity 99");
  expectError(
      [] {
        GfloatCast::RoundConfig(RoundType::SX, 8, poplar::FLOAT, SRDensityType::NORMAL, 0, 0.2f,
                                0.7f, -0.5f);
      },
      "srNoiseMax");
  expectError(
      [] {
        GfloatCast::RoundConfig(RoundType::SX, 8, poplar::FLOAT, SRDensityType::LOGISTIC, 0, 0.2f,
                                1.0f, -0.1f);
      },
      "srNoiseMin");
  expectError(
      [] {
        GfloatCast::RoundConfig(RoundType::SX, 8, poplar::FLOAT, SRDensityType::LAPLACE, 0, -1.0f,
                                0.5f, -0.5f);
      },
      "srNoiseScale");
  expectError(
      [] {
        GfloatCast::RoundConfig(RoundType::SX, 8, poplar::FLOAT, SRDensityType::UNIFORM, 0, 0, 0.5f,
                                0.75f);
      },
      "srNoiseMax");
  expectError(
      [] {
        GfloatCast::RoundConfig(RoundType::SX, 8, poplar::FLOAT, SRDensityType::BERNOULLI, 0, 0, 0,
                                0, 1.5f);
      },
      "bernoulliProb");
  const GfloatCast::FormatConfig f16(9, 6, 31, true, true, poplar::FLOAT);
  const GfloatCast::RoundConfig rn(RoundType::RN, 24, poplar::FLOAT);
  expectError([&] { GfloatCast(f16, rn, false, SpecType::INT8); }, "GFType INT8");
  expectError([&] { GfloatCast(f16, rn, false, SpecType::AUTO, SpecType::INT16); }, "NativeType");
  expectError([&] { GfloatCast(f16, GfloatCast::RoundConfig(), false); }, "roundCfg");
}

TEST(GfloatErrors, CastsNameTheTensorAtFault) {
  Harness h(Layout::SINGLE_TILE);
  auto &g = h.graph();
  GfloatCast cast(GfloatCast::FormatConfig(3, 4, 7, true, true, poplar::FLOAT),
                  GfloatCast::RoundConfig(RoundType::RN, 24, poplar::FLOAT), false);
  auto ints = h.input(poplar::INT, {1, 2, 3}, "ints");
  auto floats = h.input(poplar::FLOAT, {1, 2, 3}, "floats");
  expectError([&] { cast.castNativeToGfloat(g, ints, h.prog()); }, "input");
  expectError([&] { cast.castNativeToGfloatInPlace(g, floats, h.prog()); }, "storage type char");
  expectError([&] { cast.castGfloatToNative(g, ints, h.prog()); }, "input");
  expectError(
      [&] {
        GfloatCast::castNativeToGfloat(g, floats, floats, h.prog(), cast.getNativeToGFConfig());
      },
      "param");
  expectError(
      [&] {
        GfloatCast::castNativeToGfloat(g, floats, cast.getCastOpParams(), h.prog(),
                                       GfloatCast::CastConfig());
      },
      "gfCastCfg");
  expectError([&] { GfloatCast::createCastOpParamsTensor(g, h.prog(), poplar::FLOAT, floats); },
              "gfPacked");
  expectError([&] { GfloatCast::createCastOpParamsTensor(g, h.prog(), poplar::INT, 0u); },
              "calculationType");
}

TEST(GfloatCast, EmptyTensorsCastToEmptyTensors) {
  Harness h(Layout::MULTI_TILE);
  auto empty = h.graph().addVariable(poplar::FLOAT, {0, 3}, "empty");
  GfloatCast cast(GfloatCast::FormatConfig(3, 4, 7, true, true, poplar::FLOAT),
                  GfloatCast::RoundConfig(RoundType::SR, 24, poplar::FLOAT), false);
  auto out = cast.castNativeToGfloat(h.graph(), empty, h.prog());
  EXPECT_EQ(out.shape(), (std::vector<std::size_t>{0, 3}));
  EXPECT_EQ(out.elementType(), poplar::CHAR);
  EXPECT_EQ(cast.castGfloatToNative(h.graph(), out, h.prog()).elementType(), poplar::HALF);
  h.run();
}

} // namespace

namespace {

TEST(GfloatCast, ComputeSetFormsAndOptionFlagsGiveTheSameResults) {
  // The same 1/4/3 cast built from option flags and run through the compute-set overloads, and
  // built from configs and run through the program overloads.
  const reference::GfloatFormat f{3, 4, 7, true, true};
  const auto x = reference::roundTo(poplar::HALF, probeValues(f));
  Harness h(Layout::MULTI_TILE);
  auto &g = h.graph();
  auto in = h.input(poplar::HALF, x, "x");
  GfloatCast fromOptions(
      GfloatCast::GfloatFormatOptions(poplar::OptionFlags{
          {"numMantissaBits", "3"}, {"numExponentBits", "4"}, {"numExponentBias", "7"}}),
      GfloatCast::GfloatCastOptions(
          poplar::OptionFlags{{"roundMode", "RN"}, {"enableNanooMode", "false"}}),
      poplar::HALF);
  poplar::ComputeSet paramsCs = g.addComputeSet("params");
  fromOptions.createCastOpParamsTensor(g, paramsCs);
  poplar::ComputeSet castCs = g.addComputeSet("cast");
  poplar::Tensor codes = GfloatCast::castNativeToGfloat(g, in, fromOptions.getCastOpParams(),
                                                        castCs, fromOptions.getNativeToGFConfig());
  poplar::ComputeSet backCs = g.addComputeSet("back");
  poplar::Tensor back = fromOptions.castGfloatToNative(g, codes, backCs);
  h.prog().add(poplar::program::Execute(paramsCs));
  h.prog().add(poplar::program::Execute(castCs));
  h.prog().add(poplar::program::Execute(backCs));
  GfloatCast fromConfigs(formatConfig(f, poplar::HALF),
                         GfloatCast::RoundConfig(RoundType::RN, 24, poplar::HALF), false);
  h.output("codes", codes);
  h.output("back", back);
  h.output("codes2", fromConfigs.castNativeToGfloat(g, in, h.prog()));
  const auto out = h.run();
  EXPECT_EQ(out.at("codes"), out.at("codes2"));
  const auto values = reference::gfloatPositiveValues(f);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double expected = reference::gfloatRound(x[i], f, reference::GfloatRound::RN, false);
    EXPECT_EQ(static_cast<unsigned>(out.at("codes")[i]),
              reference::gfloatEncode(expected, f, values))
        << x[i];
    EXPECT_TRUE(sameValue(out.at("back")[i], reference::gfloatCodeValue(
                                                 reference::gfloatEncode(expected, f, values), f)))
        << x[i];
  }
}

} // namespace
