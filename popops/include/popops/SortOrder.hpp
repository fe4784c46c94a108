// The order in which sorted results are returned.
#pragma once

#include <iosfwd>

namespace popops {

/// NONE: no particular order asked for (topK then returns the best element first).
enum class SortOrder { NONE, ASCENDING, DESCENDING };

std::ostream &operator<<(std::ostream &os, const SortOrder &o);

} // namespace popops
