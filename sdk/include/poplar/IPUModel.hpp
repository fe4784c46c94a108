// The IPU Model: a configurable description of an IPU simulated on the host.
#pragma once

#include <string>

#include <poplar/Device.hpp>
#include <poplar/Target.hpp>

namespace poplar {

/// Describes an IPU to simulate. Change the public fields, then `createDevice()`.
/// Defaults come from the version: "ipu2" (Mk2, default), "ipu21" (Bow) or "ipu1" (Mk1).
class IPUModel {
public:
  explicit IPUModel(const char *ipuVersion = "ipu2");

  enum class RelativeSyncDelayType { NO_DELAY, AUTO };

  std::string ipuVersion;
  unsigned numIPUs = 1;
  unsigned tilesPerIPU = 1472;
  unsigned numWorkerContexts = 6;
  /// Bytes of memory per tile.
  unsigned memoryBytesPerTile = 624 * 1024;
  /// Tile clock in Hz.
  double tileClockFrequency = 1.33e9;
  unsigned exchangeBytesPerCycle = 4;
  unsigned memcpyBytesPerCycle = 8;
  unsigned dataPathWidth = 64;
  unsigned minIPUSyncDelay = 0;
  unsigned globalSyncCycles = 150;
  RelativeSyncDelayType relativeSyncDelay = RelativeSyncDelayType::AUTO;
  /// Accepted for compatibility; Tessera always runs the full tile engine.
  bool compileIPUCode = false;

  /// A target with these figures; throws `invalid_machine_model` if any figure is impossible.
  Target createTarget() const;
  /// A device with these figures (`opts` accepted for compatibility).
  Device createDevice(OptionFlags opts = {}, bool accurateHalf = false,
                      unsigned deviceManagerId = 0) const;
};

} // namespace poplar
