// Types, Targets, the IPU Model, Devices and the DeviceManager, and the host <-> device half
// conversions checked against known IEEE binary16 bit patterns.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <sstream>
#include <vector>

#include <poplar/Device.hpp>
#include <poplar/DeviceManager.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Target.hpp>

#include "ErrorMatchers.hpp"

using namespace poplar;

// ---- Type ---------------------------------------------------------------------------------------

TEST(Types, SizesAndPoplarSpellings) {
  struct Row {
    Type type;
    std::size_t size;
    const char *name;
  };
  const Row rows[] = {{FLOAT, 4, "float"},
                      {HALF, 2, "half"},
                      {INT, 4, "int"},
                      {UNSIGNED_INT, 4, "unsigned int"},
                      {SHORT, 2, "short"},
                      {UNSIGNED_SHORT, 2, "unsigned short"},
                      {CHAR, 1, "char"},
                      {SIGNED_CHAR, 1, "signed char"},
                      {UNSIGNED_CHAR, 1, "unsigned char"},
                      {BOOL, 1, "bool"},
                      {LONGLONG, 8, "long long"},
                      {UNSIGNED_LONGLONG, 8, "unsigned long long"}};
  for (const auto &r : rows) {
    EXPECT_EQ(r.type.size(), r.size) << r.name;
    EXPECT_EQ(r.type.toString(), r.name);
    std::ostringstream os;
    os << r.type;
    EXPECT_EQ(os.str(), r.name);
    EXPECT_TRUE(r.type.isValid());
    EXPECT_EQ(r.type.isFloatingPoint(), r.type == FLOAT || r.type == HALF) << r.name;
  }
  EXPECT_FALSE(Type().isValid());
  EXPECT_NE(FLOAT, HALF);
}

TEST(Types, EquivalentDeviceTypeMatchesHostSizes) {
  EXPECT_EQ(equivalent_device_type<float>::value, FLOAT);
  EXPECT_EQ(equivalent_device_type<int>::value, INT);
  EXPECT_EQ(equivalent_device_type<unsigned>::value, UNSIGNED_INT);
  EXPECT_EQ(equivalent_device_type<bool>::value, BOOL);
  EXPECT_EQ(equivalent_device_type<long long>::value, LONGLONG);
  EXPECT_EQ(equivalent_device_type<unsigned char>::value.size(), sizeof(unsigned char));
  EXPECT_EQ(equivalent_device_type<short>::value.size(), sizeof(short));
  EXPECT_EQ(equivalent_device_type<unsigned long long>::value.size(), sizeof(unsigned long long));
}

// ---- IPUModel and Target -----------------------------------------------------------------------

TEST(IPUModelDefaults, Mk2Is1472TilesOf624KiBWith6Workers) {
  IPUModel model;
  EXPECT_EQ(model.IPUVersion, "ipu2");
  Target t = model.createTarget();
  EXPECT_EQ(t.getTargetType(), TargetType::IPU_MODEL);
  EXPECT_EQ(t.getTargetArchString(), "ipu2");
  EXPECT_EQ(t.getNumIPUs(), 1u);
  EXPECT_EQ(t.getTilesPerIPU(), 1472u);
  EXPECT_EQ(t.getNumTiles(), 1472u);
  EXPECT_EQ(t.getBytesPerTile(), 624u * 1024u);
  EXPECT_EQ(t.getMemoryBytes(), 1472ull * 624u * 1024u);
  EXPECT_EQ(t.getNumWorkerContexts(), 6u);
  EXPECT_EQ(t.getDataPathWidth(), 64u);
  EXPECT_DOUBLE_EQ(t.getTileClockFrequency(), 1.33e9);
  EXPECT_EQ(t.getAtomicStoreGranularity(), 4u);
  EXPECT_TRUE(t.isValid());
}

TEST(IPUModelDefaults, Ipu1HasFewerSmallerTiles) {
  Target t = IPUModel("ipu1").createTarget();
  EXPECT_EQ(t.getTilesPerIPU(), 1216u);
  EXPECT_EQ(t.getBytesPerTile(), 256u * 1024u);
  EXPECT_EQ(t.getNumWorkerContexts(), 6u);
  EXPECT_EQ(t.getTargetArchString(), "ipu1");
}

TEST(IPUModelDefaults, Ipu21IsMk2AtBowClock) {
  Target t = IPUModel("ipu21").createTarget();
  EXPECT_EQ(t.getTilesPerIPU(), 1472u);
  EXPECT_DOUBLE_EQ(t.getTileClockFrequency(), 1.85e9);
}

