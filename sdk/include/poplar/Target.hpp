// The machine a graph is built for: tiles, memory, workers, clocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <poplar/GlobalExchangeConstraints.hpp>
#include <poplar/IpuLinkConfiguration.hpp>
#include <poplar/IpuLinkTopology.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/StringRef.hpp>
#include <poplar/TargetType.hpp>
#include <poplar/Type.hpp>

namespace poplar {

/// The figures of one (simulated) machine. Immutable once made; cheap to copy.
/// Defaults describe a Mk2 IPU (GC200): 1472 tiles × 624 KiB, 6 worker contexts, 1.33 GHz.
///
/// Systems (`createIPUTarget`'s `system` argument): an architecture — "ipu1" (Mk1, GC2),
/// "ipu2" (Mk2, GC200), "ipu21" (Bow) — or the name of a machine built from one: "C2" (ipu1);
/// "IPU-M2000", "M2000", "IPU-POD4", "IPU-POD16", "IPU-POD64", "IPU-POD128", "IPU-POD256"
/// (ipu2); "Bow-2000", "Bow-POD16", "Bow-POD64", "Bow-POD256", "C600" (ipu21); and the test
/// systems PopLibs' own tests name, "_TEST_SYSTEM" and "_VIRTUAL_GRAPH_TEST_16" (ipu2). The
/// machine's name is kept (getTargetSystemString) and its IPUs' figures are used; the number
/// of IPUs is always the `numIPUs` argument. Anything else throws `invalid_machine_model`
/// listing the valid names.
class Target {
public:
  /// An invalid target; use one of the `create…` functions or `Device::getTarget()`.
  Target() = default;

  /// A target of `numIPUs` IPUs of `system` (see above). Options are accepted for compatibility
  /// (hardware link configuration has no CPU counterpart).
  static Target createIPUTarget(unsigned numIPUs, StringRef system, const OptionFlags &opts = {});
  /// The same with `tilesPerIPU` tiles on each IPU (a "virtual" IPU with fewer tiles, as PopLibs'
  /// tests use: every other figure is the system's).
  static Target createIPUTarget(unsigned numIPUs, unsigned tilesPerIPU, StringRef system,
                                const OptionFlags &opts = {});
  static Target createIPUTarget(StringRef system, const OptionFlags &opts = {}) {
    return createIPUTarget(1, system, opts);
  }
  /// A one-tile target whose tile has effectively unlimited memory (as Poplar's CPU target).
  static Target createCPUTarget(bool accurateHalf = false, unsigned numIPUs = 1);

  TargetType getTargetType() const { return type_; }
  /// "ipu1", "ipu2", "ipu21" or "cpu".
  const std::string &getTargetArchString() const { return arch_; }
  /// The system the target was created for ("IPU-POD16", …); the architecture when none was
  /// named.
  const std::string &getTargetSystemString() const { return system_.empty() ? arch_ : system_; }
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
  unsigned getFloatVectorWidth() const { return getVectorWidth(FLOAT); }
  unsigned getHalfVectorWidth() const { return getVectorWidth(HALF); }
  /// 8-bit floats: one byte each.
  unsigned getQuarterVectorWidth() const { return dataPathWidthBits_ / 8; }
  /// Bytes of one element of `t`.
  unsigned getTypeSize(const Type &t) const;
  /// Bytes every tile can send per cycle over the exchange.
  unsigned getExchangeBytesPerCycle() const { return exchangeBytesPerCycle_; }
  unsigned getMemcpyBytesPerCycle() const { return memcpyBytesPerCycle_; }
  /// Smallest store that does not disturb neighbouring bytes.
  unsigned getAtomicStoreGranularity() const { return 4; }
  /// Tile clock in Hz.
  double getTileClockFrequency() const { return tileClockHz_; }
  /// Cycles a global BSP synchronisation costs (cost model input): the global sync cycles plus
  /// the smallest IPU sync delay.
  unsigned getSyncCycles() const { return syncCycles_; }
  unsigned getGlobalSyncCycles() const { return globalSyncCycles_; }
  unsigned getMinIPUSyncDelay() const { return minIPUSyncDelay_; }
  /// The sync delay of the tile furthest from the sync controller.
  unsigned getMaxIPUSyncDelay() const { return minIPUSyncDelay_ + tilesPerIPU_ / 64; }
  bool isValid() const { return numIPUs_ != 0; }

