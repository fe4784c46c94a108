#include "popops/PopopsCodelets.hpp"

#include <mutex>

namespace tessera::codelets::popops {

void registerPopopsCodelets() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerFillVertices();
    registerIotaVertices();
    registerMapExprVertices();
    registerReduceVertices();
    registerSliceVertices();
    registerSortVertices();
    registerTopKVertices();
  });
}

} // namespace tessera::codelets::popops
