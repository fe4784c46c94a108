#include <popfloat/experimental/codelets.hpp>

#include "popfloat/PopfloatCodelets.hpp"

namespace popfloat {
namespace experimental {

void addCodelets(poplar::Graph &) { tessera::codelets::popfloat::registerPopfloatCodelets(); }

} // namespace experimental
} // namespace popfloat
