// Host values to and from the bytes the device stores, for types whose host and device forms
// differ (HALF, and whatever a program keeps as raw device bytes).
#pragma once

#include <cstddef>

#include <poplar/ArrayRef.hpp>
#include <poplar/Half.hpp>
#include <poplar/Quarter.hpp>
#include <poplar/Type.hpp>

namespace poplar {

namespace core {
/// Converts `count` values of host type `hostType` at `src` to device type `deviceType` at
/// `dst` (`toDevice`), or the other way. Throws `type_error` naming `function` when either
/// type has no conversion.
void convertHostAndDevice(const char *function, bool toDevice, Type deviceType, Type hostType,
                          const void *hostValues, void *deviceBytes, std::size_t count);
/// As convertHostAndDevice for a type that requires metadata (QUARTER), read or written under
/// `metadata`; `nanOnOverflow` as convertToDeviceType's.
void convertHostAndDeviceWithMetadata(const char *function, bool toDevice, Type deviceType,
                                      QuarterMetadata metadata, Type hostType,
                                      const void *hostValues, void *deviceBytes, std::size_t count,
                                      bool nanOnOverflow);
} // namespace core

/// Writes `src` (floats, doubles, halves or integers) as `dstType` elements at `dst`, as the
/// device stores them: HALF rounds each value once to the nearest half (ties to even, overflow
/// to infinity); integer types convert as C++ does. `dst` must hold src.size() elements of
/// `dstType`.
template <class T> void convertToDeviceType(Type dstType, ArrayRef<T> src, void *dst) {
  core::convertHostAndDevice("convertToDeviceType", true, dstType,
                             equivalent_device_type<T>::value, src.data(), dst, src.size());
}

/// Reads dst.size() elements of `srcType` at `src` into `dst` (a view of writable host
/// storage, e.g. `ArrayRef(vector)`); HALF to float or double is exact.
template <class T> void convertFromDeviceType(Type srcType, const void *src, ArrayRef<T> dst) {
  core::convertHostAndDevice("convertFromDeviceType", false, srcType,
                             equivalent_device_type<T>::value, const_cast<T *>(dst.data()),
                             const_cast<void *>(src), dst.size());
}

} // namespace poplar

namespace poplar {

/// Writes `src` (floats, doubles or halves; integers too) as QUARTER bytes under `metadata` at
/// `dst`: each value divided by 2^scale and rounded to the nearest quarter, ties to even. A
/// finite value beyond the format's largest saturates to +-largest, or becomes NaN when
/// `nanOnOverflow`; NaN and infinities become NaN (the format has no infinity). `dstType` must
/// be a type that requires metadata (QUARTER), else type_error.
template <class T>
void convertToDeviceType(Type dstType, const QuarterMetadata &metadata, ArrayRef<T> src, void *dst,
                         bool nanOnOverflow = false) {
  core::convertHostAndDeviceWithMetadata("convertToDeviceType", true, dstType, metadata,
                                         equivalent_device_type<T>::value, src.data(), dst,
                                         src.size(), nanOnOverflow);
}

/// Reads dst.size() QUARTER bytes at `src` under `metadata` into `dst` (exact for float and
/// double; to half rounds, overflowing to infinity). 0x80 reads as NaN.
template <class T>
void convertFromDeviceType(Type srcType, const QuarterMetadata &metadata, const void *src,
                           ArrayRef<T> dst) {
  core::convertHostAndDeviceWithMetadata(
      "convertFromDeviceType", false, srcType, metadata, equivalent_device_type<T>::value,
      const_cast<T *>(dst.data()), const_cast<void *>(src), dst.size(), false);
}

} // namespace poplar
