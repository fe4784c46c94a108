// Debug names: every graph-building call takes a DebugContext, usually a string literal.
#pragma once

#include <string>

#include <poplar/StringRef.hpp>

namespace poplar {

/// A name and identifier for a graph object, kept for error messages and profiles.
class DebugNameAndId {
public:
  DebugNameAndId() = default;
  DebugNameAndId(StringRef name) : name_(name.str()) {}
  DebugNameAndId(const char *name) : name_(name ? name : "") {}
  DebugNameAndId(const std::string &name) : name_(name) {}
  DebugNameAndId(const DebugNameAndId &parent, StringRef name)
      : name_(join(parent.name_, name.str())) {}
  const std::string &getPathName() const { return name_; }

protected:
  static std::string join(const std::string &a, const std::string &b) {
    if (a.empty())
      return b;
    if (b.empty())
      return a;
    return a + "/" + b;
  }
  std::string name_;
};

/// What every API accepts as its last argument: a string, a parent context plus a name, or
/// nothing. Library code nests contexts so names read "layer1/conv/weights".
class DebugContext : public DebugNameAndId {
public:
  DebugContext() = default;
  DebugContext(const char *name) : DebugNameAndId(name) {}
  DebugContext(const std::string &name) : DebugNameAndId(name) {}
  DebugContext(StringRef name) : DebugNameAndId(name) {}
  DebugContext(const DebugNameAndId &parent, StringRef name = "") : DebugNameAndId(parent, name) {}
};

} // namespace poplar
