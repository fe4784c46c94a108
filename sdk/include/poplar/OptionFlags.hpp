// String key/value options passed to Engines and library functions, as in Poplar.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <iosfwd>
#include <map>
#include <string>
#include <utility>

#include <poplar/StringRef.hpp>

namespace poplar {

/// An ordered set of option strings. Which keys are valid is decided by whoever reads them
/// (an Engine, a library function); unknown keys are rejected there with `invalid_option`.
class OptionFlags {
public:
  using initializer_list = std::initializer_list<std::pair<const std::string, std::string>>;
  using const_iterator = std::map<std::string, std::string>::const_iterator;

  OptionFlags() = default;
  OptionFlags(initializer_list init) : values_(init) {}

  /// Sets (or overwrites) one option.
  void set(StringRef key, StringRef value) { values_[key.str()] = value.str(); }
  void set(initializer_list init) {
    for (const auto &kv : init)
      values_[kv.first] = kv.second;
  }
  /// The value of `key`; throws `invalid_option` naming the key if absent.
  StringRef at(StringRef key) const;
  bool contains(StringRef key) const { return values_.count(key.str()) != 0; }
  void remove(StringRef key) { values_.erase(key.str()); }
  void clear() { values_.clear(); }
  bool empty() const { return values_.empty(); }
  std::size_t size() const { return values_.size(); }
  const_iterator begin() const { return values_.begin(); }
  const_iterator end() const { return values_.end(); }
  friend bool operator==(const OptionFlags &a, const OptionFlags &b) {
    return a.values_ == b.values_;
  }

private:
  std::map<std::string, std::string> values_;
};

/// Parses a JSON object of string (or number/bool) values, such as the contents of
/// `POPLAR_ENGINE_OPTIONS`, into `flags`; throws `parse_error` on malformed input.
void readJSON(StringRef json, OptionFlags &flags);

std::ostream &operator<<(std::ostream &os, const OptionFlags &flags);

} // namespace poplar
