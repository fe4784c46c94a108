// Emulation of custom floating-point formats ("gfloat") on top of float and half: a format is a
// sign bit, numExponentBits exponent bits with a bias, numMantissaBits fraction bits, optional
// denormals (gradual underflow) and optional infinities/NaNs. castNativeToGfloat rounds a float
// or half tensor to the format's values (in any of RoundType's modes, stochastic ones included)
// and either keeps them as float/half or packs formats of at most 16 bits into CHAR/SHORT codes;
// castGfloatToNative turns such codes back into float/half. Like PopLibs' popfloat this API is
// experimental.
//
// Tessera's definitions (where PopLibs leaves the details to its implementation):
//  - A code is right-aligned in its CHAR/SHORT: sign at bit (numExponentBits + numMantissaBits),
//    then the exponent field, then the mantissa field. Exponent field e >= 1 holds
//    (1 + m / 2^M) * 2^(e - bias); e == 0 holds (m / 2^M) * 2^(1 - bias) with denormals and zero
//    without; with infinities/NaNs the all-ones exponent holds infinity (m == 0) and NaN.
//  - Rounding picks between the neighbours y1 <= |x| < y2 of the magnitude; without denormals the
//    neighbours of a magnitude below the smallest normal are 0 and that normal, and RN's tie
//    goes to 0. Signs are kept (a negative value rounding to zero gives -0).
//  - A finite result beyond the largest value becomes a quiet NaN when enableNanooMode is set and
//    the format has NaNs, else the largest value of its sign. Input infinities and NaNs are kept
//    in float/half outputs; packed without infinities/NaNs they become the largest value.
//  - Stochastic rounding draws its bits from poprand's Philox generator keyed by the graph's
//    poprand seed state (poprand::setSeed sets it; casts do not advance it) and the element's
//    row-major index, so results do not depend on tile mapping or host thread count. With
//    frac = (|x| - y1) / (y2 - y1): SR goes up iff frac's top 32 bits plus a 32-bit random word
//    carry; SX with density INVALID does the same with numSRBits bits; UNIFORM goes up iff
//    frac + u >= 1, u uniform in [srNoiseMin, srNoiseMax]; BERNOULLI goes down with probability
//    bernoulliProb; the other densities draw a sample n (clipped to [srNoiseMin, srNoiseMax], or
//    for the TRUNCATED_ ones redrawn up to 8 times, then uniform in the range) and go up iff
//    frac + n >= 0.5 (NORMAL, LAPLACE: noise in [-0.5, 0.5]) or >= 1 (LOGISTIC, LOGIT_NORMAL:
//    noise in [0, 1]). srNoiseOffset and srNoiseScale are the draw's location and scale (for
//    LOGIT_NORMAL, of the normal whose logistic is taken).
//  - The calculation type bounds the formats a cast accepts (HALF: the format's values must all
//    be halves) and picks the native type; the rounding itself is exact whatever it is.
//  - Tiles keep no float subnormals (Tessera's tile float mode, as the IPU): a subnormal FLOAT
//    input counts as a zero, and a value below float's smallest normal stored as FLOAT becomes
//    a zero of its sign (packed codes keep it).
//  - The params tensor (createCastOpParamsTensor) is an INT tensor of 4 elements on tile 0:
//    numMantissaBits, numExponentBits, exponentBias and the flags (bit 0 denormals, bit 1
//    infinities/NaNs), unpacked from getPackedFloatParameters()'s word: mantissa bits in bits
//    0-7, exponent bits in 8-15, the bias as a signed byte in 16-23, denormals bit 24 and
//    infinities/NaNs bit 25.
#pragma once

#include <functional>
#include <memory>
#include <tuple>
#include <vector>

#include <popfloat/experimental/GfloatExpr.hpp>
#include <popfloat/experimental/GfloatExprUtil.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Type.hpp>
#include <poputil/exceptions.hpp>

