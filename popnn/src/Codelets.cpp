#include <popnn/codelets.hpp>

#include <poplin/codelets.hpp>
#include <popops/codelets.hpp>
#include <poprand/codelets.hpp>

#include "popnn/PopnnCodelets.hpp"

namespace popnn {

void addCodelets(poplar::Graph &graph) {
  popops::addCodelets(graph);
  poprand::addCodelets(graph); // popnn::dropout
  poplin::addCodelets(graph);  // popnn::lstm, popnn::gru
  tessera::codelets::popnn::registerPopnnCodelets();
}

} // namespace popnn
