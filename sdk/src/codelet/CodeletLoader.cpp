#include "codelet/CodeletLoader.hpp"
#include "CodeletAbi.hpp"

#include <dlfcn.h>

#include <cstring>
#include <map>
#include <mutex>

#include <poplar/Version.hpp>
#include <poplar/exceptions.hpp>

#include "codelet/StubGenerator.hpp"

namespace poplar::codelet {

namespace {
struct LoadedObjects {
  std::mutex mutex;
  std::map<std::string, std::string> pathByOrigin;
};
LoadedObjects &loadedObjects() {
  static LoadedObjects objects;
  return objects;
}
} // namespace

std::string objectPathOfOrigin(const std::string &origin) {
  auto &objects = loadedObjects();
  std::lock_guard lock(objects.mutex);
  const auto it = objects.pathByOrigin.find(origin);
  return it == objects.pathByOrigin.end() ? std::string() : it->second;
}

unsigned loadCodeletObject(const std::string &objectPath, const std::string &origin) {
  // Never closed: registered vertex types point into the object's code for the whole process.
  void *handle = dlopen(objectPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    throw graph_object_load_error("cannot load codelet object '" + objectPath +
                                  "': " + (why ? why : "unknown dlopen error"));
  }
  using VersionFn = const char *(*)();
  using RegisterFn = unsigned (*)(const char *);
  auto version = reinterpret_cast<VersionFn>(dlsym(handle, kVersionSymbol));
  auto registerAll = reinterpret_cast<RegisterFn>(dlsym(handle, kRegisterSymbol));
  if (!version || !registerAll)
    throw graph_object_load_error("'" + objectPath +
                                  "' is not a Tessera codelet object (it has no " +
                                  kRegisterSymbol + "); build it with popc");
  const std::string builtFor = version();
  if (builtFor != codeletAbi())
    throw graph_object_load_error("codelet object '" + objectPath + "' was built for " + builtFor +
                                  " but this SDK is " + codeletAbi() +
                                  "; rebuild it with this SDK's popc");
  const unsigned registered = registerAll(origin.c_str());
  {
    auto &objects = loadedObjects();
    std::lock_guard lock(objects.mutex);
    objects.pathByOrigin[origin] = objectPath;
  }
  return registered;
}

} // namespace poplar::codelet
