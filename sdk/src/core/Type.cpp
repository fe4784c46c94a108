#include <poplar/Type.hpp>

#include <array>
#include <ostream>

#include <poplar/Half.hpp>
#include <poplar/QuarterFloat.hpp>
#include <poplar/TargetType.hpp>

namespace poplar {
namespace {
struct TypeRow {
  const char *name;
  std::size_t size;
};
// Indexed by TypeId; the static_assert keeps it in step with the enum.
constexpr std::array<TypeRow, kNumTypeIds> kTypes = {{
    {"<invalid>", 0},
    {"float", 4},
    {"half", 2},
    {"int", 4},
    {"unsigned int", 4},
    {"short", 2},
    {"unsigned short", 2},
    {"char", 1},
    {"signed char", 1},
    {"unsigned char", 1},
    {"bool", 1},
    {"long long", 8},
    {"unsigned long long", 8},
    {"long", sizeof(long)},
    {"unsigned long", sizeof(unsigned long)},
    {"double", sizeof(double)},
    {"quarter", 1},
    {"quarter_metadata", 1},
}};
static_assert(static_cast<unsigned>(TypeId::QuarterMetadata) + 1 == kNumTypeIds);
} // namespace

std::size_t Type::size() const { return kTypes[static_cast<unsigned>(id_)].size; }
std::string Type::toString() const { return kTypes[static_cast<unsigned>(id_)].name; }
std::ostream &operator<<(std::ostream &os, const Type &t) { return os << t.toString(); }

const char *toString(TargetType t) {
  switch (t) {
  case TargetType::IPU:
    return "IPU";
  case TargetType::IPU_MODEL:
    return "IPU_MODEL";
  case TargetType::CPU:
    return "CPU";
  }
  return "?";
}

// C++11 and C++14 programs see `equivalent_device_type<T>::value` as a declaration only (C++17
// made static constexpr data members inline definitions), and Graph.hpp's templates bind it to
// references (`addConstant<float>`), so such programs link against a definition. Taking every
// one's address here makes this library emit each (a unique global symbol, exported).
namespace {
[[gnu::used]] const Type *const kEquivalentDeviceTypeValues[] = {
    &equivalent_device_type<float>::value,
    &equivalent_device_type<half>::value,
    &equivalent_device_type<int>::value,
    &equivalent_device_type<unsigned>::value,
    &equivalent_device_type<short>::value,
    &equivalent_device_type<unsigned short>::value,
    &equivalent_device_type<char>::value,
    &equivalent_device_type<signed char>::value,
    &equivalent_device_type<unsigned char>::value,
    &equivalent_device_type<bool>::value,
    &equivalent_device_type<long long>::value,
    &equivalent_device_type<unsigned long long>::value,
    &equivalent_device_type<long>::value,
    &equivalent_device_type<unsigned long>::value,
    &equivalent_device_type<double>::value,
    &equivalent_device_type<quarter>::value,
};
} // namespace

} // namespace poplar
