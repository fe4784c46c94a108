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
  });
}

} // namespace tessera::codelets::poplin