namespace popfloat {
namespace experimental {

/// A cast engine for one gfloat format: its FormatConfig, the CastConfigs of both directions and
/// (once created) the params tensor the cast vertices read.
class GfloatCast {
public:
  /// A format as option flags give it ("numMantissaBits", "numExponentBits", "numExponentBias",
  /// "enableDenorms", "enableInfsAndNans"); defaults describe IEEE half.
  struct GfloatFormatOptions {
    unsigned numMantissaBits;
    unsigned numExponentBits;
    unsigned numExponentBias;
    bool enableDenorms;
    bool enableInfsAndNans;

    /// Reads the keys above; an unknown key or a malformed value throws poputil::poplibs_error.
    void parseGfloatFormatOptions(const poplar::OptionFlags &options);

    GfloatFormatOptions(const poplar::OptionFlags &options) { parseGfloatFormatOptions(options); }

    GfloatFormatOptions() {
      numMantissaBits = 10;
      numExponentBits = 5;
      numExponentBias = 15;
      enableDenorms = true;
      enableInfsAndNans = true;
    }
  };

  /// A checked format and what follows from it: the type it is computed in, the smallest native
  /// type holding its values, how it is stored (CHAR/SHORT packed, or HALF/FLOAT) and its kind.
  /// The constructors throw poputil::poplibs_error naming the parameter that does not fit.
  struct FormatConfig {
    FormatConfig() = default;

    /// specCalculationType: FP32, FP16 (the format's values must all be halves) or AUTO (HALF
    /// when they are, else FLOAT).
    FormatConfig(unsigned numMantissaBits, unsigned numExponentBits, int exponentBias,
                 bool enableDenorms, bool enableInfsAndNans,
                 popfloat::experimental::SpecType specCalculationType =
                     popfloat::experimental::SpecType::AUTO);

    FormatConfig(GfloatFormatOptions formatOptions, poplar::Type calculationType);

    /// calculationType: FLOAT or HALF.
    FormatConfig(unsigned numMantissaBits, unsigned numExponentBits, int exponentBias,
                 bool enableDenorms, bool enableInfsAndNans, poplar::Type calculationType);

    FormatConfig(const FormatConfig &formatConfig);

    poplar::Type getCalculationType() const { return calculationType; }
    /// HALF when every value of the format is a half, else FLOAT.
    poplar::Type getNativeType() const { return nativeType; }
    /// CHAR (formats of at most 8 bits), SHORT (16-bit formats that are not halves), else the
    /// native type.
    poplar::Type getStorageType() const { return storageType; }

    popfloat::experimental::FormatType getFormatType() const { return formatType; }

    unsigned getNumMantissaBits() const { return numMantissaBits; }
    unsigned getNumExponentBits() const { return numExponentBits; }
    int getExponentBias() const { return exponentBias; }
    bool isDenormEnabled() const { return enableDenorms; }
    bool infAndNansEnabled() const { return enableInfsAndNans; }
    /// Whether the format is stored in packed codes (CHAR or SHORT).
    bool isPackedFloatFormat() const {
      return (formatType != popfloat::experimental::FormatType::QUANTISED_FP16) &&
             (formatType != popfloat::experimental::FormatType::QUANTISED_FP32) &&
             (formatType != popfloat::experimental::FormatType::IEEE_FP16);
    };

    /// Bits of the storage type: 8, 16 or 32.
    unsigned getPackedFloatBits() const { return packedFloatBits; };
    /// A format with no exponent (or one exponent bit and no infinities/NaNs): an integer scaled
    /// by a fixed power of two.
    bool isBlockFloat() const { return blockFloat; };

    /// The parameters in one word (layout at the top of this file).
    unsigned getPackedFloatParameters() const { return packedFloatParameters; };

    bool operator==(FormatConfig &other) const {
      const auto numMantissaBits_ = other.getNumMantissaBits();
      const auto numExponentBits_ = other.getNumExponentBits();
      const auto exponentBias_ = other.getExponentBias();
      const auto enableDenorms_ = other.isDenormEnabled();
      const auto enableInfsAndNans_ = other.infAndNansEnabled();
      const auto calculationType_ = other.getCalculationType();
      return std::tie(numMantissaBits, numExponentBits, exponentBias, enableDenorms,
                      enableInfsAndNans, calculationType) ==
             std::tie(numMantissaBits_, numExponentBits_, exponentBias_, enableDenorms_,
                      enableInfsAndNans_, calculationType_);
    }

