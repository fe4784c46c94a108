#include <popops/codelets.hpp>

#include "popops/PopopsCodelets.hpp"

namespace popops {

void addCodelets(poplar::Graph &) { tessera::codelets::popops::registerPopopsCodelets(); }

} // namespace popops
