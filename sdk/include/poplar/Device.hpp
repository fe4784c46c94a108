// A (simulated) device that an Engine is loaded onto.
#pragma once

#include <memory>

#include <poplar/OptionFlags.hpp>
#include <poplar/Target.hpp>

namespace poplar {

/// A handle to a device. On Tessera every device is simulated by the CPU tile engine, so
/// attaching succeeds unless another Device handle in this process holds one of its IPUs.
class Device {
public:
  Device();
  ~Device();
  Device(Device &&) noexcept;
  Device &operator=(Device &&) noexcept;
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  /// A one-tile CPU device.
  static Device createCPUDevice(unsigned numIPUs = 1);
  /// A device simulating `target` exactly.
  static Device createSimulatorDevice(const Target &target, const OptionFlags &opts = {});

  /// The same device with only `tilesPerIPU` tiles on each IPU (the first ones), for graphs
  /// built for fewer tiles. It stands for the same IPUs: attaching it conflicts with attaching
  /// this one. Throws `invalid_machine_model` for 0 tiles or more than the device has.
  Device createVirtualDevice(unsigned tilesPerIPU);

  const Target &getTarget() const;
  unsigned getId() const;
  /// Claims the device for this process; false if another handle holds it.
  bool attach() const;
  void detach() const;
  bool isAttached() const;
  /// True: every simulated device keeps remote buffers in the host's memory.
  bool supportsRemoteBuffers() const { return true; }

  // Tessera internals.
  struct Impl;
  explicit Device(std::unique_ptr<Impl> impl);

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace poplar
