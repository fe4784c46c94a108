#include "poplin/PoplinCodelets.hpp"

#include <mutex>

namespace tessera::codelets::poplin {

void registerPoplinCodelets() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerMatMulVertices();
    registerPartialsVertices();
    registerConvVertices();
    registerStridedRowVertices();
    registerWinogradVertices();
    registerLoweredVertices();
    registerLinalgVertices();
  });
}

} // namespace tessera::codelets::poplin

// The entry point a deserialized executable uses to find these types without poplin's C++ API
// (poplar::Executable, sdk/src/executable/VertexTypeResolver.cpp).
extern "C" __attribute__((visibility("default"))) void tessera_register_poplin_codelets() {
  tessera::codelets::poplin::registerPoplinCodelets();
}
