// The options poplin's planners share (matMul and the convolutions), as entries of their
// poputil::OptionSpec tables.
#pragma once

#include <string>
#include <vector>

#include <poplar/Type.hpp>
#include <poputil/OptionParsing.hpp>

namespace poplin::detail {

/// availableMemoryProportion (a number in (0, 1]), partialsType ("float" or "half") and the
/// PopLibs planner options Tessera accepts with any value and ignores (stored in `ignored`).
std::vector<poputil::OptionSpec::value_type> sharedPlanOptions(double &availableMemoryProportion,
                                                               poplar::Type &partialsType,
                                                               std::string &ignored);

} // namespace poplin::detail