  private:
    poplar::Type calculationType = poplar::FLOAT;
    unsigned numMantissaBits = 0;
    unsigned numExponentBits = 0;
    int exponentBias = 0;
    bool enableDenorms = false;
    bool enableInfsAndNans = false;
    poplar::Type nativeType = poplar::FLOAT;
    poplar::Type storageType = poplar::FLOAT;
    popfloat::experimental::FormatType formatType =
        popfloat::experimental::FormatType::INVALID_FORMAT;
    unsigned packedFloatParameters = 0;
    bool blockFloat = false;
    unsigned packedFloatBits = 0;
  };

  /// Rounding as option flags give it ("roundMode", "srNoiseDensity", "numSRBits",
  /// "srNoiseOffset", "srNoiseScale", "srNoiseMax", "srNoiseMin", "bernoulliProb",
  /// "enableNanooMode"); enumerations by their names ("RN", "UNIFORM").
  struct GfloatCastOptions {
    popfloat::experimental::RoundType roundMode;
    popfloat::experimental::SRDensityType srNoiseDensity;
    unsigned numSRBits;
    double srNoiseOffset;
    double srNoiseScale;
    double srNoiseMax;
    double srNoiseMin;
    double bernoulliProb;
    bool enableNanooMode;

    void parseGfloatCastOptions(const poplar::OptionFlags &options);

    GfloatCastOptions(const poplar::OptionFlags &options) { parseGfloatCastOptions(options); }

    GfloatCastOptions() {
      roundMode = popfloat::experimental::RoundType::INV;
      srNoiseDensity = popfloat::experimental::SRDensityType::INVALID;
      numSRBits = 24;
      srNoiseOffset = 0.0;
      srNoiseScale = 0.0;
      srNoiseMax = 0.0;
      srNoiseMin = 0.0;
      bernoulliProb = 0.0;
      enableNanooMode = true;
    }
  };

  /// A checked rounding mode for castNativeToGfloat. SX takes numSRBits (1 to the calculation
  /// type's significand bits: 24 for FLOAT, 11 for HALF) and a density; UNIFORM noise lies in
  /// [srNoiseMin, srNoiseMax] within [0, 1] (as for LOGISTIC and LOGIT_NORMAL; within
  /// [-0.5, 0.5] for NORMAL and LAPLACE, srNoiseScale >= 0); BERNOULLI rounds down with
  /// probability bernoulliProb in [0, 1]. Errors throw poputil::poplibs_error naming the
  /// parameter.
  struct RoundConfig {
    RoundConfig() = default;

    RoundConfig(popfloat::experimental::RoundType roundMode, unsigned numSRBits,
                poplar::Type calculationType,
                popfloat::experimental::SRDensityType srNoiseDensity =
                    popfloat::experimental::SRDensityType::INVALID,
                float srNoiseOffset = 0.0, float srNoiseScale = 0.0, float srNoiseMax = 0.0,
                float srNoiseMin = 0.0, float bernoulliProb = 0.0);

    RoundConfig(const GfloatCast::RoundConfig &roundCfg);

    RoundConfig(GfloatCastOptions castOptions, poplar::Type calculationType);

    popfloat::experimental::RoundType getRoundMode() const { return roundModeType; }

    unsigned getNumSRBits() const { return numSRBits; }

    popfloat::experimental::SRDensityType getSRNoiseDensity() const { return srNoiseDensity; }
    /// {roundMode, numSRBits, srNoiseDensity, densityParam}.
    std::vector<unsigned> getRoundingParams() const { return roundingParams; }
    /// The bit patterns of the floats {offset, scale, max, min}.
    std::vector<unsigned> getNoiseParams() const { return noiseParams; }
    /// BERNOULLI: bernoulliProb (of rounding down) scaled to 2^16; otherwise 0.
    unsigned getDensityParam() const { return densityParam; }

