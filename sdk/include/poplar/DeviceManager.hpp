// Enumerates the devices of the (simulated) system.
#pragma once

#include <cstddef>
#include <vector>

#include <poplar/Device.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/TargetType.hpp>

namespace poplar {

/// Tessera simulates a system of 16 Mk2 IPUs. `getDevices(TargetType::IPU, n)` returns every
/// group of n IPUs (n a power of two up to 16), as a real IPU-POD's device manager does.
class DeviceManager {
public:
  static DeviceManager createDeviceManager();
  DeviceManager();

  /// All devices of `type` with exactly `requiredNumIPUs` IPUs.
  std::vector<Device> getDevices(TargetType type, unsigned requiredNumIPUs,
                                 const OptionFlags &opts = {}) const;
  /// Every device the manager knows.
  std::vector<Device> getDevices(const OptionFlags &opts = {}) const;
  Device getDevice(unsigned deviceId, const OptionFlags &opts = {}) const;
  std::size_t getNumDevices() const;

  /// IPUs in the simulated system.
  static constexpr unsigned kSystemIPUs = 16;
};

} // namespace poplar