TEST(IPUModelFigures, ChangedFieldsReachTheTarget) {
  IPUModel model;
  model.numIPUs = 2;
  model.tilesPerIPU = 16;
  model.numWorkerContexts = 4;
  model.memoryBytesPerTile = 4096;
  model.tileClockFrequency = 1e9;
  model.exchangeBytesPerCycle = 8;
  model.memcpyBytesPerCycle = 16;
  model.dataPathWidth = 128;
  Device d = model.createDevice();
  const Target &t = d.getTarget();
  EXPECT_EQ(t.getNumIPUs(), 2u);
  EXPECT_EQ(t.getTilesPerIPU(), 16u);
  EXPECT_EQ(t.getNumTiles(), 32u);
  EXPECT_EQ(t.getNumWorkerContexts(), 4u);
  EXPECT_EQ(t.getBytesPerTile(), 4096u);
  EXPECT_EQ(t.getMemoryBytes(), 32u * 4096u);
  EXPECT_DOUBLE_EQ(t.getTileClockFrequency(), 1e9);
  EXPECT_EQ(t.getExchangeBytesPerCycle(), 8u);
  EXPECT_EQ(t.getMemcpyBytesPerCycle(), 16u);
  EXPECT_EQ(t.getDataPathWidth(), 128u);
  EXPECT_EQ(t.getVectorWidth(FLOAT), 4u);
}

TEST(IPUModelFigures, ImpossibleFiguresAreInvalidMachineModel) {
  auto with = [](auto change) {
    IPUModel m;
    m.tilesPerIPU = 4;
    change(m);
    return m;
  };
  EXPECT_THROW_MSG(invalid_machine_model, with([](IPUModel &m) { m.numIPUs = 0; }).createTarget(),
                   {"numIPUs"});
  EXPECT_THROW_MSG(invalid_machine_model,
                   with([](IPUModel &m) { m.tilesPerIPU = 0; }).createDevice(), {"tilesPerIPU"});
  EXPECT_THROW_MSG(invalid_machine_model,
                   with([](IPUModel &m) { m.numWorkerContexts = 0; }).createTarget(),
                   {"numWorkerContexts"});
  EXPECT_THROW_MSG(invalid_machine_model,
                   with([](IPUModel &m) { m.memoryBytesPerTile = 0; }).createTarget(),
                   {"memoryBytesPerTile"});
  EXPECT_THROW_MSG(invalid_machine_model,
                   with([](IPUModel &m) { m.tileClockFrequency = 0; }).createTarget(),
                   {"tileClockFrequency"});
  EXPECT_THROW_MSG(invalid_machine_model,
                   with([](IPUModel &m) { m.tileClockFrequency = NAN; }).createTarget(),
                   {"tileClockFrequency"});
  EXPECT_THROW_MSG(invalid_machine_model,
                   with([](IPUModel &m) { m.exchangeBytesPerCycle = 0; }).createTarget(),
                   {"exchangeBytesPerCycle"});
  EXPECT_THROW_MSG(invalid_machine_model,
                   with([](IPUModel &m) { m.memcpyBytesPerCycle = 0; }).createTarget(),
                   {"memcpyBytesPerCycle"});
  EXPECT_THROW_MSG(invalid_machine_model,
                   with([](IPUModel &m) { m.dataPathWidth = 12; }).createTarget(),
                   {"dataPathWidth"});
}

TEST(IPUModelFigures, UnknownVersionIsInvalidMachineModel) {
  EXPECT_THROW_MSG(invalid_machine_model, IPUModel("ipu3"), {"'ipu3'", "ipu2"});
  EXPECT_THROW_MSG(invalid_machine_model, Target::createIPUTarget(1, "mk9"), {"'mk9'"});
}

TEST(TargetGetters, VectorWidthIsDataPathOverTypeBits) {
  Target t = Target::createIPUTarget(1, "ipu2");
  EXPECT_EQ(t.getVectorWidth(FLOAT), 2u);
  EXPECT_EQ(t.getVectorWidth(HALF), 4u);
  EXPECT_EQ(t.getVectorWidth(INT), 2u);
  EXPECT_EQ(t.getVectorWidth(CHAR), 8u);
  EXPECT_EQ(t.getTypeSize(FLOAT), 4u);
  EXPECT_EQ(t.getTypeSize(HALF), 2u);
  EXPECT_EQ(t.getTypeSize(LONGLONG), 8u);
  EXPECT_THROW_MSG(type_error, t.getTypeSize(Type()), {"invalid type"});
}

