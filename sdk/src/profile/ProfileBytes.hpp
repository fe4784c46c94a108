// A graph profile as bytes, for files that carry one inside another message (executables).
#pragma once

#include <string>

#include <tessera/profile/Profile.hpp>

namespace poplar::profile {

/// The profile as a serialized tessera.profile.pb.GraphProfile.
std::string serializeGraphProfile(const tessera::profile::GraphProfile &p);
/// The inverse; throws parse_error when `bytes` is not a graph profile.
tessera::profile::GraphProfile parseGraphProfile(const std::string &bytes);

} // namespace poplar::profile
