// "Did you mean …?" for misspelt names.
#pragma once

#include <string>
#include <vector>

namespace poplar::core {

/// The candidate closest to `name` by edit distance, or "" when none is close enough to be a
/// plausible misspelling (more than a third of the name would have to change).
std::string nearestName(const std::string &name, const std::vector<std::string> &candidates);

/// " (did you mean 'x'?)" or "".
std::string didYouMean(const std::string &name, const std::vector<std::string> &candidates);

} // namespace poplar::core
