// poplar::DebugInfo and its streamer: debug records written as one JSON document.
#include <poplar/DebugContext.hpp>

#include <atomic>
#include <fstream>
#include <mutex>

#include <poplar/exceptions.hpp>

namespace poplar {

namespace {

std::atomic<DebugId> nextDebugId{1};

/// The file initializeStreamer opened: process-wide, as Poplar's API makes it.
struct Streamer {
  std::mutex mutex;
  std::ofstream out;
  bool first = true;
};
Streamer &streamer() {
  static Streamer s;
  return s;
}

} // namespace

struct DebugInfo::Impl {
  DebugId id;
  std::string pathName;
  ProfileValue::Map values;
};

DebugNameAndId::DebugNameAndId(const DebugInfo &debugInfo, StringRef name)
    : name_(join(debugInfo.getPathName(), name.str())), id_(debugInfo.getId()) {}

DebugInfo::DebugInfo(const DebugContext &debugContext, std::string layer)
    : impl_(std::make_unique<Impl>()) {
  impl_->id = nextDebugId++;
  impl_->pathName = debugContext.getPathName();
  impl_->values["layer"] = std::move(layer);
  impl_->values["name"] = impl_->pathName;
  impl_->values["id"] = impl_->id;
  if (debugContext.getId())
    impl_->values["parentId"] = debugContext.getId();
  const auto &loc = debugContext.getSourceLocation();
  if (loc.isValid())
    impl_->values["location"] = ProfileValue::Map{{"function", loc.getFunctionName()},
                                                  {"file", loc.getFileName()},
                                                  {"line", loc.getLineNumber()}};
}

DebugInfo::~DebugInfo() {
  auto &s = streamer();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.out.is_open())
    return;
  s.out << (s.first ? "\n" : ",\n") << ProfileValue(impl_->values);
  s.first = false;
}

DebugId DebugInfo::getId() const { return impl_->id; }
std::string DebugInfo::getPathName() const { return impl_->pathName; }
const ProfileValue::Map &DebugInfo::getValues() const { return impl_->values; }

bool DebugInfo::setValue(std::string name, ProfileValue value) {
  return impl_->values.emplace(std::move(name), std::move(value)).second;
}

void DebugInfo::initializeStreamer(const std::string &fileName, const DebugSerializationFormat &) {
  auto &s = streamer();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.out.is_open()) {
    s.out << "\n]}\n";
    s.out.close();
  }
  s.out.open(fileName, std::ios::trunc);
  if (!s.out)
    throw poplar_error("DebugInfo::initializeStreamer: cannot open '" + fileName + "' for writing");
  s.out << "{\"contexts\": [";
  s.first = true;
}

void DebugInfo::closeStreamer() {
  auto &s = streamer();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.out.is_open())
    return;
  s.out << "\n]}\n";
  s.out.close();
}

} // namespace poplar