TEST(TargetGetters, CreateIPUTargetCountsIPUs) {
  Target t = Target::createIPUTarget(4, "ipu2");
  EXPECT_EQ(t.getTargetType(), TargetType::IPU);
  EXPECT_EQ(t.getNumIPUs(), 4u);
  EXPECT_EQ(t.getTilesPerIPU(), 1472u);
  EXPECT_EQ(t.getNumTiles(), 4u * 1472u);
  EXPECT_EQ(Target::createIPUTarget("ipu1").getNumTiles(), 1216u);
  EXPECT_FALSE(Target().isValid());
}

TEST(TargetGetters, CpuTargetIsOneBigTile) {
  Target t = Target::createCPUTarget();
  EXPECT_EQ(t.getTargetType(), TargetType::CPU);
  EXPECT_EQ(t.getTargetArchString(), "cpu");
  EXPECT_EQ(t.getNumTiles(), 1u);
  EXPECT_EQ(t.getNumWorkerContexts(), 1u);
  EXPECT_GE(t.getBytesPerTile(), std::uint64_t(1) << 32);
  Device cpu = Device::createCPUDevice();
  EXPECT_EQ(cpu.getTarget(), t);
}

TEST(TargetGetters, VirtualTargetKeepsTileFigures) {
  IPUModel m;
  m.tilesPerIPU = 16;
  m.memoryBytesPerTile = 8192;
  Target t = m.createTarget();
  Target v = t.createVirtualTarget(1, 4);
  EXPECT_EQ(v.getNumTiles(), 4u);
  EXPECT_EQ(v.getBytesPerTile(), 8192u);
  EXPECT_EQ(v.getNumWorkerContexts(), t.getNumWorkerContexts());
  EXPECT_NE(v, t);
  EXPECT_EQ(t.createVirtualTarget(1, 16), t);
  EXPECT_THROW_MSG(invalid_machine_model, t.createVirtualTarget(0, 4), {"0 IPUs of 4 tiles"});
  EXPECT_THROW_MSG(invalid_machine_model, t.createVirtualTarget(1, 0), {"1 IPUs of 0 tiles"});
}

TEST(TargetGetters, TargetTypeNames) {
  EXPECT_STREQ(toString(TargetType::IPU), "IPU");
  EXPECT_STREQ(toString(TargetType::IPU_MODEL), "IPU_MODEL");
  EXPECT_STREQ(toString(TargetType::CPU), "CPU");
}

// ---- Device and DeviceManager ------------------------------------------------------------------

TEST(Devices, SimulatorDeviceHasExactlyItsTarget) {
  IPUModel m;
  m.tilesPerIPU = 8;
  Target t = m.createTarget();
  Device d = Device::createSimulatorDevice(t);
  EXPECT_EQ(d.getTarget(), t);
  EXPECT_TRUE(d.supportsRemoteBuffers());
  EXPECT_THROW_MSG(invalid_machine_model, Device::createSimulatorDevice(Target()),
                   {"valid target"});
  EXPECT_THROW_MSG(poplar_error, Device().getTarget(), {"empty Device"});
}

TEST(Devices, UnmanagedDevicesAlwaysAttach) {
  IPUModel m;
  m.tilesPerIPU = 4;
  Device a = m.createDevice();
  Device b = m.createDevice();
  EXPECT_FALSE(a.isAttached());
  EXPECT_TRUE(a.attach());
  EXPECT_TRUE(b.attach());
  EXPECT_TRUE(a.attach()); // attaching twice is harmless
  EXPECT_TRUE(a.isAttached());
  a.detach();
  EXPECT_FALSE(a.isAttached());
  EXPECT_FALSE(Device().attach());
}

TEST(DeviceManagerGroups, GetDevicesCountsEveryPowerOfTwoGroup) {
  auto manager = DeviceManager::createDeviceManager();
  const std::pair<unsigned, std::size_t> counts[] = {{1, 16}, {2, 8}, {4, 4},  {8, 2},
                                                     {16, 1}, {3, 0}, {32, 0}, {0, 0}};
  std::set<unsigned> allIds;
  for (const auto &[ipus, expected] : counts) {
    SCOPED_TRACE(ipus);
    auto devices = manager.getDevices(TargetType::IPU, ipus);
    EXPECT_EQ(devices.size(), expected);
    for (const auto &d : devices) {
      EXPECT_EQ(d.getTarget().getNumIPUs(), ipus);
      EXPECT_EQ(d.getTarget().getTilesPerIPU(), 1472u);
      EXPECT_EQ(d.getTarget().getTargetType(), TargetType::IPU);
      EXPECT_TRUE(allIds.insert(d.getId()).second) << "duplicate id " << d.getId();
    }
  }
  EXPECT_EQ(allIds.size(), 31u);
  EXPECT_EQ(manager.getNumDevices(), 31u);
  EXPECT_EQ(manager.getDevices().size(), 31u);
  EXPECT_TRUE(manager.getDevices(TargetType::IPU_MODEL, 1).empty());
  EXPECT_TRUE(manager.getDevices(TargetType::CPU, 1).empty());
}