    float getBernoulliProbability() const { return bernoulliProb; }

    float getSRNoiseOffset() const { return srNoiseOffset; }
    float getSRNoiseScale() const { return srNoiseScale; }
    float getSRNoiseMax() const { return srNoiseMax; }
    float getSRNoiseMin() const { return srNoiseMin; }

    /// The mask of the random bits a stochastic mode uses, one 32-bit word.
    std::vector<unsigned> getSRBitMask() const { return srBitMask; }

  private:
    popfloat::experimental::RoundType roundModeType = popfloat::experimental::RoundType::INV;
    unsigned numSRBits = 0;
    popfloat::experimental::SRDensityType srNoiseDensity =
        popfloat::experimental::SRDensityType::INVALID;
    float bernoulliProb = 0.0f;
    float srNoiseOffset = 0.0f;
    float srNoiseScale = 0.0f;
    float srNoiseMax = 0.0f;
    float srNoiseMin = 0.0f;
    std::vector<unsigned> noiseParams;
    unsigned densityParam = 0;
    std::vector<unsigned> srBitMask;
    std::vector<unsigned> roundingParams;
  };

  /// One direction of a cast: to the gfloat format (rounding, overflow mode, storage type) or
  /// from its storage back to a native type.
  struct CastConfig {
    CastConfig() = default;

    /// Native float/half -> gfloat stored as storageType (FLOAT, HALF, or CHAR/SHORT codes).
    static CastConfig createCastNativeToGF(popfloat::experimental::FormatType formatType,
                                           poplar::Type calculationType, poplar::Type storageType,
                                           RoundConfig roundCfg, bool enableNanooMode);

    /// gfloat held as storage -> native storageType (FLOAT or HALF).
    static CastConfig createCastGFToNative(popfloat::experimental::FormatType formatType,
                                           poplar::Type calculationType, poplar::Type storageType);

    popfloat::experimental::RoundType getRoundMode() const { return roundConfig.getRoundMode(); }
    unsigned getNumSRBits() const { return roundConfig.getNumSRBits(); }
    popfloat::experimental::SRDensityType getSRNoiseDensity() const {
      return roundConfig.getSRNoiseDensity();
    }
    std::vector<unsigned> getNoiseParams() const { return roundConfig.getNoiseParams(); }
    unsigned getDensityParam() const { return roundConfig.getDensityParam(); }
    float getBernoulliProbability() const { return roundConfig.getBernoulliProbability(); }
    float getSRNoiseOffset() const { return roundConfig.getSRNoiseOffset(); }
    float getSRNoiseScale() const { return roundConfig.getSRNoiseScale(); }
    float getSRNoiseMax() const { return roundConfig.getSRNoiseMax(); }
    float getSRNoiseMin() const { return roundConfig.getSRNoiseMin(); }
    std::vector<unsigned> getSRBitMask() const { return roundConfig.getSRBitMask(); }
    bool isNanooModeEnabled() const { return enableNanooMode; }
    /// {formatType, storage is native, enableNanooMode}.
    std::vector<unsigned> getCastParams() const { return castParams; }
    poplar::Type getCalculationType() const { return calculationType; }
    poplar::Type getStorageType() const { return storageType; }
    /// Whether a tensor of inType can be cast in place (it is already of the storage type).
    bool inPlaceOp(poplar::Type inType) const { return (inType == storageType); }
    popfloat::experimental::FormatType getFormatType() const { return floatFormatType; }
    /// True when the storage type is FLOAT or HALF (not packed codes).
    bool getStoreAsNative() const { return storeAsNative; }
    std::vector<unsigned> getRoundingParams() const { return roundConfig.getRoundingParams(); }

  private:
    CastConfig(popfloat::experimental::FormatType floatFormatType, poplar::Type calculationType,
               poplar::Type storageType, RoundConfig roundCfg, bool enableNanooMode);

