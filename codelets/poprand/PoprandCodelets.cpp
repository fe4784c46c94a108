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

// The entry point a deserialized executable uses to find these types without poprand's C++ API
// (poplar::Executable, sdk/src/executable/VertexTypeResolver.cpp).
extern "C" __attribute__((visibility("default"))) void tessera_register_poprand_codelets() {
  tessera::codelets::poprand::registerPoprandCodelets();
}