  // The tile's arithmetic units as PopLibs' planners ask about them. Tessera's codelets run on
  // the host's SIMD units, so these only describe the simulated IPU (they come from IPUModel).
  /// Weights one convolution unit holds for activations of `type` (HALF, FLOAT or QUARTER-like
  /// 8-bit types).
  unsigned getWeightsPerConvUnit(const Type &type) const;
  /// The older form: FLOAT activations when true, HALF when false.
  unsigned getWeightsPerConvUnit(bool floatActivations) const {
    return getWeightsPerConvUnit(floatActivations ? FLOAT : HALF);
  }
  unsigned getConvUnitInputLoadElemsPerCycle(const Type &type) const;
  unsigned getConvUnitMaxPipelineDepth(const Type &partialsType) const;
  /// Convolution units per tile for `activationsType` in and `partialsType` out.
  unsigned getNumConvUnits(const Type &activationsType, const Type &partialsType) const;
  unsigned getFp16ConvUnitMaxPipelineDepth() const { return fp16ConvUnitMaxPipelineDepth_; }
  unsigned getFp32ConvUnitMaxPipelineDepth() const { return fp32ConvUnitMaxPipelineDepth_; }
  unsigned getFp16ConvUnitInputLoadElemsPerCycle() const { return fp16ConvUnitInputLoadElems_; }
  unsigned getFp32ConvUnitInputLoadElemsPerCycle() const { return fp32ConvUnitInputLoadElems_; }
  unsigned getFp16InFp16OutConvUnitsPerTile() const { return fp16InFp16OutConvUnits_; }
  unsigned getFp16InFp32OutConvUnitsPerTile() const { return fp16InFp32OutConvUnits_; }
  unsigned getFp32InFp32OutConvUnitsPerTile() const { return fp32InFp32OutConvUnits_; }
  unsigned getConvUnitCoeffLoadBytesPerCycle() const { return convUnitCoeffLoadBytes_; }
  /// Largest count a hardware repeat loop takes (planners split longer loops).
  unsigned getRptCountMax() const { return 4095; }
  /// Bits of a strided load's stride field.
  unsigned getNumStrideBits() const { return 10; }
  /// Start offsets of the tile's memory elements (banks); the interleaved region starts at
  /// getInterleavedMemoryElementIndex() (past the end: none).
  const std::vector<std::uint64_t> &getMemoryElementOffsets() const { return memoryElements_; }
  unsigned getInterleavedMemoryElementIndex() const { return interleavedMemoryElementIndex_; }
  bool supportsExchangeBusSharing() const { return true; }
  unsigned getTilesPerSharedExchangeBus() const { return 2; }
  /// The links between IPUs an IPUModel described (empty for other targets).
  const std::vector<GlobalExchangeConstraint> &getGlobalExchangeConstraints() const {
    return globalExchangeConstraints_;
  }
  IpuLinkConfiguration getIpuLinkConfiguration() const { return IpuLinkConfiguration::Default; }
  IpuLinkTopology getIpuLinkTopology() const { return IpuLinkTopology::Mesh; }
  /// IPUs reachable over IPU-Links without a gateway: the whole target here.
  unsigned getIpuLinkDomainSize() const { return numIPUs_; }
  unsigned getInstanceSize() const { return numIPUs_; }
  bool getGatewayMode() const { return false; }

