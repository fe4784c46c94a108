#include <poprand/codelets.hpp>

#include "poprand/PoprandCodelets.hpp"

namespace poprand {

void addCodelets(poplar::Graph &) { tessera::codelets::poprand::registerPoprandCodelets(); }

} // namespace poprand
