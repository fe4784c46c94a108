// Loads a codelet shared object and registers its vertex types.
#pragma once

#include <string>

namespace poplar::codelet {

/// dlopens `objectPath`, checks it was built for this SDK, and calls its registration
/// function with `origin` (shown as where the types came from). Returns the number of vertex
/// types registered. Throws graph_object_load_error naming the file on any failure.
unsigned loadCodeletObject(const std::string &objectPath, const std::string &origin);

/// The object file last loaded with `origin`, or "" (executables carry it to other processes).
std::string objectPathOfOrigin(const std::string &origin);

} // namespace poplar::codelet
