#include <poplar/Target.hpp>

#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>

namespace poplar {

Target Target::createIPUTarget(unsigned numIPUs, StringRef systemType, const OptionFlags &) {
  IPUModel model(systemType.str().c_str());
  model.numIPUs = numIPUs;
  Target t = model.createTarget();
  t.type_ = TargetType::IPU;
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

bool operator==(const Target &a, const Target &b) {
  return a.type_ == b.type_ && a.arch_ == b.arch_ && a.numIPUs_ == b.numIPUs_ &&
         a.tilesPerIPU_ == b.tilesPerIPU_ && a.numWorkerContexts_ == b.numWorkerContexts_ &&
         a.bytesPerTile_ == b.bytesPerTile_ && a.tileClockHz_ == b.tileClockHz_ &&
         a.dataPathWidthBits_ == b.dataPathWidthBits_ &&
         a.exchangeBytesPerCycle_ == b.exchangeBytesPerCycle_ &&
         a.memcpyBytesPerCycle_ == b.memcpyBytesPerCycle_ && a.syncCycles_ == b.syncCycles_;
}

IPUModel::IPUModel(const char *version) : ipuVersion(version ? version : "ipu2") {
  if (ipuVersion == "ipu1") {
    tilesPerIPU = 1216;
    memoryBytesPerTile = 256 * 1024;
    tileClockFrequency = 1.6e9;
  } else if (ipuVersion == "ipu2") {
    tilesPerIPU = 1472;
    memoryBytesPerTile = 624 * 1024;
    tileClockFrequency = 1.33e9;
  } else if (ipuVersion == "ipu21") {
    tilesPerIPU = 1472;
    memoryBytesPerTile = 624 * 1024;
    tileClockFrequency = 1.85e9;
  } else {
    throw invalid_machine_model("unknown IPU version '" + ipuVersion +
                                "'; expected 'ipu1', 'ipu2' or 'ipu21'");
  }
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
  Target t;
  t.type_ = TargetType::IPU_MODEL;
  t.arch_ = ipuVersion;
  t.numIPUs_ = numIPUs;
  t.tilesPerIPU_ = tilesPerIPU;
  t.numWorkerContexts_ = numWorkerContexts;
  t.bytesPerTile_ = memoryBytesPerTile;
  t.dataPathWidthBits_ = dataPathWidth;
  t.exchangeBytesPerCycle_ = exchangeBytesPerCycle;
  t.memcpyBytesPerCycle_ = memcpyBytesPerCycle;
  t.tileClockHz_ = tileClockFrequency;
  t.syncCycles_ = globalSyncCycles + minIPUSyncDelay;
  return t;
}

Device IPUModel::createDevice(OptionFlags opts, bool, unsigned) const {
  return Device::createSimulatorDevice(createTarget(), opts);
}

} // namespace poplar
