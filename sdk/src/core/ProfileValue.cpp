// poplar::ProfileValue: a small JSON-like value.
#include <poplar/ProfileValue.hpp>

#include <cmath>
#include <ostream>

#include <poplar/exceptions.hpp>

#include "core/JsonQuote.hpp"

namespace poplar {

namespace {
const char *typeName(ProfileValue::Type t) {
  switch (t) {
  case ProfileValue::Type::STRING:
    return "string";
  case ProfileValue::Type::NUMBER:
    return "number";
  case ProfileValue::Type::BOOLEAN:
    return "boolean";
  case ProfileValue::Type::VECTOR:
    return "vector";
  case ProfileValue::Type::MAP:
    return "map";
  }
  return "?";
}
} // namespace

ProfileValue::ProfileValue() : type_(Type::MAP), map_(std::make_unique<Map>()) {}
ProfileValue::ProfileValue(String s) : type_(Type::STRING), string_(std::move(s)) {}
ProfileValue::ProfileValue(const char *s) : ProfileValue(String(s ? s : "")) {}
ProfileValue::ProfileValue(Boolean b) : type_(Type::BOOLEAN), boolean_(b) {}
ProfileValue::ProfileValue(NumberTag, Number n) : type_(Type::NUMBER), number_(n) {}
ProfileValue::ProfileValue(Vector v)
    : type_(Type::VECTOR), vector_(std::make_unique<Vector>(std::move(v))) {}
ProfileValue::ProfileValue(Map m) : type_(Type::MAP), map_(std::make_unique<Map>(std::move(m))) {}
ProfileValue::ProfileValue(const ProfileValue &o)
    : type_(o.type_), string_(o.string_), number_(o.number_), boolean_(o.boolean_),
      vector_(o.vector_ ? std::make_unique<Vector>(*o.vector_) : nullptr),
      map_(o.map_ ? std::make_unique<Map>(*o.map_) : nullptr) {}
ProfileValue::ProfileValue(ProfileValue &&) noexcept = default;
ProfileValue &ProfileValue::operator=(const ProfileValue &o) {
  if (this != &o) {
    ProfileValue copy(o);
    *this = std::move(copy);
  }
  return *this;
}
ProfileValue &ProfileValue::operator=(ProfileValue &&) noexcept = default;
ProfileValue::~ProfileValue() = default;

#define TESSERA_PROFILE_VALUE_EXPECT(T)                                                            \
  if (type_ != Type::T)                                                                            \
    throw poplar_error(std::string("ProfileValue: asked for a ") + typeName(Type::T) +             \
                       " but it holds a " + typeName(type_));

const ProfileValue::String &ProfileValue::asString() const {
  TESSERA_PROFILE_VALUE_EXPECT(STRING)
  return string_;
}
double ProfileValue::asDouble() const {
  TESSERA_PROFILE_VALUE_EXPECT(NUMBER)
  return number_;
}
std::int64_t ProfileValue::asInt() const {
  TESSERA_PROFILE_VALUE_EXPECT(NUMBER)
  return static_cast<std::int64_t>(number_);
}
std::uint64_t ProfileValue::asUint() const {
  TESSERA_PROFILE_VALUE_EXPECT(NUMBER)
  if (number_ < 0)
    throw poplar_error("ProfileValue: asked for an unsigned number but it holds " +
                       std::to_string(number_));
  return static_cast<std::uint64_t>(number_);
}
bool ProfileValue::asBool() const {
  TESSERA_PROFILE_VALUE_EXPECT(BOOLEAN)
  return boolean_;
}
const ProfileValue::Vector &ProfileValue::asVector() const {
  TESSERA_PROFILE_VALUE_EXPECT(VECTOR)
  return *vector_;
}
const ProfileValue::Map &ProfileValue::asMap() const {
  TESSERA_PROFILE_VALUE_EXPECT(MAP)
  return *map_;
}
#undef TESSERA_PROFILE_VALUE_EXPECT

const ProfileValue &ProfileValue::operator[](const std::string &key) const {
  const auto &m = asMap();
  auto it = m.find(key);
  if (it == m.end())
    throw poplar_error("ProfileValue: the map has no key '" + key + "'");
  return it->second;
}
const ProfileValue &ProfileValue::operator[](std::size_t index) const {
  const auto &v = asVector();
  if (index >= v.size())
    throw index_error("ProfileValue: index " + std::to_string(index) + " is past the vector's " +
                      std::to_string(v.size()) + " elements");
  return v[index];
}
std::size_t ProfileValue::size() const {
  return type_ == Type::VECTOR ? vector_->size() : type_ == Type::MAP ? map_->size() : 0;
}

bool operator==(const ProfileValue &a, const ProfileValue &b) {
  if (a.type_ != b.type_)
    return false;
  switch (a.type_) {
  case ProfileValue::Type::STRING:
    return a.string_ == b.string_;
  case ProfileValue::Type::NUMBER:
    return a.number_ == b.number_;
  case ProfileValue::Type::BOOLEAN:
    return a.boolean_ == b.boolean_;
  case ProfileValue::Type::VECTOR:
    return *a.vector_ == *b.vector_;
  case ProfileValue::Type::MAP:
    return *a.map_ == *b.map_;
  }
  return false;
}

std::ostream &operator<<(std::ostream &os, const ProfileValue &v) {
  switch (v.type()) {
  case ProfileValue::Type::STRING:
    return os << core::jsonQuoted(v.asString());
  case ProfileValue::Type::NUMBER: {
    const double n = v.asDouble();
    if (!std::isfinite(n))
      return os << "null";
    if (n == std::floor(n) && std::fabs(n) < 9.0e15)
      return os << static_cast<long long>(n);
    return os << n;
  }
  case ProfileValue::Type::BOOLEAN:
    return os << (v.asBool() ? "true" : "false");
  case ProfileValue::Type::VECTOR: {
    os << '[';
    bool first = true;
    for (const auto &e : v.asVector()) {
      os << (first ? "" : ",") << e;
      first = false;
    }
    return os << ']';
  }
  case ProfileValue::Type::MAP: {
    os << '{';
    bool first = true;
    for (const auto &[k, e] : v.asMap()) {
      os << (first ? "" : ",") << core::jsonQuoted(k) << ':' << e;
      first = false;
    }
    return os << '}';
  }
  }
  return os;
}

} // namespace poplar
