// The IPU Model: a configurable description of an IPU simulated on the host.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <poplar/Device.hpp>
#include <poplar/GlobalExchangeConstraints.hpp>
#include <poplar/Target.hpp>

namespace poplar {

/// Describes an IPU to simulate. Change the public members, then `createDevice()`.
/// Defaults come from the version: "ipu2" (Mk2, default), "ipu21" (Bow) or "ipu1" (Mk1).
///
/// Every member is carried into the Target. Tessera's engine runs the graph on the host, so the
/// members that describe hardware the host does not have (convolution units, supertiles,
/// instruction size, links between IPUs) only answer the Target's queries — PopLibs' planners
/// read them — and do not change results. The tile count, memory per tile, worker contexts,
/// clock and exchange/sync figures shape compilation and the cost model.
class IPUModel {
public:
  explicit IPUModel(const char *IPUVersion = "ipu2");

  enum class RelativeSyncDelayType { NO_DELAY, AUTO };

  /// "ipu1", "ipu2" or "ipu21"; fixed by the constructor (changing it afterwards does not change
  /// the other members).
  std::string IPUVersion;
  unsigned numIPUs = 1;
  unsigned tilesPerSuperTile = 2;
  unsigned tilesPerIPU = 1472;
  unsigned numWorkerContexts = 6;
  /// Bytes of memory per tile.
  unsigned memoryBytesPerTile = 624 * 1024;
  /// Tile clock in Hz.
  double tileClockFrequency = 1.33e9;
  unsigned exchangeBytesPerCycle = 4;
  unsigned memcpyBytesPerCycle = 8;
  unsigned instructionBytes = 4;
  bool supportsSuperTileSendReceive = true;
  /// Start offsets of the tile's memory elements and the index of the first interleaved one.
  std::vector<std::uint64_t> memoryElementOffsets;
  unsigned interleavedMemoryElementIndex = 0;
  unsigned dataPathWidth = 64;
  unsigned minIPUSyncDelay = 0;
  unsigned globalSyncCycles = 150;
  RelativeSyncDelayType relativeSyncDelay = RelativeSyncDelayType::AUTO;
  /// Bandwidth limits on the links between IPUs (kept with the target, not priced).
  std::vector<GlobalExchangeConstraint> globalExchangeConstraints;
  // Convolution units (see Target::getNumConvUnits and friends).
  unsigned fp8ConvUnitInputLoadElemsPerCycle = 8;
  unsigned fp16ConvUnitInputLoadElemsPerCycle = 4;
  unsigned fp32ConvUnitInputLoadElemsPerCycle = 2;
  unsigned fp8ConvUnitMaxPipelineDepth = 16;
  unsigned fp16ConvUnitMaxPipelineDepth = 16;
  unsigned fp32ConvUnitMaxPipelineDepth = 8;
  unsigned fp8InFp16OutConvUnitsPerTile = 16;
  unsigned fp16InFp16OutConvUnitsPerTile = 16;
  unsigned fp16InFp32OutConvUnitsPerTile = 8;
  unsigned fp32InFp32OutConvUnitsPerTile = 8;
  unsigned convUnitCoeffLoadBytesPerCycle = 16;
  /// Accepted for compatibility; Tessera always runs the full tile engine.
  bool compileIPUCode = false;

  /// A target with these figures; throws `invalid_machine_model` if any figure is impossible.
  Target createTarget() const;
  /// A device with these figures (`opts` accepted for compatibility).
  Device createDevice(OptionFlags opts = {}, bool accurateHalf = false,
                      unsigned deviceManagerId = std::numeric_limits<unsigned>::max()) const;

  friend bool operator==(const IPUModel &a, const IPUModel &b);
  friend bool operator!=(const IPUModel &a, const IPUModel &b) { return !(a == b); }
};

} // namespace poplar
