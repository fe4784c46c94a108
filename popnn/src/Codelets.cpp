#include <popnn/codelets.hpp>

#include <popops/codelets.hpp>

#include "popnn/PopnnCodelets.hpp"

namespace popnn {

void addCodelets(poplar::Graph &graph) {
  popops::addCodelets(graph);
  tessera::codelets::popnn::registerPopnnCodelets();
}

} // namespace popnn
