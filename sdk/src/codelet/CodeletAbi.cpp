#include "CodeletAbi.hpp"

#include <poplar/Version.hpp>

namespace poplar::codelet {

std::string codeletAbi() {
  return "Tessera " + versionNumber() + " headers " + TESSERA_PUBLIC_HEADERS_HASH;
}

} // namespace poplar::codelet
