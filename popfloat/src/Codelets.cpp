#include <popfloat/experimental/codelets.hpp>

namespace popfloat {
namespace experimental {

// Nothing to register: the conversions this library has run on the host.
void addCodelets(poplar::Graph &) {}

} // namespace experimental
} // namespace popfloat
