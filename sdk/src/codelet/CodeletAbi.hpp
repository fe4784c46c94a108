// The identity of the codelet ABI: what a compiled codelet object must have been built
// against to be loaded. It names the SDK version and a content hash of the SDK's public headers
// (computed when the SDK is configured), never a commit, so rebuilding the same sources at
// another commit keeps every cached codelet object valid.
#pragma once

#include <string>

namespace poplar::codelet {

std::string codeletAbi();

} // namespace poplar::codelet
