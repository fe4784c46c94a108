// The " (did you mean 'x'?)" suffix of poplin's unknown-option errors: the valid name nearest
// by edit distance, when it is close enough to be a plausible misspelling.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace poplin::detail {

std::string didYouMean(std::string_view name, std::span<const std::string_view> validNames);

} // namespace poplin::detail
