#include "popfloat/PopfloatCodelets.hpp"

#include <mutex>

namespace tessera::codelets::popfloat {

void registerPopfloatCodelets() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerGfloatParamsVertices();
    registerGfloatCastVertices();
  });
}

} // namespace tessera::codelets::popfloat

// The entry point a deserialized executable uses to find these types without popfloat's C++ API
// (poplar::Executable, sdk/src/executable/VertexTypeResolver.cpp).
extern "C" __attribute__((visibility("default"))) void tessera_register_popfloat_codelets() {
  tessera::codelets::popfloat::registerPopfloatCodelets();
}