TEST(DeviceManagerGroups, DeviceIdsFollowPodNumbering) {
  auto manager = DeviceManager::createDeviceManager();
  auto singles = manager.getDevices(TargetType::IPU, 1);
  auto pairs = manager.getDevices(TargetType::IPU, 2);
  ASSERT_EQ(singles.size(), 16u);
  ASSERT_EQ(pairs.size(), 8u);
  EXPECT_EQ(singles.front().getId(), 0u);
  EXPECT_EQ(singles.back().getId(), 15u);
  EXPECT_EQ(pairs.front().getId(), 16u);
  EXPECT_EQ(manager.getDevice(16).getTarget().getNumIPUs(), 2u);
  EXPECT_EQ(manager.getDevice(30).getTarget().getNumIPUs(), 16u);
  EXPECT_THROW_MSG(index_error, manager.getDevice(31), {"31", "31 devices"});
}

TEST(DeviceManagerGroups, AttachIsExclusivePerDeviceId) {
  auto manager = DeviceManager::createDeviceManager();
  Device first = manager.getDevice(5);
  Device second = manager.getDevice(5);
  Device other = manager.getDevice(6);
  ASSERT_TRUE(first.attach());
  EXPECT_TRUE(first.isAttached());
  EXPECT_FALSE(second.attach());
  EXPECT_FALSE(second.isAttached());
  EXPECT_TRUE(other.attach());
  first.detach();
  EXPECT_FALSE(first.isAttached());
  EXPECT_TRUE(second.attach());
  second.detach();
  other.detach();
}

TEST(DeviceManagerGroups, DevicesSharingAnIPUExcludeEachOther) {
  auto manager = DeviceManager::createDeviceManager();
  // Device 16 is the pair of IPUs 0 and 1; device 1 is IPU 1; device 2 is IPU 2.
  Device pair = manager.getDevice(16);
  Device single = manager.getDevice(1);
  Device elsewhere = manager.getDevice(2);
  ASSERT_TRUE(single.attach());
  EXPECT_FALSE(pair.attach());
  EXPECT_TRUE(elsewhere.attach());
  single.detach();
  EXPECT_TRUE(pair.attach());
  EXPECT_FALSE(single.attach());
  // The whole system (device 30) overlaps everything that is attached.
  Device all = manager.getDevice(30);
  EXPECT_FALSE(all.attach());
  pair.detach();
  elsewhere.detach();
  EXPECT_TRUE(all.attach());
  all.detach();
}

TEST(DeviceManagerGroups, DestroyingOrReplacingADeviceDetachesIt) {
  auto manager = DeviceManager::createDeviceManager();
  {
    Device d = manager.getDevice(9);
    ASSERT_TRUE(d.attach());
  }
  Device again = manager.getDevice(9);
  EXPECT_TRUE(again.attach());
  // Move-assigning over an attached handle releases its device.
  again = manager.getDevice(10);
  Device probe = manager.getDevice(9);
  EXPECT_TRUE(probe.attach());
  probe.detach();
  // A moved-to handle keeps the attachment.
  Device a = manager.getDevice(11);
  ASSERT_TRUE(a.attach());
  Device b = std::move(a);
  EXPECT_TRUE(b.isAttached());
  EXPECT_FALSE(manager.getDevice(11).attach());
  b.detach();
}

TEST(Devices, EngineLoadOnADeviceWithOtherTileCountIsRuntimeError) {
  IPUModel m;
  m.tilesPerIPU = 4;
  Device four = m.createDevice();
  m.tilesPerIPU = 8;
  Device eight = m.createDevice();
  Graph graph(four.getTarget());
  Tensor t = graph.addVariable(FLOAT, {2}, "t");
  graph.setTileMapping(t, 0);
  Engine engine(graph, program::Sequence{});
  EXPECT_THROW_MSG(poplar::runtime_error, engine.load(eight), {"4 tiles", "8"});
  EXPECT_NO_THROW(engine.load(four));
}

