#include <poplar/Target.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <string_view>
#include <tuple>

#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>

#include "core/Suggest.hpp"

namespace poplar {

namespace {

/// A machine name and the IPU architecture it is built from.
struct SystemRow {
  std::string_view name;
  const char *arch;
};
constexpr std::array<SystemRow, 18> kSystems = {{
    {"ipu1", "ipu1"},
    {"ipu2", "ipu2"},
    {"ipu21", "ipu21"},
    {"C2", "ipu1"},
    {"IPU-M2000", "ipu2"},
    {"M2000", "ipu2"},
    {"IPU-POD4", "ipu2"},
    {"IPU-POD16", "ipu2"},
    {"IPU-POD64", "ipu2"},
    {"IPU-POD128", "ipu2"},
    {"IPU-POD256", "ipu2"},
    {"Bow-2000", "ipu21"},
    {"Bow-POD16", "ipu21"},
    {"Bow-POD64", "ipu21"},
    {"Bow-POD256", "ipu21"},
    {"C600", "ipu21"},
    {"_TEST_SYSTEM", "ipu2"},
    {"_VIRTUAL_GRAPH_TEST_16", "ipu2"},
}};

const char *archOfSystem(const std::string &system) {
  for (const auto &row : kSystems)
    if (row.name == system)
      return row.arch;
  std::vector<std::string> names;
  std::string list;
  for (const auto &row : kSystems) {
    names.emplace_back(row.name);
    list += (list.empty() ? "'" : ", '") + std::string(row.name) + "'";
  }
  throw invalid_machine_model("createIPUTarget: unknown system '" + system + "'" +
                              core::didYouMean(system, names) + "; valid systems are " + list);
}

Target targetOfSystem(unsigned numIPUs, const std::string &system) {
  IPUModel model(archOfSystem(system));
  model.numIPUs = numIPUs;
  return model.createTarget();
}

} // namespace

Target Target::createIPUTarget(unsigned numIPUs, StringRef system, const OptionFlags &) {
  Target t = targetOfSystem(numIPUs, system.str());
  t.type_ = TargetType::IPU;
  t.system_ = system.str();
  return t;
}

Target Target::createIPUTarget(unsigned numIPUs, unsigned tilesPerIPU, StringRef system,
                               const OptionFlags &opts) {
  if (tilesPerIPU == 0)
    throw invalid_machine_model("createIPUTarget: tilesPerIPU must be at least 1 (system '" +
                                system.str() + "')");
  Target t = createIPUTarget(numIPUs, system, opts);
  t.tilesPerIPU_ = tilesPerIPU;
  return t;
}

Target Target::createCPUTarget(bool, unsigned numIPUs) {
  Target t;
  t.type_ = TargetType::CPU;
  t.arch_ = "cpu";
  t.numIPUs_ = numIPUs == 0 ? 1 : numIPUs;
  t.tilesPerIPU_ = 1;
  t.numWorkerContexts_ = 1;
  t.bytesPerTile_ = std::uint64_t(1) << 40;
  return t;
}

unsigned Target::getTypeSize(const Type &t) const {
  if (!t.isValid())
    throw type_error("getTypeSize of an invalid type");
  return static_cast<unsigned>(t.size());
}

unsigned Target::getVectorWidth(const Type &t) const {
  return dataPathWidthBits_ / (8 * getTypeSize(t));
}

namespace {
bool isEightBitFloat(const Type &t) {
  return t == QUARTER || t == UNSIGNED_CHAR || t == CHAR || t == SIGNED_CHAR;
}

[[noreturn]] void noConvUnits(const char *what, const Type &t) {
  throw type_error(std::string("Target::") + what + ": no convolution unit takes " +
                   t.toString() + " (FLOAT, HALF or an 8-bit type)");
}
} // namespace

unsigned Target::getWeightsPerConvUnit(const Type &type) const {
  if (type == FLOAT)
    return fp32ConvUnitMaxPipelineDepth_;
  if (type == HALF)
    return fp16ConvUnitMaxPipelineDepth_;
  if (isEightBitFloat(type))
    return fp8ConvUnitMaxPipelineDepth_;
  noConvUnits("getWeightsPerConvUnit", type);
}

unsigned Target::getConvUnitInputLoadElemsPerCycle(const Type &type) const {
  if (type == FLOAT)
    return fp32ConvUnitInputLoadElems_;
  if (type == HALF)
    return fp16ConvUnitInputLoadElems_;
  if (isEightBitFloat(type))
    return fp8ConvUnitInputLoadElems_;
  noConvUnits("getConvUnitInputLoadElemsPerCycle", type);
}

unsigned Target::getConvUnitMaxPipelineDepth(const Type &partialsType) const {
  if (partialsType == FLOAT)
    return fp32ConvUnitMaxPipelineDepth_;
  if (partialsType == HALF)
    return fp16ConvUnitMaxPipelineDepth_;
  noConvUnits("getConvUnitMaxPipelineDepth", partialsType);
}

unsigned Target::getNumConvUnits(const Type &activationsType, const Type &partialsType) const {
  if (activationsType == FLOAT && partialsType == FLOAT)
    return fp32InFp32OutConvUnits_;
  if (activationsType == HALF && partialsType == HALF)
    return fp16InFp16OutConvUnits_;
  if (activationsType == HALF && partialsType == FLOAT)
    return fp16InFp32OutConvUnits_;
  if (isEightBitFloat(activationsType) && partialsType == HALF)
    return fp8InFp16OutConvUnits_;
  throw type_error("Target::getNumConvUnits: no convolution unit takes " +
                   activationsType.toString() + " in and gives " + partialsType.toString() +
                   " out");
}

// ---- type limits ----------------------------------------------------------------------------

namespace {

/// Largest and lowest finite values of `t` as long doubles (exact for every type here).
struct Limits {
  long double lowest;
  long double max;
};

Limits limitsOf(const Type &t) {
  switch (t.id()) {
  case TypeId::Float:
    return {std::numeric_limits<float>::lowest(), std::numeric_limits<float>::max()};
  case TypeId::Half:
    return {-65504.0L, 65504.0L};
  case TypeId::Double:
    return {std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max()};
#define TESSERA_LIMITS(ID, CXX)                                                                    \
  case TypeId::ID:                                                                                 \
    return {static_cast<long double>(std::numeric_limits<CXX>::lowest()),                         \
            static_cast<long double>(std::numeric_limits<CXX>::max())};
    TESSERA_LIMITS(Int, int)
    TESSERA_LIMITS(UnsignedInt, unsigned)
    TESSERA_LIMITS(Short, short)
    TESSERA_LIMITS(UnsignedShort, unsigned short)
    TESSERA_LIMITS(Char, char)
    TESSERA_LIMITS(SignedChar, signed char)
    TESSERA_LIMITS(UnsignedChar, unsigned char)
    TESSERA_LIMITS(Bool, bool)
    TESSERA_LIMITS(LongLong, long long)
    TESSERA_LIMITS(UnsignedLongLong, unsigned long long)
    TESSERA_LIMITS(Long, long)
    TESSERA_LIMITS(UnsignedLong, unsigned long)
#undef TESSERA_LIMITS
  case TypeId::Quarter:
  case TypeId::QuarterMetadata:
    throw type_error("type limits of " + t.toString() +
                     ": a QUARTER's range depends on its metadata (format and scale)");
  case TypeId::Invalid:
    break;
  }
  throw type_error("type limits of an invalid type");
}

template <class T> T exactly(long double v, const Type &t, const char *which) {
  const bool fits = v >= static_cast<long double>(std::numeric_limits<T>::lowest()) &&
                    v <= static_cast<long double>(std::numeric_limits<T>::max()) &&
                    static_cast<long double>(static_cast<T>(v)) == v;
  if (!fits)
    throw poplar_error(std::string("Target::getTypeLimits") + which + "As: the " +
                       (which[0] == 'M' ? "largest" : "lowest") + " value of " + t.toString() +
                       " is not exactly representable in the requested host type");
  return static_cast<T>(v);
}

} // namespace

template <> double Target::getTypeLimitsMaxAs<double>(const Type &t) const {
  return exactly<double>(limitsOf(t).max, t, "Max");
}
template <> std::int64_t Target::getTypeLimitsMaxAs<std::int64_t>(const Type &t) const {
  return exactly<std::int64_t>(limitsOf(t).max, t, "Max");
}
template <> std::uint64_t Target::getTypeLimitsMaxAs<std::uint64_t>(const Type &t) const {
  return exactly<std::uint64_t>(limitsOf(t).max, t, "Max");
}
template <> double Target::getTypeLimitsLowestAs<double>(const Type &t) const {
  return exactly<double>(limitsOf(t).lowest, t, "Lowest");
}
template <> std::int64_t Target::getTypeLimitsLowestAs<std::int64_t>(const Type &t) const {
  return exactly<std::int64_t>(limitsOf(t).lowest, t, "Lowest");
}
template <> std::uint64_t Target::getTypeLimitsLowestAs<std::uint64_t>(const Type &t) const {
  return exactly<std::uint64_t>(limitsOf(t).lowest, t, "Lowest");
}

// ---- identity -------------------------------------------------------------------------------

Target Target::createVirtualTarget(unsigned numIPUs, unsigned tilesPerIPU) const {
  if (numIPUs == 0 || tilesPerIPU == 0)
    throw invalid_machine_model("createVirtualTarget needs at least one IPU and one tile, got " +
                                std::to_string(numIPUs) + " IPUs of " +
                                std::to_string(tilesPerIPU) + " tiles");
  Target t = *this;
  t.numIPUs_ = numIPUs;
  t.tilesPerIPU_ = tilesPerIPU;
  return t;
}

namespace {
/// The figures that make two targets compile differently, in one tuple-like list.
auto figures(const Target &t) {
  return std::make_tuple(t.getTargetType(), t.getTargetArchString(), t.getNumIPUs(),
                         t.getTilesPerIPU(), t.getNumWorkerContexts(), t.getBytesPerTile(),
                         t.getTileClockFrequency(), t.getDataPathWidth(),
                         t.getExchangeBytesPerCycle(), t.getMemcpyBytesPerCycle(),
                         t.getSyncCycles());
}
} // namespace

bool operator==(const Target &a, const Target &b) { return figures(a) == figures(b); }
bool operator<(const Target &a, const Target &b) { return figures(a) < figures(b); }

std::size_t Target::hash() const {
  std::size_t h = std::hash<std::string>()(arch_);
  auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  mix(static_cast<std::size_t>(type_));
  mix(numIPUs_);
  mix(tilesPerIPU_);
  mix(numWorkerContexts_);
  mix(static_cast<std::size_t>(bytesPerTile_));
  mix(std::hash<double>()(tileClockHz_));
  mix(dataPathWidthBits_);
  mix(exchangeBytesPerCycle_);
  mix(memcpyBytesPerCycle_);
  mix(syncCycles_);
  return h;
}

// ---- IPUModel -------------------------------------------------------------------------------

IPUModel::IPUModel(const char *version) : IPUVersion(version ? version : "ipu2") {
  if (IPUVersion == "ipu1") {
    tilesPerIPU = 1216;
    memoryBytesPerTile = 256 * 1024;
    tileClockFrequency = 1.6e9;
    fp16InFp16OutConvUnitsPerTile = 8;
    fp16InFp32OutConvUnitsPerTile = 8;
    fp32InFp32OutConvUnitsPerTile = 4;
    fp8InFp16OutConvUnitsPerTile = 8;
  } else if (IPUVersion == "ipu2") {
    tilesPerIPU = 1472;
    memoryBytesPerTile = 624 * 1024;
    tileClockFrequency = 1.33e9;
  } else if (IPUVersion == "ipu21") {
    tilesPerIPU = 1472;
    memoryBytesPerTile = 624 * 1024;
    tileClockFrequency = 1.85e9;
  } else {
    throw invalid_machine_model("unknown IPU version '" + IPUVersion +
                                "'; expected 'ipu1', 'ipu2' or 'ipu21'" +
                                core::didYouMean(IPUVersion, {"ipu1", "ipu2", "ipu21"}));
  }
  // Memory elements of 64 KiB; on Mk2 the upper half of the tile's memory is interleaved.
  for (std::uint64_t at = 0; at < memoryBytesPerTile; at += 64 * 1024)
    memoryElementOffsets.push_back(at);
  interleavedMemoryElementIndex = IPUVersion == "ipu1"
                                      ? static_cast<unsigned>(memoryElementOffsets.size())
                                      : static_cast<unsigned>(memoryElementOffsets.size() / 2);
}

Target IPUModel::createTarget() const {
  auto bad = [](const std::string &what) { throw invalid_machine_model("IPUModel: " + what); };
  if (numIPUs == 0)
    bad("numIPUs must be at least 1");
  if (tilesPerIPU == 0)
    bad("tilesPerIPU must be at least 1");
  if (numWorkerContexts == 0)
    bad("numWorkerContexts must be at least 1");
  if (memoryBytesPerTile == 0)
    bad("memoryBytesPerTile must be non-zero");
  if (!(tileClockFrequency > 0))
    bad("tileClockFrequency must be positive");
  if (exchangeBytesPerCycle == 0)
    bad("exchangeBytesPerCycle must be non-zero");
  if (memcpyBytesPerCycle == 0)
    bad("memcpyBytesPerCycle must be non-zero");
  if (dataPathWidth == 0 || dataPathWidth % 8 != 0)
    bad("dataPathWidth must be a positive multiple of 8 bits");
  for (const auto &c : globalExchangeConstraints) {
    if (!(c.bandwidth > 0))
      bad("a global exchange constraint's bandwidth must be positive");
    for (const auto &f : c.flows)
      if (f.src >= numIPUs || f.dst >= numIPUs)
        bad("a global exchange flow names IPU " + std::to_string(std::max(f.src, f.dst)) +
            " of a model with " + std::to_string(numIPUs) + " IPUs");
  }
  Target t;
  t.type_ = TargetType::IPU_MODEL;
  t.arch_ = IPUVersion;
  t.numIPUs_ = numIPUs;
  t.tilesPerIPU_ = tilesPerIPU;
  t.numWorkerContexts_ = numWorkerContexts;
  t.bytesPerTile_ = memoryBytesPerTile;
  t.dataPathWidthBits_ = dataPathWidth;
  t.exchangeBytesPerCycle_ = exchangeBytesPerCycle;
  t.memcpyBytesPerCycle_ = memcpyBytesPerCycle;
  t.tileClockHz_ = tileClockFrequency;
  t.syncCycles_ = globalSyncCycles + minIPUSyncDelay;
  t.globalSyncCycles_ = globalSyncCycles;
  t.minIPUSyncDelay_ = minIPUSyncDelay;
  t.fp8ConvUnitInputLoadElems_ = fp8ConvUnitInputLoadElemsPerCycle;
  t.fp16ConvUnitInputLoadElems_ = fp16ConvUnitInputLoadElemsPerCycle;
  t.fp32ConvUnitInputLoadElems_ = fp32ConvUnitInputLoadElemsPerCycle;
  t.fp8ConvUnitMaxPipelineDepth_ = fp8ConvUnitMaxPipelineDepth;
  t.fp16ConvUnitMaxPipelineDepth_ = fp16ConvUnitMaxPipelineDepth;
  t.fp32ConvUnitMaxPipelineDepth_ = fp32ConvUnitMaxPipelineDepth;
  t.fp8InFp16OutConvUnits_ = fp8InFp16OutConvUnitsPerTile;
  t.fp16InFp16OutConvUnits_ = fp16InFp16OutConvUnitsPerTile;
  t.fp16InFp32OutConvUnits_ = fp16InFp32OutConvUnitsPerTile;
  t.fp32InFp32OutConvUnits_ = fp32InFp32OutConvUnitsPerTile;
  t.convUnitCoeffLoadBytes_ = convUnitCoeffLoadBytesPerCycle;
  t.memoryElements_ = memoryElementOffsets;
  t.interleavedMemoryElementIndex_ = interleavedMemoryElementIndex;
  t.globalExchangeConstraints_ = globalExchangeConstraints;
  return t;
}

Device IPUModel::createDevice(OptionFlags opts, bool, unsigned) const {
  return Device::createSimulatorDevice(createTarget(), opts);
}

bool operator==(const IPUModel &a, const IPUModel &b) {
  auto members = [](const IPUModel &m) {
    return std::make_tuple(
        m.IPUVersion, m.numIPUs, m.tilesPerSuperTile, m.tilesPerIPU, m.numWorkerContexts,
        m.memoryBytesPerTile, m.tileClockFrequency, m.exchangeBytesPerCycle,
        m.memcpyBytesPerCycle, m.instructionBytes, m.supportsSuperTileSendReceive,
        m.memoryElementOffsets, m.interleavedMemoryElementIndex, m.dataPathWidth,
        m.minIPUSyncDelay, m.globalSyncCycles, m.relativeSyncDelay, m.globalExchangeConstraints,
        m.fp8ConvUnitInputLoadElemsPerCycle, m.fp16ConvUnitInputLoadElemsPerCycle,
        m.fp32ConvUnitInputLoadElemsPerCycle, m.fp8ConvUnitMaxPipelineDepth,
        m.fp16ConvUnitMaxPipelineDepth, m.fp32ConvUnitMaxPipelineDepth,
        m.fp8InFp16OutConvUnitsPerTile, m.fp16InFp16OutConvUnitsPerTile,
        m.fp16InFp32OutConvUnitsPerTile, m.fp32InFp32OutConvUnitsPerTile,
        m.convUnitCoeffLoadBytesPerCycle, m.compileIPUCode);
  };
  return members(a) == members(b);
}

} // namespace poplar
