// GfloatCast's configuration structs: checking a format and deriving its types and kind,
// checking a rounding mode, the two cast directions, option parsing and GfloatCast's
// constructors. The graph operations are in GfloatCastOps.cpp.
#include <popfloat/experimental/CastToGfloat.hpp>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>

#include <poputil/OptionParsing.hpp>

namespace popfloat {
namespace experimental {

namespace {

[[noreturn]] void fail(const std::string &where, const std::string &what) {
  throw poputil::poplibs_error("popfloat::experimental::GfloatCast::" + where + ": " + what);
}

std::string typeString(const poplar::Type &t) { return t.toString(); }

/// The facts about a format's values FormatConfig needs (see CastToGfloat.hpp's definitions).
struct FormatFacts {
  bool hasNormals;
  int smallestUlpExp; ///< log2 of the smallest positive value's spacing.
  double maxValue;
};

FormatFacts factsOf(unsigned man, unsigned exp, int bias, bool infsAndNans) {
  unsigned maxExpField = 0;
  if (exp != 0)
    maxExpField = (1u << exp) - 1u - (infsAndNans ? 1u : 0u);
  FormatFacts f;
  f.hasNormals = maxExpField >= 1;
  f.smallestUlpExp = 1 - bias - static_cast<int>(man);
  f.maxValue = f.hasNormals ? std::ldexp(2.0 - std::ldexp(1.0, -static_cast<int>(man)),
                                         static_cast<int>(maxExpField) - bias)
                            : std::ldexp(static_cast<double>((1u << man) - 1u), f.smallestUlpExp);
  return f;
}

/// Whether every value of the format is a float / a half (exponent range and precision).
bool fitsFloat(unsigned man, const FormatFacts &f) {
  return man <= 23 && f.smallestUlpExp >= -149 && f.maxValue <= FLT_MAX;
}
bool fitsHalf(unsigned man, unsigned exp, const FormatFacts &f) {
  return man <= 10 && exp <= 5 && f.smallestUlpExp >= -24 && f.maxValue <= 65504.0;
}

unsigned floatBits(float x) {
  unsigned u;
  std::memcpy(&u, &x, 4);
  return u;
}

/// The storage a SpecType asks for, checked against the format; `what` names the argument.
poplar::Type storageFor(SpecType spec, const GfloatCast::FormatConfig &format,
                        poplar::Type autoType, const char *what) {
  const unsigned bits = 1 + format.getNumExponentBits() + format.getNumMantissaBits();
  switch (spec) {
  case SpecType::AUTO:
    return autoType;
  case SpecType::FP32:
    return poplar::FLOAT;
  case SpecType::FP16:
    return poplar::HALF;
  case SpecType::INT8:
    if (bits > 8)
      fail("GfloatCast", std::string(what) + " INT8 cannot hold a " + std::to_string(bits) +
                             "-bit format (at most 8 bits)");
    return poplar::CHAR;
  case SpecType::INT16:
    if (bits > 16)
      fail("GfloatCast", std::string(what) + " INT16 cannot hold a " + std::to_string(bits) +
                             "-bit format (at most 16 bits)");
    return poplar::SHORT;
  case SpecType::INT32:
    break;
  }
  fail("GfloatCast", std::string(what) + " " + std::to_string(static_cast<unsigned>(spec)) +
                         " is not a storage type (AUTO, FP32, FP16, INT8 or INT16)");
}

} // namespace

// ---- FormatConfig ------------------------------------------------------------------------------

GfloatCast::FormatConfig::FormatConfig(unsigned numMantissaBits_, unsigned numExponentBits_,
                                       int exponentBias_, bool enableDenorms_,
                                       bool enableInfsAndNans_, poplar::Type calculationType_)
    : calculationType(calculationType_), numMantissaBits(numMantissaBits_),
      numExponentBits(numExponentBits_), exponentBias(exponentBias_), enableDenorms(enableDenorms_),
      enableInfsAndNans(enableInfsAndNans_) {
  const std::string where = "FormatConfig";
  const bool half = calculationType == poplar::HALF;
  if (calculationType != poplar::FLOAT && !half)
    fail(where, "calculationType " + typeString(calculationType) + " must be FLOAT or HALF");
  if (numExponentBits > (half ? 5u : 8u))
    fail(where, "numExponentBits " + std::to_string(numExponentBits) + " is more than " +
                    (half ? "half's 5 (calculationType HALF)" : "float's 8"));
  if (numMantissaBits > (half ? 10u : 23u))
    fail(where, "numMantissaBits " + std::to_string(numMantissaBits) + " is more than " +
                    (half ? "half's 10 (calculationType HALF)" : "float's 23"));
  if (exponentBias < -128 || exponentBias > 127)
    fail(where, "exponentBias " + std::to_string(exponentBias) +
                    " must be in [-128, 127] (it is packed in a signed byte)");
  if (enableInfsAndNans && numExponentBits != 0 && numMantissaBits == 0)
    fail(where, "enableInfsAndNans needs numMantissaBits >= 1 (a NaN has a non-zero mantissa)");
  const FormatFacts facts =
      factsOf(numMantissaBits, numExponentBits, exponentBias, enableInfsAndNans);
  if (!facts.hasNormals && !enableDenorms)
    fail(where, "enableDenorms must be true for a format without normal exponents (" +
                    std::to_string(numExponentBits) + " exponent bits" +
                    (enableInfsAndNans ? ", one of them kept for infinities and NaNs" : "") +
                    "): it would hold only zero");
  if (!fitsFloat(numMantissaBits, facts))
    fail(where, "exponentBias " + std::to_string(exponentBias) +
                    " puts the format's values outside float's range");
  const bool halfValues = fitsHalf(numMantissaBits, numExponentBits, facts);
  if (half && !halfValues)
    fail(where, "exponentBias " + std::to_string(exponentBias) +
                    " puts the format's values outside half's range (calculationType HALF)");
  nativeType = halfValues ? poplar::HALF : poplar::FLOAT;
  const unsigned bits = 1 + numExponentBits + numMantissaBits;
  if (!half && numMantissaBits == 10 && numExponentBits == 5 && exponentBias == 15 &&
      enableDenorms && enableInfsAndNans) {
    formatType = FormatType::IEEE_FP16;
    storageType = poplar::HALF;
  } else if (bits <= 8) {
    formatType = numExponentBits != 5 ? FormatType::MIN_NORM_ALIGN_GF8
                 : enableInfsAndNans  ? FormatType::ONE_FIVE_TWO_GF8
                                      : FormatType::MAX_NORM_ALIGN_GF8;
    storageType = poplar::CHAR;
  } else if (halfValues) {
    formatType = FormatType::QUANTISED_FP16;
    storageType = poplar::HALF;
  } else if (bits <= 16) {
    formatType = (numExponentBits == 8 && numMantissaBits == 7 && !enableDenorms)
                     ? FormatType::BFLOAT16
                 : enableDenorms ? FormatType::ENABLE_DENORM_GF16
                                 : FormatType::NO_DENORM_GF16;
    storageType = poplar::SHORT;
  } else {
    formatType = FormatType::QUANTISED_FP32;
    storageType = poplar::FLOAT;
  }
  packedFloatBits = storageType == poplar::CHAR ? 8 : storageType == poplar::FLOAT ? 32 : 16;
  blockFloat = numExponentBits == 0 || (numExponentBits == 1 && !enableInfsAndNans);
  packedFloatParameters = (numMantissaBits & 0xFFu) | ((numExponentBits & 0xFFu) << 8) |
                          ((static_cast<unsigned>(exponentBias) & 0xFFu) << 16) |
                          (enableDenorms ? 1u << 24 : 0u) | (enableInfsAndNans ? 1u << 25 : 0u);
}

namespace {
poplar::Type calculationTypeFor(unsigned man, unsigned exp, int bias, bool infsAndNans,
                                SpecType spec) {
  switch (spec) {
  case SpecType::FP32:
    return poplar::FLOAT;
  case SpecType::FP16:
    return poplar::HALF;
  case SpecType::AUTO:
    if (exp <= 8 && man <= 23 && bias >= -128 && bias <= 127 &&
        fitsHalf(man, exp, factsOf(man, exp, bias, infsAndNans)))
      return poplar::HALF;
    return poplar::FLOAT;
  default:
    break;
  }
  fail("FormatConfig", "specCalculationType " + std::to_string(static_cast<unsigned>(spec)) +
                           " is not a calculation type (FP32, FP16 or AUTO)");
}
} // namespace

GfloatCast::FormatConfig::FormatConfig(unsigned numMantissaBits_, unsigned numExponentBits_,
                                       int exponentBias_, bool enableDenorms_,
                                       bool enableInfsAndNans_, SpecType specCalculationType)
    : FormatConfig(numMantissaBits_, numExponentBits_, exponentBias_, enableDenorms_,
                   enableInfsAndNans_,
                   calculationTypeFor(numMantissaBits_, numExponentBits_, exponentBias_,
                                      enableInfsAndNans_, specCalculationType)) {}

GfloatCast::FormatConfig::FormatConfig(GfloatFormatOptions formatOptions,
                                       poplar::Type calculationType_)
    : FormatConfig(formatOptions.numMantissaBits, formatOptions.numExponentBits,
                   static_cast<int>(formatOptions.numExponentBias), formatOptions.enableDenorms,
                   formatOptions.enableInfsAndNans, calculationType_) {}

GfloatCast::FormatConfig::FormatConfig(const FormatConfig &formatConfig) = default;

void GfloatCast::GfloatFormatOptions::parseGfloatFormatOptions(const poplar::OptionFlags &options) {
  *this = GfloatFormatOptions(); // keys not given keep their defaults
  using H = poputil::OptionHandler;
  poputil::OptionSpec("popfloat::experimental::GfloatCast::GfloatFormatOptions",
                      {{"numMantissaBits", H::createWithUnsigned(numMantissaBits)},
                       {"numExponentBits", H::createWithUnsigned(numExponentBits)},
                       {"numExponentBias", H::createWithUnsigned(numExponentBias)},
                       {"enableDenorms", H::createWithBool(enableDenorms)},
                       {"enableInfsAndNans", H::createWithBool(enableInfsAndNans)}})
      .parse(options);
}

// ---- RoundConfig -------------------------------------------------------------------------------

GfloatCast::RoundConfig::RoundConfig(RoundType roundMode, unsigned numSRBits_,
                                     poplar::Type calculationType, SRDensityType srNoiseDensity_,
                                     float srNoiseOffset_, float srNoiseScale_, float srNoiseMax_,
                                     float srNoiseMin_, float bernoulliProb_)
    : roundModeType(roundMode), numSRBits(numSRBits_), srNoiseDensity(srNoiseDensity_),
      bernoulliProb(bernoulliProb_), srNoiseOffset(srNoiseOffset_), srNoiseScale(srNoiseScale_),
      srNoiseMax(srNoiseMax_), srNoiseMin(srNoiseMin_) {
  const std::string where = "RoundConfig";
  if (static_cast<unsigned>(roundMode) > static_cast<unsigned>(RoundType::SX) ||
      roundMode == RoundType::INV)
    fail(where, "roundMode " + std::to_string(static_cast<unsigned>(roundMode)) +
                    " is not a rounding mode (RZ, RN, RA, RU, RD, SR or SX)");
  if (calculationType != poplar::FLOAT && calculationType != poplar::HALF)
    fail(where, "calculationType " + typeString(calculationType) + " must be FLOAT or HALF");
  if (roundMode == RoundType::SX) {
    const unsigned most = calculationType == poplar::HALF ? 11u : 24u; // significand bits
    if (numSRBits == 0 || numSRBits > most)
      fail(where, "numSRBits " + std::to_string(numSRBits) + " must be in [1, " +
                      std::to_string(most) + "] for calculationType " +
                      typeString(calculationType));
    switch (srNoiseDensity) {
    case SRDensityType::INVALID:
      break;
    case SRDensityType::UNIFORM:
      if (!(srNoiseMin >= 0.0f && srNoiseMin <= 1.0f))
        fail(where, "srNoiseMin " + std::to_string(srNoiseMin) + " must be in [0, 1] (UNIFORM)");
      if (!(srNoiseMax >= srNoiseMin && srNoiseMax <= 1.0f))
        fail(where,
             "srNoiseMax " + std::to_string(srNoiseMax) + " must be in [srNoiseMin, 1] (UNIFORM)");
      break;
    case SRDensityType::BERNOULLI:
      if (!(bernoulliProb >= 0.0f && bernoulliProb <= 1.0f))
        fail(where, "bernoulliProb " + std::to_string(bernoulliProb) + " must be in [0, 1]");
      break;
    case SRDensityType::NORMAL:
    case SRDensityType::TRUNCATED_NORMAL:
    case SRDensityType::LAPLACE:
    case SRDensityType::TRUNCATED_LAPLACE:
    case SRDensityType::LOGISTIC:
    case SRDensityType::TRUNCATED_LOGISTIC:
    case SRDensityType::LOGIT_NORMAL:
    case SRDensityType::TRUNCATED_LOGIT_NORMAL: {
      // Centred densities' noise is added before rounding to nearest, the others' before
      // truncation: their ranges differ.
      const bool centred = srNoiseDensity == SRDensityType::NORMAL ||
                           srNoiseDensity == SRDensityType::TRUNCATED_NORMAL ||
                           srNoiseDensity == SRDensityType::LAPLACE ||
                           srNoiseDensity == SRDensityType::TRUNCATED_LAPLACE;
      const float lo = centred ? -0.5f : 0.0f, hi = centred ? 0.5f : 1.0f;
      const std::string range = centred ? "[-0.5, 0.5]" : "[0, 1]";
      const std::string density = srDensityTypeToString(srNoiseDensity);
      if (!(srNoiseMin >= lo && srNoiseMin <= hi))
        fail(where, "srNoiseMin " + std::to_string(srNoiseMin) + " must be in " + range + " (" +
                        density + ")");
      if (!(srNoiseMax >= srNoiseMin && srNoiseMax <= hi))
        fail(where, "srNoiseMax " + std::to_string(srNoiseMax) + " must be in [srNoiseMin, " +
                        (centred ? "0.5" : "1") + "] (" + density + ")");
      if (!std::isfinite(srNoiseOffset))
        fail(where, "srNoiseOffset " + std::to_string(srNoiseOffset) + " must be finite");
      if (!(srNoiseScale >= 0.0f && std::isfinite(srNoiseScale)))
        fail(where, "srNoiseScale " + std::to_string(srNoiseScale) +
                        " must be finite and not negative (" + density + ")");
      break;
    }
    default:
      fail(where, "srNoiseDensity " + std::to_string(static_cast<unsigned>(srNoiseDensity)) +
                      " is not an SRDensityType");
    }
  }
  noiseParams = {floatBits(srNoiseOffset), floatBits(srNoiseScale), floatBits(srNoiseMax),
                 floatBits(srNoiseMin)};
  densityParam = srNoiseDensity == SRDensityType::BERNOULLI
                     ? static_cast<unsigned>(std::lround(bernoulliProb * 65536.0))
                     : 0u;
  unsigned mask = 0;
  if (roundMode == RoundType::SR)
    mask = 0xFFFFFFFFu;
  else if (roundMode == RoundType::SX)
    mask = numSRBits >= 32 ? 0xFFFFFFFFu : ~((1u << (32 - numSRBits)) - 1u);
  srBitMask = {mask};
  roundingParams = {static_cast<unsigned>(roundMode), numSRBits,
                    static_cast<unsigned>(srNoiseDensity), densityParam};
}

GfloatCast::RoundConfig::RoundConfig(const GfloatCast::RoundConfig &roundCfg) = default;

GfloatCast::RoundConfig::RoundConfig(GfloatCastOptions castOptions, poplar::Type calculationType)
    : RoundConfig(castOptions.roundMode, castOptions.numSRBits, calculationType,
                  castOptions.srNoiseDensity, static_cast<float>(castOptions.srNoiseOffset),
                  static_cast<float>(castOptions.srNoiseScale),
                  static_cast<float>(castOptions.srNoiseMax),
                  static_cast<float>(castOptions.srNoiseMin),
                  static_cast<float>(castOptions.bernoulliProb)) {}

void GfloatCast::GfloatCastOptions::parseGfloatCastOptions(const poplar::OptionFlags &options) {
  *this = GfloatCastOptions(); // keys not given keep their defaults
  using H = poputil::OptionHandler;
  std::map<std::string, RoundType> rounds;
  for (unsigned r = static_cast<unsigned>(RoundType::RZ); r <= static_cast<unsigned>(RoundType::SX);
       ++r)
    rounds[roundTypeToString(static_cast<RoundType>(r))] = static_cast<RoundType>(r);
  std::map<std::string, SRDensityType> densities;
  for (unsigned d = 0; d <= static_cast<unsigned>(SRDensityType::TRUNCATED_LOGIT_NORMAL); ++d)
    densities[srDensityTypeToString(static_cast<SRDensityType>(d))] = static_cast<SRDensityType>(d);
  const double inf = std::numeric_limits<double>::infinity();
  poputil::OptionSpec("popfloat::experimental::GfloatCast::GfloatCastOptions",
                      {{"roundMode", H::createWithEnum(roundMode, rounds)},
                       {"srNoiseDensity", H::createWithEnum(srNoiseDensity, densities)},
                       {"numSRBits", H::createWithUnsigned(numSRBits)},
                       {"srNoiseOffset", H::createWithDouble(srNoiseOffset, -inf, inf)},
                       {"srNoiseScale", H::createWithDouble(srNoiseScale, -inf, inf)},
                       {"srNoiseMax", H::createWithDouble(srNoiseMax, -inf, inf)},
                       {"srNoiseMin", H::createWithDouble(srNoiseMin, -inf, inf)},
                       {"bernoulliProb", H::createWithDouble(bernoulliProb, 0.0, 1.0)},
                       {"enableNanooMode", H::createWithBool(enableNanooMode)}})
      .parse(options);
}

// ---- CastConfig --------------------------------------------------------------------------------

GfloatCast::CastConfig::CastConfig(FormatType floatFormatType_, poplar::Type calculationType_,
                                   poplar::Type storageType_, RoundConfig roundCfg,
                                   bool enableNanooMode_)
    : calculationType(calculationType_), storageType(storageType_), roundConfig(roundCfg),
      enableNanooMode(enableNanooMode_), floatFormatType(floatFormatType_),
      storeAsNative(storageType_ == poplar::FLOAT || storageType_ == poplar::HALF) {
  castParams = {static_cast<unsigned>(floatFormatType), storeAsNative ? 1u : 0u,
                enableNanooMode ? 1u : 0u};
}

GfloatCast::CastConfig GfloatCast::CastConfig::createCastNativeToGF(FormatType formatType,
                                                                    poplar::Type calculationType,
                                                                    poplar::Type storageType,
                                                                    RoundConfig roundCfg,
                                                                    bool enableNanooMode) {
  return CastConfig(formatType, calculationType, storageType, roundCfg, enableNanooMode);
}

GfloatCast::CastConfig GfloatCast::CastConfig::createCastGFToNative(FormatType formatType,
                                                                    poplar::Type calculationType,
                                                                    poplar::Type storageType) {
  if (storageType != poplar::FLOAT && storageType != poplar::HALF)
    fail("CastConfig::createCastGFToNative",
         "storageType " + typeString(storageType) + " must be FLOAT or HALF (a native type)");
  return CastConfig(formatType, calculationType, storageType, RoundConfig(), false);
}

// ---- GfloatCast --------------------------------------------------------------------------------

namespace {
GfloatCast::CastConfig nativeToGFConfig(const GfloatCast::FormatConfig &formatCfg,
                                        const GfloatCast::RoundConfig &roundCfg,
                                        bool enableNanooMode, SpecType GFType) {
  if (formatCfg.getFormatType() == FormatType::INVALID_FORMAT)
    fail("GfloatCast", "formatCfg is a default-constructed FormatConfig (no format)");
  if (roundCfg.getRoundMode() == RoundType::INV)
    fail("GfloatCast", "roundCfg has no rounding mode (roundMode INV)");
  const poplar::Type storage = storageFor(GFType, formatCfg, formatCfg.getStorageType(), "GFType");
  return GfloatCast::CastConfig::createCastNativeToGF(formatCfg.getFormatType(),
                                                      formatCfg.getCalculationType(), storage,
                                                      roundCfg, enableNanooMode);
}

GfloatCast::CastConfig gfToNativeConfig(const GfloatCast::FormatConfig &formatCfg,
                                        SpecType NativeType) {
  if (NativeType != SpecType::AUTO && NativeType != SpecType::FP32 && NativeType != SpecType::FP16)
    fail("GfloatCast", "NativeType " + std::to_string(static_cast<unsigned>(NativeType)) +
                           " is not a native type (AUTO, FP32 or FP16)");
  const poplar::Type native =
      storageFor(NativeType, formatCfg, formatCfg.getNativeType(), "NativeType");
  return GfloatCast::CastConfig::createCastGFToNative(formatCfg.getFormatType(),
                                                      formatCfg.getCalculationType(), native);
}
} // namespace

GfloatCast::GfloatCast(const FormatConfig &formatCfg_, const RoundConfig &roundCfg,
                       const bool enableNanooMode, const SpecType &GFType,
                       const SpecType &NativeType)
    : nativeToGFCastCfg(nativeToGFConfig(formatCfg_, roundCfg, enableNanooMode, GFType)),
      gfToNativeCastCfg(gfToNativeConfig(formatCfg_, NativeType)), formatCfg(formatCfg_) {}

GfloatCast::GfloatCast(const GfloatFormatOptions &formatOtions,
                       const GfloatCastOptions &castOptions, poplar::Type calculationType,
                       const SpecType &GFType, const SpecType &NativeType)
    : GfloatCast(FormatConfig(formatOtions, calculationType),
                 RoundConfig(castOptions, calculationType), castOptions.enableNanooMode, GFType,
                 NativeType) {}

GfloatCast::GfloatCast(const GfloatCast &gfloatCast)
    : nativeToGFCastCfg(gfloatCast.nativeToGFCastCfg),
      gfToNativeCastCfg(gfloatCast.gfToNativeCastCfg), formatCfg(gfloatCast.formatCfg),
      gfParams(gfloatCast.gfParams ? new poplar::Tensor(*gfloatCast.gfParams) : nullptr),
      castOpParamSet(gfloatCast.castOpParamSet) {}

} // namespace experimental
} // namespace popfloat
