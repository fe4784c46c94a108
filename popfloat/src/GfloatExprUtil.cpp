#include <popfloat/experimental/GfloatExprUtil.hpp>

#include <poputil/exceptions.hpp>

namespace popfloat {
namespace experimental {

namespace {
// Tables indexed by the enumerators' values; the static_asserts keep them as long as the enums.
constexpr const char *kRoundNames[] = {"INV", "RZ", "RN", "RA", "RU", "RD", "SR", "SX"};
static_assert(sizeof(kRoundNames) / sizeof(kRoundNames[0]) ==
              static_cast<unsigned>(RoundType::SX) + 1);
constexpr const char *kFormatNames[] = {
    "INVALID_FORMAT",     "IEEE_FP16",         "QUANTISED_FP32",     "QUANTISED_FP16",
    "MIN_NORM_ALIGN_GF8", "ONE_FIVE_TWO_GF8",  "MAX_NORM_ALIGN_GF8", "BFLOAT16",
    "NO_DENORM_GF16",     "ENABLE_DENORM_GF16"};
static_assert(sizeof(kFormatNames) / sizeof(kFormatNames[0]) ==
              static_cast<unsigned>(FormatType::ENABLE_DENORM_GF16) + 1);
constexpr const char *kDensityNames[] = {"INVALID",
                                         "UNIFORM",
                                         "NORMAL",
                                         "TRUNCATED_NORMAL",
                                         "BERNOULLI",
                                         "LOGISTIC",
                                         "TRUNCATED_LOGISTIC",
                                         "LAPLACE",
                                         "TRUNCATED_LAPLACE",
                                         "LOGIT_NORMAL",
                                         "TRUNCATED_LOGIT_NORMAL"};
static_assert(sizeof(kDensityNames) / sizeof(kDensityNames[0]) ==
              static_cast<unsigned>(SRDensityType::TRUNCATED_LOGIT_NORMAL) + 1);

template <class E, std::size_t N>
std::string nameOf(E value, const char *const (&names)[N], const char *what) {
  const auto index = static_cast<unsigned>(value);
  if (index >= N)
    throw poputil::poplibs_error(std::string("popfloat::experimental: ") + what + " " +
                                 std::to_string(index) + " is not an enumerator");
  return names[index];
}
} // namespace

std::string roundTypeToString(RoundType rmode) { return nameOf(rmode, kRoundNames, "RoundType"); }

std::string formatTypeToString(FormatType fmt) { return nameOf(fmt, kFormatNames, "FormatType"); }

std::string srDensityTypeToString(SRDensityType dist) {
  return nameOf(dist, kDensityNames, "SRDensityType");
}

poplar::Type specTypeToPoplarType(SpecType specType) {
  switch (specType) {
  case SpecType::FP32:
    return poplar::FLOAT;
  case SpecType::FP16:
    return poplar::HALF;
  case SpecType::INT8:
    return poplar::CHAR;
  case SpecType::INT16:
    return poplar::SHORT;
  case SpecType::INT32:
    return poplar::INT;
  case SpecType::AUTO:
    break;
  }
  throw poputil::poplibs_error("popfloat::experimental::specTypeToPoplarType: specType AUTO (or " +
                               std::to_string(static_cast<unsigned>(specType)) +
                               ") names no poplar type");
}

} // namespace experimental
} // namespace popfloat
