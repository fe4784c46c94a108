// Element types of tensors and vertex fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

namespace poplar {

/// Identifies one element type. Kept separate from `Type` so tables can be indexed by it.
enum class TypeId : std::uint8_t {
  Invalid,
  Float,
  Half,
  Int,
  UnsignedInt,
  Short,
  UnsignedShort,
  Char,
  SignedChar,
  UnsignedChar,
  Bool,
  LongLong,
  UnsignedLongLong,
  // Host-only types: Poplar declares LONG and UNSIGNED_LONG but no device supports them, and a
  // double is accepted as a host value (addConstant, setInitialValue, connection lists) and
  // converted to the tensor's or field's type. The graph refuses tensors of these types.
  Long,
  UnsignedLong,
  Double,
  // Poplar 3.x's 8-bit float (<poplar/Quarter.hpp>): one byte whose meaning (F143 or F152, and a
  // power-of-two scale) is given by a QUARTER_METADATA tensor attached to the tensor. Appended
  // here because serialized executables store these numbers.
  Quarter,
  QuarterMetadata,
};
constexpr unsigned kNumTypeIds = 18;

/// An element type. A cheap value type: compare with `==`, print with `<<`.
/// HALF is stored as IEEE-754 binary16 (2 bytes); BOOL as one byte holding 0 or 1.
class Type {
public:
  constexpr Type() = default;
  explicit constexpr Type(TypeId id) : id_(id) {}

  constexpr TypeId id() const { return id_; }
  /// Size of one element in bytes (the same on host and simulated device).
  std::size_t size() const;
  /// Poplar's spelling: "float", "half", "int", "unsigned int", …
  std::string toString() const;
  bool isFloatingPoint() const {
    return id_ == TypeId::Float || id_ == TypeId::Half || id_ == TypeId::Double;
  }
  bool isValid() const { return id_ != TypeId::Invalid; }
  /// True for types whose values need a format description to be read: QUARTER, whose tensors
  /// carry a QUARTER_METADATA tensor (`Tensor::getMetadata()`).
  bool requiresMetadata() const { return id_ == TypeId::Quarter; }
  /// False for the host-only types (LONG, UNSIGNED_LONG, double): values of them can be given to
  /// the graph, but no tensor can hold them.
  bool isDeviceType() const {
    return isValid() && id_ != TypeId::Long && id_ != TypeId::UnsignedLong &&
           id_ != TypeId::Double;
  }
  std::size_t hash() const { return static_cast<std::size_t>(id_); }

  friend constexpr bool operator==(Type a, Type b) { return a.id_ == b.id_; }
  friend constexpr bool operator!=(Type a, Type b) { return a.id_ != b.id_; }
  friend constexpr bool operator<(Type a, Type b) { return a.id_ < b.id_; }

private:
  TypeId id_ = TypeId::Invalid;
};

std::ostream &operator<<(std::ostream &os, const Type &t);

constexpr Type FLOAT{TypeId::Float};
constexpr Type HALF{TypeId::Half};
constexpr Type INT{TypeId::Int};
constexpr Type UNSIGNED_INT{TypeId::UnsignedInt};
constexpr Type SHORT{TypeId::Short};
constexpr Type UNSIGNED_SHORT{TypeId::UnsignedShort};
constexpr Type CHAR{TypeId::Char};
constexpr Type SIGNED_CHAR{TypeId::SignedChar};
constexpr Type UNSIGNED_CHAR{TypeId::UnsignedChar};
constexpr Type BOOL{TypeId::Bool};
constexpr Type LONGLONG{TypeId::LongLong};
constexpr Type UNSIGNED_LONGLONG{TypeId::UnsignedLongLong};
/// 8-bit float, 1 byte: F143 or F152 with a scale, as its metadata says (<poplar/Quarter.hpp>).
constexpr Type QUARTER{TypeId::Quarter};
/// 1 byte: the packed QuarterMetadata (format and scale) of QUARTER tensors.
constexpr Type QUARTER_METADATA{TypeId::QuarterMetadata};
/// Host-only (see TypeId::Long): accepted for host values, refused for tensors.
constexpr Type LONG{TypeId::Long};
constexpr Type UNSIGNED_LONG{TypeId::UnsignedLong};

/// Maps a host C++ type to its device element type: `equivalent_device_type<float>().value ==
/// FLOAT`.
template <class T> struct equivalent_device_type;
#define TESSERA_DEVICE_TYPE(CXX, VALUE)                                                            \
  template <> struct equivalent_device_type<CXX> { static constexpr Type value = VALUE; };
TESSERA_DEVICE_TYPE(float, FLOAT)
TESSERA_DEVICE_TYPE(int, INT)
TESSERA_DEVICE_TYPE(unsigned, UNSIGNED_INT)
TESSERA_DEVICE_TYPE(short, SHORT)
TESSERA_DEVICE_TYPE(unsigned short, UNSIGNED_SHORT)
TESSERA_DEVICE_TYPE(char, CHAR)
TESSERA_DEVICE_TYPE(signed char, SIGNED_CHAR)
TESSERA_DEVICE_TYPE(unsigned char, UNSIGNED_CHAR)
TESSERA_DEVICE_TYPE(bool, BOOL)
TESSERA_DEVICE_TYPE(long long, LONGLONG)
TESSERA_DEVICE_TYPE(unsigned long long, UNSIGNED_LONGLONG)
TESSERA_DEVICE_TYPE(long, LONG)
TESSERA_DEVICE_TYPE(unsigned long, UNSIGNED_LONG)
// No public DOUBLE: Poplar has none. A double host value converts to the destination's type.
TESSERA_DEVICE_TYPE(double, Type(TypeId::Double))
#undef TESSERA_DEVICE_TYPE

} // namespace poplar

namespace std {
template <> struct hash<poplar::Type> {
  size_t operator()(const poplar::Type &t) const { return t.hash(); }
};
} // namespace std
