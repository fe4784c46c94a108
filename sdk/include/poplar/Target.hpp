// The machine a graph is built for: tiles, memory, workers, clocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <poplar/OptionFlags.hpp>
#include <poplar/StringRef.hpp>
#include <poplar/TargetType.hpp>
#include <poplar/Type.hpp>

namespace poplar {

/// The figures of one (simulated) machine. Immutable once made; cheap to copy.
/// Defaults describe a Mk2 IPU (GC200): 1472 tiles × 624 KiB, 6 worker contexts, 1.33 GHz.
class Target {
public:
  /// An invalid target; use one of the `create…` functions or `Device::getTarget()`.
  Target() = default;

  /// A target of `numIPUs` IPUs of `systemType` ("ipu1", "ipu2" or "ipu21").
  static Target createIPUTarget(unsigned numIPUs, StringRef systemType,
                                const OptionFlags &opts = {});
  static Target createIPUTarget(StringRef systemType, const OptionFlags &opts = {}) {
    return createIPUTarget(1, systemType, opts);
  }
  /// A one-tile target whose tile has effectively unlimited memory (as Poplar's CPU target).
  static Target createCPUTarget(bool accurateHalf = false, unsigned numIPUs = 1);

  TargetType getTargetType() const { return type_; }
  /// "ipu1", "ipu2", "ipu21" or "cpu".
  const std::string &getTargetArchString() const { return arch_; }
  const std::string &getTargetSystemString() const { return arch_; }
  unsigned getNumIPUs() const { return numIPUs_; }
  unsigned getTilesPerIPU() const { return tilesPerIPU_; }
  unsigned getNumTiles() const { return numIPUs_ * tilesPerIPU_; }
  unsigned getNumWorkerContexts() const { return numWorkerContexts_; }
  /// Bytes of memory on each tile; the compiler refuses graphs that need more.
  std::uint64_t getBytesPerTile() const { return bytesPerTile_; }
  std::uint64_t getMemoryBytes() const { return bytesPerTile_ * getNumTiles(); }
  /// Width of the tile's load/store data path in bits (64 on Mk1/Mk2).
  unsigned getDataPathWidth() const { return dataPathWidthBits_; }
  /// Elements of `t` processed per cycle per worker by the vector unit.
  unsigned getVectorWidth(const Type &t) const;
  /// Bytes of one element of `t`.
  unsigned getTypeSize(const Type &t) const;
  /// Bytes every tile can send per cycle over the exchange.
  unsigned getExchangeBytesPerCycle() const { return exchangeBytesPerCycle_; }
  unsigned getMemcpyBytesPerCycle() const { return memcpyBytesPerCycle_; }
  /// Smallest store that does not disturb neighbouring bytes.
  unsigned getAtomicStoreGranularity() const { return 4; }
  /// Tile clock in Hz.
  double getTileClockFrequency() const { return tileClockHz_; }
  /// Cycles a global BSP synchronisation costs (cost model input).
  unsigned getSyncCycles() const { return syncCycles_; }
  bool isValid() const { return numIPUs_ != 0; }

  /// A target with the same tile figures but `numIPUs` IPUs of `tilesPerIPU` tiles.
  Target createVirtualTarget(unsigned numIPUs, unsigned tilesPerIPU) const;

  friend bool operator==(const Target &a, const Target &b);
  friend bool operator!=(const Target &a, const Target &b) { return !(a == b); }

private:
  friend class IPUModel;
  TargetType type_ = TargetType::IPU;
  std::string arch_;
  unsigned numIPUs_ = 0;
  unsigned tilesPerIPU_ = 0;
  unsigned numWorkerContexts_ = 6;
  std::uint64_t bytesPerTile_ = 0;
  unsigned dataPathWidthBits_ = 64;
  unsigned exchangeBytesPerCycle_ = 4;
  unsigned memcpyBytesPerCycle_ = 8;
  double tileClockHz_ = 1.33e9;
  unsigned syncCycles_ = 150;
};

/// Converts `numElements` floats to IEEE half precision as the device stores them.
void copyFloatToDeviceHalf(const Target &target, const float *src, void *dst,
                           std::size_t numElements);
/// Converts `numElements` device halves to floats.
void copyDeviceHalfToFloat(const Target &target, const void *src, float *dst,
                           std::size_t numElements);

} // namespace poplar
