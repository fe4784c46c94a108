#include "engine/CrossInstance.hpp"

#include <mutex>
#include <utility>

#include <poplar/exceptions.hpp>

namespace poplar::engine {
namespace {

struct Registry {
  std::mutex mutex;
  CrossInstanceFactory factory = nullptr;
  std::unique_ptr<CrossInstance> instance;
};

Registry &registry() {
  static Registry r;
  return r;
}

} // namespace

CrossInstanceFactory registerCrossInstance(CrossInstanceFactory factory) {
  std::lock_guard lock(registry().mutex);
  return std::exchange(registry().factory, factory);
}

CrossInstance &crossInstance() {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  if (!r.instance) {
    if (!r.factory)
      throw runtime_error("this process is one of several tessera-run instances, but no "
                          "transport between them is loaded: link the program with Tessera::gcl "
                          "(-lgcl), whose collectives use OpenMPI");
    r.instance = r.factory();
  }
  return *r.instance;
}

} // namespace poplar::engine
