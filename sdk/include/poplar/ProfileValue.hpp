// A JSON-like value (string, number, boolean, list or map) that debug information carries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace poplar {

/// One value of a debug record: a string, a number, a boolean, a list of values or a map from
/// names to values. A default-constructed value is an empty map. Copies are deep.
class ProfileValue {
public:
  using String = std::string;
  using Boolean = bool;
  using Number = double;
  using Vector = std::vector<ProfileValue>;
  using Map = std::map<std::string, ProfileValue>;
  enum class Type { STRING, NUMBER, BOOLEAN, VECTOR, MAP };

  ProfileValue();
  ProfileValue(String s);
  ProfileValue(const char *s);
  ProfileValue(Boolean b);
  template <class T,
            typename std::enable_if<std::is_arithmetic<T>::value && !std::is_same<T, bool>::value,
                                    int>::type = 0>
  ProfileValue(T n) : ProfileValue(NumberTag{}, static_cast<Number>(n)) {}
  ProfileValue(Vector v);
  ProfileValue(Map m);
  ProfileValue(const ProfileValue &);
  ProfileValue(ProfileValue &&) noexcept;
  ProfileValue &operator=(const ProfileValue &);
  ProfileValue &operator=(ProfileValue &&) noexcept;
  ~ProfileValue();

  Type type() const { return type_; }
  /// The value as its type; asking for another type throws `poplar_error` naming both.
  const String &asString() const;
  double asDouble() const;
  std::int64_t asInt() const;
  std::uint64_t asUint() const;
  bool asBool() const;
  const Vector &asVector() const;
  const Map &asMap() const;
  /// A map's entry (throws `poplar_error` naming a missing key) or a list's element (throws
  /// `index_error`).
  const ProfileValue &operator[](const std::string &key) const;
  const ProfileValue &operator[](std::size_t index) const;
  /// Elements of a list or entries of a map; 0 for the other types.
  std::size_t size() const;

  friend bool operator==(const ProfileValue &a, const ProfileValue &b);
  friend bool operator!=(const ProfileValue &a, const ProfileValue &b) { return !(a == b); }

private:
  struct NumberTag {};
  ProfileValue(NumberTag, Number n);

  Type type_ = Type::MAP;
  String string_;
  Number number_ = 0;
  Boolean boolean_ = false;
  std::unique_ptr<Vector> vector_;
  std::unique_ptr<Map> map_;
};

/// Writes `v` as JSON.
std::ostream &operator<<(std::ostream &os, const ProfileValue &v);

} // namespace poplar
