#include <popnn/codelets.hpp>

#include <popops/codelets.hpp>
#include <poprand/codelets.hpp>

#include "popnn/PopnnCodelets.hpp"

namespace popnn {

void addCodelets(poplar::Graph &graph) {
  popops::addCodelets(graph);
  poprand::addCodelets(graph); // popnn::dropout
  tessera::codelets::popnn::registerPopnnCodelets();
}

} // namespace popnn
