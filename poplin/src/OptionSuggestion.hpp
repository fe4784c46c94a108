// What poplin's option tables (matMul, convolution) share: the " (did you mean 'x'?)" suffix of
// unknown-option errors, and the parsing of availableMemoryProportion.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace poplin::detail {

/// The valid name nearest by edit distance, as a message suffix, when it is close enough to be a
/// plausible misspelling; else "".
std::string didYouMean(std::string_view name, std::span<const std::string_view> validNames);

/// `value` as a number in (0, 1]; else poplar::invalid_option naming "<family> option
/// availableMemoryProportion" and the value.
double parseMemoryProportion(std::string_view family, const std::string &value);

} // namespace poplin::detail