  /// The largest finite value of `t` as a host `T`; throws `poplar_error` when `T` cannot hold
  /// it exactly. Specialised for double, std::int64_t and std::uint64_t.
  template <class T> T getTypeLimitsMaxAs(const Type &t) const;
  /// The lowest finite value of `t` as a host `T`, with the same rules.
  template <class T> T getTypeLimitsLowestAs(const Type &t) const;

  /// A target with the same tile figures but `numIPUs` IPUs of `tilesPerIPU` tiles.
  Target createVirtualTarget(unsigned numIPUs, unsigned tilesPerIPU) const;

  std::size_t hash() const;
  friend bool operator==(const Target &a, const Target &b);
  friend bool operator!=(const Target &a, const Target &b) { return !(a == b); }
  /// An arbitrary but fixed order, so targets can key ordered containers.
  friend bool operator<(const Target &a, const Target &b);

private:
  friend class IPUModel;
  TargetType type_ = TargetType::IPU;
  std::string arch_;
  std::string system_;
  unsigned numIPUs_ = 0;
  unsigned tilesPerIPU_ = 0;
  unsigned numWorkerContexts_ = 6;
  std::uint64_t bytesPerTile_ = 0;
  unsigned dataPathWidthBits_ = 64;
  unsigned exchangeBytesPerCycle_ = 4;
  unsigned memcpyBytesPerCycle_ = 8;
  double tileClockHz_ = 1.33e9;
  unsigned syncCycles_ = 150;
  unsigned globalSyncCycles_ = 150;
  unsigned minIPUSyncDelay_ = 0;
  unsigned fp8ConvUnitInputLoadElems_ = 8;
  unsigned fp16ConvUnitInputLoadElems_ = 4;
  unsigned fp32ConvUnitInputLoadElems_ = 2;
  unsigned fp8ConvUnitMaxPipelineDepth_ = 16;
  unsigned fp16ConvUnitMaxPipelineDepth_ = 16;
  unsigned fp32ConvUnitMaxPipelineDepth_ = 8;
  unsigned fp8InFp16OutConvUnits_ = 16;
  unsigned fp16InFp16OutConvUnits_ = 16;
  unsigned fp16InFp32OutConvUnits_ = 8;
  unsigned fp32InFp32OutConvUnits_ = 8;
  unsigned convUnitCoeffLoadBytes_ = 16;
  std::vector<std::uint64_t> memoryElements_;
  unsigned interleavedMemoryElementIndex_ = 0;
  std::vector<GlobalExchangeConstraint> globalExchangeConstraints_;
};

template <> double Target::getTypeLimitsMaxAs<double>(const Type &t) const;
template <> std::int64_t Target::getTypeLimitsMaxAs<std::int64_t>(const Type &t) const;
template <> std::uint64_t Target::getTypeLimitsMaxAs<std::uint64_t>(const Type &t) const;
template <> double Target::getTypeLimitsLowestAs<double>(const Type &t) const;
template <> std::int64_t Target::getTypeLimitsLowestAs<std::int64_t>(const Type &t) const;
template <> std::uint64_t Target::getTypeLimitsLowestAs<std::uint64_t>(const Type &t) const;

/// Converts `numElements` floats to IEEE half precision as the device stores them.
void copyFloatToDeviceHalf(const Target &target, const float *src, void *dst,
                           std::size_t numElements);
/// Converts `numElements` device halves to floats.
void copyDeviceHalfToFloat(const Target &target, const void *src, float *dst,
                           std::size_t numElements);
/// Converts `numElements` doubles to device halves, each rounded once to the nearest half.
void copyDoubleToDeviceHalf(const Target &target, const double *src, void *dst,
                            std::size_t numElements);
/// Converts `numElements` device halves to doubles (exact).
void copyDeviceHalfToDouble(const Target &target, const void *src, double *dst,
                            std::size_t numElements);

} // namespace poplar

namespace std {
template <> struct hash<poplar::Target> {
  size_t operator()(const poplar::Target &t) const { return t.hash(); }
};
} // namespace std
