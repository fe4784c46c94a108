// Debug names and records: every graph-building call takes a DebugContext, usually a string
// literal; libraries attach a DebugInfo (a record of their arguments and outputs) to it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <poplar/ProfileValue.hpp>
#include <poplar/SourceLocation.hpp>
#include <poplar/StringRef.hpp>

namespace poplar {

/// Identifies one DebugInfo record within the process (0: none).
using DebugId = std::uint64_t;

/// File format of DebugInfo::initializeStreamer.
enum class DebugSerializationFormat { JSON, CBOR };

class DebugInfo;

/// A name and the identifier of the debug record it belongs to, kept for error messages and
/// profiles.
class DebugNameAndId {
public:
  DebugNameAndId() = default;
  DebugNameAndId(StringRef name) : name_(name.str()) {}
  DebugNameAndId(const char *name) : name_(name ? name : "") {}
  DebugNameAndId(const std::string &name) : name_(name) {}
  /// A name under record `debugId`; `pathName`, when given, is the full path.
  DebugNameAndId(std::string name, DebugId debugId, std::string pathName = "")
      : name_(pathName.empty() ? std::move(name) : std::move(pathName)), id_(debugId) {}
  DebugNameAndId(DebugId debugId) : id_(debugId) {}
  /// `name` under a DebugInfo's path, with its id.
  DebugNameAndId(const DebugInfo &debugInfo, StringRef name = "");
  DebugNameAndId(const DebugNameAndId &parent, StringRef name)
      : name_(join(parent.name_, name.str())), id_(parent.id_) {}
  const std::string &getPathName() const { return name_; }
  /// The debug record this name belongs to (0: none). Tessera addition.
  DebugId getId() const { return id_; }

protected:
  static std::string join(const std::string &a, const std::string &b) {
    if (a.empty())
      return b;
    if (b.empty())
      return a;
    return a + "/" + b;
  }
  std::string name_;
  DebugId id_ = 0;
};

/// What every API accepts as its last argument: a string, a parent context or record plus a
/// name, or nothing. Library code nests contexts so names read "layer1/conv/weights". Each
/// context also records where in the caller's source it was made (`SourceLocation::Current()`
/// as a default argument captures the call site).
class DebugContext : public DebugNameAndId {
public:
  DebugContext(SourceLocation loc = SourceLocation::Current()) : location_(loc) {}
  DebugContext(const char *name, SourceLocation loc = SourceLocation::Current())
      : DebugNameAndId(name), location_(loc) {}
  DebugContext(const std::string &name, SourceLocation loc = SourceLocation::Current())
      : DebugNameAndId(name), location_(loc) {}
  DebugContext(StringRef name, SourceLocation loc = SourceLocation::Current())
      : DebugNameAndId(name), location_(loc) {}
  DebugContext(const DebugInfo &debugInfo, StringRef name = "",
               SourceLocation loc = SourceLocation::Current())
      : DebugNameAndId(debugInfo, name), location_(loc) {}
  DebugContext(const DebugNameAndId &parent, StringRef name = "",
               SourceLocation loc = SourceLocation::Current())
      : DebugNameAndId(parent, name), location_(loc) {}
  /// Where the context was made. Tessera addition.
  const SourceLocation &getSourceLocation() const { return location_; }

private:
  SourceLocation location_;
};

/// A debug record: a layer ("poplibs", "popart", …), the context's path and source location,
/// and named values. Written, when it is destroyed, to the file `initializeStreamer` opened.
class DebugInfo {
public:
  DebugInfo(const DebugContext &debugContext, std::string layer);
  DebugInfo(const DebugInfo &) = delete;
  DebugInfo &operator=(const DebugInfo &) = delete;
  virtual ~DebugInfo();

  DebugId getId() const;
  std::string getPathName() const;
  /// Records `value` under `name`; false (and nothing changes) when `name` is already set.
  bool setValue(std::string name, ProfileValue value);
  /// Everything recorded: "layer", "name", "location" and the values set. Tessera addition.
  const ProfileValue::Map &getValues() const;

  /// Starts writing every DebugInfo destroyed from now on to `fileName` (one JSON document;
  /// Tessera writes JSON for CBOR too). Throws `poplar_error` naming a file it cannot open.
  static void
  initializeStreamer(const std::string &fileName,
                     const DebugSerializationFormat &format = DebugSerializationFormat::CBOR);
  /// Finishes and closes the file (nothing happens when none is open).
  static void closeStreamer();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace poplar
