#include <poplin/codelets.hpp>

#include "poplin/PoplinCodelets.hpp"

namespace poplin {

void addCodelets(poplar::Graph &) { tessera::codelets::poplin::registerPoplinCodelets(); }

} // namespace poplin