// ---- half conversion ----------------------------------------------------------------------------

namespace {
std::vector<std::uint16_t> toHalf(const std::vector<float> &in) {
  std::vector<std::uint16_t> out(in.size(), 0xDEAD);
  copyFloatToDeviceHalf(Target::createCPUTarget(), in.data(), out.data(), in.size());
  return out;
}
std::vector<float> fromHalf(const std::vector<std::uint16_t> &in) {
  std::vector<float> out(in.size(), -1.0f);
  copyDeviceHalfToFloat(Target::createCPUTarget(), in.data(), out.data(), in.size());
  return out;
}
} // namespace

TEST(HalfConversion, NormalValuesHaveKnownBits) {
  EXPECT_EQ(toHalf({1.0f, -1.0f, 2.0f, 0.5f, -2.0f, 65504.0f, 6.103515625e-05f, 1024.0f, 3.0f}),
            (std::vector<std::uint16_t>{0x3C00, 0xBC00, 0x4000, 0x3800, 0xC000, 0x7BFF, 0x0400,
                                        0x6400, 0x4200}));
}

TEST(HalfConversion, SubnormalsAndZerosHaveKnownBits) {
  EXPECT_EQ(toHalf({0.0f, -0.0f, 0x1p-24f, 0x3p-24f, 0x3FFp-24f, 0x1p-15f, -0x1p-24f}),
            (std::vector<std::uint16_t>{0x0000, 0x8000, 0x0001, 0x0003, 0x03FF, 0x0200, 0x8001}));
  // Below half the smallest subnormal rounds to zero; above it rounds up.
  EXPECT_EQ(toHalf({0x1p-26f, 0x1p-25f, 0x1.8p-25f, 0x1.8p-24f}),
            (std::vector<std::uint16_t>{0x0000, 0x0000, 0x0001, 0x0002}));
}

TEST(HalfConversion, RoundsToNearestEven) {
  // 1 + 2^-11 is half way between 0x3C00 and 0x3C01: ties go to the even 0x3C00.
  // 1 + 3 * 2^-11 is half way between 0x3C01 and 0x3C02: ties go to 0x3C02.
  EXPECT_EQ(toHalf({0x1.002p0f, 0x1.006p0f, 0x1.0021p0f, 0x1.001p0f, 2049.0f, 2051.0f, 2050.5f}),
            (std::vector<std::uint16_t>{0x3C00, 0x3C02, 0x3C01, 0x3C00, 0x6800, 0x6802, 0x6801}));
  // Rounding can carry into the exponent: just below 2 becomes 2.
  EXPECT_EQ(toHalf({0x1.FFFp0f}), (std::vector<std::uint16_t>{0x4000}));
}

TEST(HalfConversion, OverflowInfinityAndNaN) {
  EXPECT_EQ(toHalf({65519.0f, 65520.0f, 1e6f, -1e6f, INFINITY, -INFINITY}),
            (std::vector<std::uint16_t>{0x7BFF, 0x7C00, 0x7C00, 0xFC00, 0x7C00, 0xFC00}));
  const std::uint16_t nan = toHalf({NAN})[0];
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
}

TEST(HalfConversion, HalfToFloatDecodesKnownBits) {
  auto f = fromHalf({0x3C00, 0x7BFF, 0x0001, 0x03FF, 0x0400, 0x3555, 0xC000, 0x7C00, 0xFC00});
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1], 65504.0f);
  EXPECT_EQ(f[2], 0x1p-24f);
  EXPECT_EQ(f[3], 0x3FFp-24f);
  EXPECT_EQ(f[4], 0x1p-14f);
  EXPECT_EQ(f[5], 0.333251953125f);
  EXPECT_EQ(f[6], -2.0f);
  EXPECT_EQ(f[7], INFINITY);
  EXPECT_EQ(f[8], -INFINITY);
  auto z = fromHalf({0x8000, 0x7E00});
  EXPECT_EQ(z[0], 0.0f);
  EXPECT_TRUE(std::signbit(z[0]));
  EXPECT_TRUE(std::isnan(z[1]));
}

TEST(HalfConversion, EveryNonNaNHalfRoundTripsThroughFloat) {
  std::vector<std::uint16_t> all;
  for (unsigned h = 0; h < 0x10000; ++h)
    if ((h & 0x7C00) != 0x7C00 || (h & 0x03FF) == 0)
      all.push_back(static_cast<std::uint16_t>(h));
  EXPECT_EQ(toHalf(fromHalf(all)), all);
}
