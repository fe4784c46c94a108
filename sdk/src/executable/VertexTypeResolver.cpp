#include "executable/VertexTypeResolver.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>

#include <poplar/exceptions.hpp>

#include "codelet/CodeletCache.hpp"
#include "codelet/CodeletLoader.hpp"
#include "codelet/ContentHash.hpp"

namespace poplar::executable {

namespace {

constexpr const char *kBuiltIn = "built-in";

/// Tessera's codelet libraries, each with the C entry point that registers its types (the same
/// thing its PopLibs library's addCodelets does).
struct BuiltInLibrary {
  const char *soname;
  const char *entry;
};
constexpr BuiltInLibrary kBuiltInLibraries[] = {
    {"libpopops_codelets.so.0", "tessera_register_popops_codelets"},
    {"libpoplin_codelets.so.0", "tessera_register_poplin_codelets"},
    {"libpopnn_codelets.so.0", "tessera_register_popnn_codelets"},
    {"libpoprand_codelets.so.0", "tessera_register_poprand_codelets"},
    {"libpopfloat_codelets.so.0", "tessera_register_popfloat_codelets"},
};

/// The directory libpoplar was loaded from: where an installed SDK keeps its codelet libraries.
std::string poplarDirectory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&poplarDirectory), &info) && info.dli_fname)
    return std::filesystem::path(info.dli_fname).parent_path().string();
  return {};
}

/// Registers every built-in codelet library this process has or can load. Libraries are never
/// closed: registered types point into their code.
void registerBuiltInLibraries() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const auto &lib : kBuiltInLibraries) {
      void *handle = dlopen(lib.soname, RTLD_NOW | RTLD_NOLOAD);
      if (!handle)
        handle = dlopen(lib.soname, RTLD_NOW);
      if (!handle)
        handle = dlopen((std::filesystem::path(poplarDirectory()) / lib.soname).c_str(), RTLD_NOW);
      if (!handle)
        continue;
      if (auto entry = reinterpret_cast<void (*)()>(dlsym(handle, lib.entry)))
        entry();
    }
  });
}

/// Loads a codelet object carried by an executable: stored in the codelet cache under its
/// content hash (written atomically, so concurrent processes agree), then loaded as its origin.
void loadCarriedObject(const std::string &origin, const std::string &bytes) {
  codelet::ContentHash h;
  h.add(bytes);
  const auto path =
      std::filesystem::path(codelet::cacheDirectory()) / ("executable-" + h.hex() + ".so");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    codelet::writeFileAtomically(path.string(), bytes);
  codelet::loadCodeletObject(path.string(), origin);
}

} // namespace

std::string fingerprint(const tessera::VertexTypeInfo &type) {
  codelet::ContentHash h;
  h.add(type.name);
  h.add(std::to_string(type.size) + "/" + std::to_string(type.align) + "/" +
        (type.isMultiVertex ? "multi" : "single"));
  for (const auto &f : type.fields)
    h.add(f.name + ":" + tessera::toString(f.kind) + ":" + tessera::toString(f.direction) + ":" +
          f.elementType.toString() + "@" + std::to_string(f.offset));
  return h.hex();
}

std::string codeletObjectBytes(const tessera::VertexTypeInfo &type) {
  if (type.origin == kBuiltIn)
    return {};
  const std::string path = codelet::objectPathOfOrigin(type.origin);
  if (path.empty())
    throw graph_object_load_error("vertex type '" + type.name + "' from '" + type.origin +
                                  "': the codelet object it was loaded from is unknown");
  return codelet::readFile(path, "codelet object");
}

std::shared_ptr<const tessera::VertexTypeInfo>
resolveVertexType(const std::string &name, const std::string &origin,
                  const std::string &expectedFingerprint, const std::string &objectBytes) {
  auto current = tessera::findVertexType(name);
  if (!current || current->origin != origin) {
    if (origin == kBuiltIn)
      registerBuiltInLibraries();
    else if (!objectBytes.empty())
      loadCarriedObject(origin, objectBytes);
    current = tessera::findVertexType(name);
  }
  if (!current)
    throw graph_object_load_error(
        "the executable uses vertex type '" + name + "' (" +
        (origin == kBuiltIn ? std::string("one of Tessera's own codelets") : "from " + origin) +
        ") and no codelet library in this process provides it" +
        (origin == kBuiltIn ? "; link the Tessera library it belongs to" : ""));
  if (fingerprint(*current) != expectedFingerprint)
    throw graph_object_load_error("vertex type '" + name + "' (" + current->origin +
                                  ") has another layout than when the executable was compiled; "
                                  "compile the graph again");
  return current;
}

} // namespace poplar::executable
