#include "poprand/PoprandCodelets.hpp"

#include <mutex>

namespace tessera::codelets::poprand {

void registerPoprandCodelets() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerRandomVertices();
    registerSeedStateVertices();
    registerMaskVertices();
  });
}

} // namespace tessera::codelets::poprand
