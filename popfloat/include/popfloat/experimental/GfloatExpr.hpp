// The enumerations that describe a gfloat ("generic float") format and how values are cast to it:
// rounding modes, format kinds, stochastic-rounding noise densities and storage choices. Used by
// CastToGfloat.hpp; GfloatExprUtil.hpp spells them as strings and in vertex names.
#pragma once

namespace popfloat {
namespace experimental {

/// How a value between two neighbouring gfloat values y1 < x < y2 is rounded.
enum class RoundType {
  INV, ///< Not a rounding mode (the default of GfloatCastOptions; rejected by the casts).
  RZ,  ///< Towards zero (truncation of the magnitude).
  RN,  ///< To nearest, ties to the value with an even mantissa.
  RA,  ///< To nearest, ties away from zero.
  RU,  ///< Towards +infinity (ceiling).
  RD,  ///< Towards -infinity (floor).
  SR,  ///< Stochastic: up with probability (x - y1) / (y2 - y1), from 32 random bits.
  SX   ///< Stochastic with numSRBits random bits and a chosen noise density.
};

/// What kind of format a FormatConfig describes; decides how the format is stored.
enum class FormatType {
  INVALID_FORMAT,     ///< Not a format.
  IEEE_FP16,          ///< Exactly IEEE half, computed from float with a non-native rounding.
  QUANTISED_FP32,     ///< Any format whose values are kept in float.
  QUANTISED_FP16,     ///< Any format whose values are kept in half.
  MIN_NORM_ALIGN_GF8, ///< An 8-bit format other than 1/5/2 (packed in a CHAR).
  ONE_FIVE_TWO_GF8,   ///< 1/5/2 with infinities and NaNs (packed in a CHAR).
  MAX_NORM_ALIGN_GF8, ///< 1/5/2 without infinities and NaNs (packed in a CHAR).
  BFLOAT16,           ///< 1/8/7 without denormals (packed in a SHORT).
  NO_DENORM_GF16,     ///< Another 16-bit format without denormals (packed in a SHORT).
  ENABLE_DENORM_GF16  ///< Another 16-bit format with denormals (packed in a SHORT).
};

/// The distribution of the noise added before truncation in SX stochastic rounding.
enum class SRDensityType {
  INVALID,               ///< No density: numSRBits uniform random bits (plain SR with fewer bits).
  UNIFORM,               ///< Uniform in [srNoiseMin, srNoiseMax].
  NORMAL,                ///< Normal (offset, scale), clipped to [min, max].
  TRUNCATED_NORMAL,      ///< Normal (offset, scale), resampled into [min, max].
  BERNOULLI,             ///< Round down with probability bernoulliProb, whatever x is.
  LOGISTIC,              ///< Logistic (offset, scale), clipped.
  TRUNCATED_LOGISTIC,    ///< Logistic, resampled into [min, max].
  LAPLACE,               ///< Laplace (offset, scale), clipped.
  TRUNCATED_LAPLACE,     ///< Laplace, resampled into [min, max].
  LOGIT_NORMAL,          ///< Logit-normal, clipped.
  TRUNCATED_LOGIT_NORMAL ///< Logit-normal from a truncated normal.
};

/// A choice of type: for a calculation, for storing a cast's output, or AUTO (the smallest fit).
enum class SpecType {
  FP32,  ///< poplar::FLOAT
  FP16,  ///< poplar::HALF
  INT8,  ///< poplar::CHAR (a packed 8-bit format)
  INT16, ///< poplar::SHORT (a packed 16-bit format)
  INT32, ///< poplar::INT
  AUTO   ///< The smallest type the format fits.
};

} // namespace experimental
} // namespace popfloat