    poplar::Type calculationType = poplar::FLOAT;
    poplar::Type storageType = poplar::FLOAT;
    RoundConfig roundConfig;
    bool enableNanooMode = false;
    popfloat::experimental::FormatType floatFormatType =
        popfloat::experimental::FormatType::INVALID_FORMAT;
    bool storeAsNative = true;
    std::vector<unsigned> castParams;
  };

  /// GFType picks the storage of castNativeToGfloat's output (AUTO: the format's storage type;
  /// FP32/FP16: float/half values; INT8/INT16: packed codes, the format must fit). NativeType
  /// picks castGfloatToNative's output (AUTO: the format's native type; FP32; FP16).
  GfloatCast(
      const FormatConfig &formatCfg, const RoundConfig &roundCfg, const bool enableNanooMode,
      const popfloat::experimental::SpecType &GFType = popfloat::experimental::SpecType::AUTO,
      const popfloat::experimental::SpecType &NativeType = popfloat::experimental::SpecType::AUTO);

  GfloatCast(
      const GfloatFormatOptions &formatOtions, const GfloatCastOptions &castOptions,
      poplar::Type calculationType,
      const popfloat::experimental::SpecType &GFType = popfloat::experimental::SpecType::AUTO,
      const popfloat::experimental::SpecType &NativeType = popfloat::experimental::SpecType::AUTO);

  GfloatCast(const GfloatCast &gfloatCast);

  /// A new params tensor (see the top of this file) filled from the packed word `gfPacked` by a
  /// vertex added to `cs`.
  static poplar::Tensor createCastOpParamsTensor(poplar::Graph &graph, const poplar::ComputeSet &cs,
                                                 poplar::Type calculationType,
                                                 const unsigned gfPacked,
                                                 const poplar::DebugContext &debugContext = {});

  /// As above, the packed word read from `gfPacked` (one INT or UNSIGNED_INT element) at run
  /// time.
  static poplar::Tensor createCastOpParamsTensor(poplar::Graph &graph, const poplar::ComputeSet &cs,
                                                 poplar::Type calculationType,
                                                 poplar::Tensor gfPacked,
                                                 const poplar::DebugContext &debugContext = {});

  /// As above, in a compute set appended to `prog`.
  static poplar::Tensor createCastOpParamsTensor(poplar::Graph &graph,
                                                 poplar::program::Sequence &prog,
                                                 poplar::Type calculationType,
                                                 const unsigned gfStruct,
                                                 const poplar::DebugContext &debugContext = {});

  static poplar::Tensor createCastOpParamsTensor(poplar::Graph &graph,
                                                 poplar::program::Sequence &prog,
                                                 poplar::Type calculationType,
                                                 poplar::Tensor gfStruct,
                                                 const poplar::DebugContext &debugContext = {});

  /// Creates this cast's own params tensor (getCastOpParams) from its format.
  void createCastOpParamsTensor(poplar::Graph &graph, poplar::program::Sequence &prog,
                                const poplar::DebugContext &debugContext = {});

  void createCastOpParamsTensor(poplar::Graph &graph, const poplar::ComputeSet &cs);

  /// A new tensor of the storage type, `input` (FLOAT or HALF) rounded to the format, laid out
  /// like `input`.
  static poplar::Tensor castNativeToGfloat(poplar::Graph &graph, poplar::Tensor input,
                                           const poplar::Tensor &param,
                                           poplar::program::Sequence &prog,
                                           const CastConfig &gfCastCfg,
                                           const poplar::DebugContext &debugContext = {});

  static poplar::Tensor castNativeToGfloat(poplar::Graph &graph, poplar::Tensor input,
                                           const poplar::Tensor &param,
                                           const poplar::ComputeSet &cs,
                                           const CastConfig &gfCastCfg,
                                           const poplar::DebugContext &debugContext = {});

  /// With this cast's params tensor (created on first use) and native-to-gfloat config.
  poplar::Tensor castNativeToGfloat(poplar::Graph &graph, poplar::Tensor input,
                                    poplar::program::Sequence &prog,
                                    const poplar::DebugContext &debugContext = {});

