#include "popnn/PopnnCodelets.hpp"

#include <mutex>

namespace tessera::codelets::popnn {

void registerPopnnCodelets() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerColumnVertices();
    registerCTCInferenceVertices();
    registerCTCLossVertices();
    registerLossVertices();
    registerNonLinearityVertices();
    registerPoolingVertices();
    registerROIAlignVertices();
    registerRowAffineVertices();
    registerRowSumsVertices();
    registerSoftmaxVertices();
  });
}

} // namespace tessera::codelets::popnn

// The entry point a deserialized executable uses to find these types without popnn's C++ API
// (poplar::Executable, sdk/src/executable/VertexTypeResolver.cpp).
extern "C" __attribute__((visibility("default"))) void tessera_register_popnn_codelets() {
  tessera::codelets::popnn::registerPopnnCodelets();
}
