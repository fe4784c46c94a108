// The process-wide registry of vertex types (built-in codelets and loaded codelet files).
#include <tessera/VertexType.hpp>

#include <algorithm>
#include <map>
#include <mutex>

namespace tessera {

namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const VertexTypeInfo>> types;
};
Registry &registry() {
  static Registry r;
  return r;
}
} // namespace

const FieldInfo *VertexTypeInfo::findField(const std::string &fieldName) const {
  for (const auto &f : fields)
    if (f.name == fieldName)
      return &f;
  return nullptr;
}

void registerVertexType(std::shared_ptr<const VertexTypeInfo> info) {
  auto &r = registry();
  std::lock_guard lock(r.mutex);
  auto &slot = r.types[info->name];
  // The same origin registering again (a codelet file loaded twice) keeps the first copy, so
  // vertices already built keep pointing at live code.
  if (!slot || slot->origin != info->origin)
    slot = std::move(info);
}

std::shared_ptr<const VertexTypeInfo> findVertexType(const std::string &name) {
  auto &r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.types.find(name);
  return it == r.types.end() ? nullptr : it->second;
}

std::vector<std::string> registeredVertexTypeNames() {
  auto &r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> out;
  for (const auto &[name, _] : r.types)
    out.push_back(name);
  return out;
}

const char *toString(FieldKind k) {
  switch (k) {
  case FieldKind::Scalar:
    return "scalar";
  case FieldKind::Vector:
    return "Vector";
  case FieldKind::VectorList:
    return "VectorList";
  case FieldKind::Plain:
    return "plain member";
  case FieldKind::PlainVector:
    return "plain Vector member";
  }
  return "?";
}

const char *toString(FieldDirection d) {
  switch (d) {
  case FieldDirection::In:
    return "Input";
  case FieldDirection::Out:
    return "Output";
  case FieldDirection::InOut:
    return "InOut";
  case FieldDirection::None:
    return "state";
  }
  return "?";
}

} // namespace tessera

namespace poplar::detail {
namespace {
// initial-exec: set once per tile on the hot path, so avoid __tls_get_addr.
thread_local unsigned tlsNumWorkers __attribute__((tls_model("initial-exec"))) = 6;
} // namespace
thread_local bool tlsRuntimeVerify __attribute__((tls_model("initial-exec"))) = false;
unsigned currentNumWorkers() { return tlsNumWorkers; }
bool runtimeVerify() { return tlsRuntimeVerify; }
void setVertexContext(unsigned numWorkers, bool verify) {
  tlsNumWorkers = numWorkers;
  tlsRuntimeVerify = verify;
}
} // namespace poplar::detail