  /// Rounds `input` in place; its type must be the storage type (inPlaceOp).
  static void castNativeToGfloatInPlace(poplar::Graph &graph, poplar::Tensor input,
                                        const poplar::Tensor &param,
                                        poplar::program::Sequence &prog,
                                        const CastConfig &gfCastCfg,
                                        const poplar::DebugContext &debugContext = {});

  void castNativeToGfloatInPlace(poplar::Graph &graph, poplar::Tensor input,
                                 poplar::program::Sequence &prog,
                                 const poplar::DebugContext &debugContext = {});

  static void castNativeToGfloatInPlace(poplar::Graph &graph, poplar::Tensor input,
                                        const poplar::Tensor &param, const poplar::ComputeSet &cs,
                                        const CastConfig &gfCastCfg,
                                        const poplar::DebugContext &debugContext = {});

  void castNativeToGfloatInPlace(poplar::Graph &graph, poplar::Tensor input,
                                 const poplar::ComputeSet &cs);

  /// A new FLOAT/HALF tensor (the config's storage type) with the values of `input`, gfloat
  /// values held as CHAR/SHORT codes or as float/half.
  static poplar::Tensor castGfloatToNative(poplar::Graph &graph, poplar::Tensor input,
                                           const poplar::Tensor &param,
                                           poplar::program::Sequence &prog,
                                           const CastConfig &gfCastCfg,
                                           const poplar::DebugContext &debugContext = {});

  poplar::Tensor castGfloatToNative(poplar::Graph &graph, poplar::Tensor input,
                                    poplar::program::Sequence &prog,
                                    const poplar::DebugContext &debugContext = {});

  static poplar::Tensor castGfloatToNative(poplar::Graph &graph, poplar::Tensor input,
                                           const poplar::Tensor &param,
                                           const poplar::ComputeSet &cs,
                                           const CastConfig &gfCastCfg,
                                           const poplar::DebugContext &debugContext = {});

  poplar::Tensor castGfloatToNative(poplar::Graph &graph, poplar::Tensor input,
                                    const poplar::ComputeSet &cs);

  poplar::Type getGFStorageType() const { return nativeToGFCastCfg.getStorageType(); }
  poplar::Type getCalculationType() const { return nativeToGFCastCfg.getCalculationType(); }
  poplar::Type getNativeStorageType() const { return gfToNativeCastCfg.getStorageType(); }
  FormatConfig getFormatConfig() const { return formatCfg; }
  CastConfig getNativeToGFConfig() const { return nativeToGFCastCfg; }
  CastConfig getGFToNativeConfig() const { return gfToNativeCastCfg; }
  bool getStoreAsNative() const { return nativeToGFCastCfg.getStoreAsNative(); }
  /// The params tensor; only after createCastOpParamsTensor or setGfloatCastParameters.
  poplar::Tensor getCastOpParams() const { return *gfParams; }
  bool isCastOpParamSet() const { return castOpParamSet; }
  /// Takes ownership of `gfParams_` as this cast's params tensor.
  void setGfloatCastParameters(poplar::Tensor *gfParams_) { gfParams.reset(gfParams_); }
  bool isNanooModeEnabled() const { return nativeToGFCastCfg.isNanooModeEnabled(); }
  std::vector<unsigned> getSRBitMask() const { return nativeToGFCastCfg.getSRBitMask(); }
  popfloat::experimental::RoundType getRoundMode() const {
    return nativeToGFCastCfg.getRoundMode();
  }
  bool inPlaceOp(poplar::Type outType) const { return nativeToGFCastCfg.inPlaceOp(outType); }
  std::vector<unsigned> getRoundingParams() const { return nativeToGFCastCfg.getRoundingParams(); }

protected:
  CastConfig nativeToGFCastCfg;
  CastConfig gfToNativeCastCfg;
  FormatConfig formatCfg;
  std::unique_ptr<poplar::Tensor> gfParams;
  bool castOpParamSet = false;
};

} // namespace experimental
} // namespace popfloat
