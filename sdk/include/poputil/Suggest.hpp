// "Did you mean …?" for misspelt names: the one edit distance every library and tool uses.
#pragma once

#include <cstddef>
#include <string>
#if __cplusplus >= 201703L
#include <string_view>
#endif
#include <vector>

namespace poputil {

#if __cplusplus >= 201703L
/// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two
/// neighbouring characters each cost one ("inptu" is one edit from "input"). Declared for C++17
/// and later only (it takes std::string_view).
std::size_t editDistance(std::string_view a, std::string_view b);
#endif

/// The candidate closest to `name` by edit distance, or "" when none is close enough to be a
/// plausible misspelling (more than a third of the name would have to change).
std::string nearestName(const std::string &name, const std::vector<std::string> &candidates);

/// " (did you mean 'x'?)" for the nearest candidate, or "".
std::string didYouMean(const std::string &name, const std::vector<std::string> &candidates);

} // namespace poputil
