#include "popops/PopopsCodelets.hpp"

#include <mutex>

namespace tessera::codelets::popops {

void registerPopopsCodelets() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerCastQuarterVertices();
    registerFillVertices();
    registerIotaVertices();
    registerMapExprVertices();
    registerReduceVertices();
    registerSliceVertices();
    registerSortVertices();
    registerTopKVertices();
    registerEncodingVertices();
    registerCastVertices();
    registerSplineVertices();
    registerNaNVertices();
    registerLoopVertices();
    registerScalarInRowsVertices();
    registerScatterVertices();
    registerSequenceSliceVertices();
    registerCircBufVertices();
    registerGatherStatisticsVertices();
    registerNormaliseImageVertices();
    registerRearrangeVertices();
    registerWideIntegerVertices();
  });
}

} // namespace tessera::codelets::popops

// The entry point a deserialized executable uses to find these types without popops' C++ API
// (poplar::Executable, sdk/src/executable/VertexTypeResolver.cpp).
extern "C" __attribute__((visibility("default"))) void tessera_register_popops_codelets() {
  tessera::codelets::popops::registerPopopsCodelets();
}
