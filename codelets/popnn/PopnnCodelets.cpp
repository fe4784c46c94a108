#include "popnn/PopnnCodelets.hpp"

#include <mutex>

namespace tessera::codelets::popnn {

void registerPopnnCodelets() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerColumnVertices();
    registerLossVertices();
    registerRowAffineVertices();
    registerRowSumsVertices();
    registerSoftmaxVertices();
  });
}

} // namespace tessera::codelets::popnn
