// Poplar's ways of naming a machine: createIPUTarget with a system name and optionally a tile
// count, virtual devices, the IPU Model's members, and the Target queries PopLibs' planners
// make (convolution units, type limits, hashing).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <unordered_set>

#include <poplar/Device.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Target.hpp>

#include "ErrorMatchers.hpp"

using namespace poplar;
using testerrors::throwsWithMessage;

TEST(TargetSystems, EachSystemNameGivesItsArchitectureAndKeepsItsName) {
  const std::map<std::string, std::string> archOf = {
      {"ipu1", "ipu1"},         {"ipu2", "ipu2"},          {"ipu21", "ipu21"},
      {"C2", "ipu1"},           {"IPU-M2000", "ipu2"},     {"M2000", "ipu2"},
      {"IPU-POD4", "ipu2"},     {"IPU-POD16", "ipu2"},     {"IPU-POD64", "ipu2"},
      {"IPU-POD128", "ipu2"},   {"IPU-POD256", "ipu2"},    {"Bow-2000", "ipu21"},
      {"Bow-POD16", "ipu21"},   {"Bow-POD64", "ipu21"},    {"Bow-POD256", "ipu21"},
      {"C600", "ipu21"},        {"_TEST_SYSTEM", "ipu2"},  {"_VIRTUAL_GRAPH_TEST_16", "ipu2"}};
  for (const auto &[system, arch] : archOf) {
    Target t = Target::createIPUTarget(4, system);
    EXPECT_EQ(t.getTargetArchString(), arch) << system;
    EXPECT_EQ(t.getTargetSystemString(), system);
    EXPECT_EQ(t.getTargetType(), TargetType::IPU);
    EXPECT_EQ(t.getNumIPUs(), 4u) << system;
    EXPECT_EQ(t.getTilesPerIPU(), arch == "ipu1" ? 1216u : 1472u) << system;
    EXPECT_EQ(t.getBytesPerTile(), arch == "ipu1" ? 256u * 1024 : 624u * 1024) << system;
  }
}

TEST(TargetSystems, TilesPerIPUFormRestrictsOnlyTheTileCount) {
  Target full = Target::createIPUTarget(2, "IPU-POD16");
  Target small = Target::createIPUTarget(2, 2, "IPU-POD16");
  EXPECT_EQ(small.getNumIPUs(), 2u);
  EXPECT_EQ(small.getTilesPerIPU(), 2u);
  EXPECT_EQ(small.getNumTiles(), 4u);
  EXPECT_EQ(small.getBytesPerTile(), full.getBytesPerTile());
  EXPECT_EQ(small.getTileClockFrequency(), full.getTileClockFrequency());
  EXPECT_EQ(small.getTargetSystemString(), "IPU-POD16");
}

TEST(TargetSystems, AGraphOnATilesPerIPUTargetRunsOnAMatchingSimulatorDevice) {
  // The way PopLibs' tests make a small "Sim" device.
  Target target = Target::createIPUTarget(1, 4, "_TEST_SYSTEM");
  Device device = Device::createSimulatorDevice(target);
  Graph graph(target);
  Tensor x = graph.addVariable(INT, {4}, "x");
  for (unsigned tile = 0; tile < 4; ++tile)
    graph.setTileMapping(x[tile], tile);
  graph.setInitialValue(x, ArrayRef<int>{1, 2, 3, 4});
  Tensor y = graph.addVariable(INT, {4}, "y");
  graph.setTileMapping(y, 3);
  graph.createHostRead("y", y);
  Engine engine(graph, program::Copy(x.reverse(0), y));
  engine.load(device);
  engine.run();
  std::vector<int> host(4);
  engine.readTensor("y", host.data(), host.data() + 4);
  EXPECT_EQ(host, (std::vector<int>{4, 3, 2, 1}));
}

TEST(TargetSystems, AnUnknownSystemIsRefusedWithTheNearestNameAndTheList) {
  EXPECT_TRUE(throwsWithMessage<invalid_machine_model>(
      [] { Target::createIPUTarget(1, "IPU-PD64"); },
      {"'IPU-PD64'", "did you mean 'IPU-POD64'", "'IPU-POD16'", "'ipu21'"}));
  EXPECT_TRUE(throwsWithMessage<invalid_machine_model>(
      [] { Target::createIPUTarget(1, 4, "mk9"); }, {"unknown system 'mk9'"}));
  EXPECT_TRUE(throwsWithMessage<invalid_machine_model>(
      [] { Target::createIPUTarget(1, 0, "ipu2"); }, {"tilesPerIPU", "'ipu2'"}));
}

TEST(TargetSystems, VirtualDeviceHasFewerTilesAndStandsForTheSameIPUs) {
  IPUModel model;
  model.numIPUs = 2;
  model.tilesPerIPU = 16;
  Device device = model.createDevice();
  Device virt = device.createVirtualDevice(4);
  EXPECT_EQ(virt.getTarget().getNumIPUs(), 2u);
  EXPECT_EQ(virt.getTarget().getTilesPerIPU(), 4u);
  EXPECT_EQ(virt.getTarget().getBytesPerTile(), device.getTarget().getBytesPerTile());
  EXPECT_TRUE(throwsWithMessage<invalid_machine_model>(
      [&] { device.createVirtualDevice(17); }, {"createVirtualDevice", "17", "16"}));
  EXPECT_TRUE(throwsWithMessage<invalid_machine_model>([&] { device.createVirtualDevice(0); },
                                                        {"createVirtualDevice", "0 tiles"}));
}

TEST(TargetSystems, IPUModelMembersReachTheTarget) {
  IPUModel model("ipu2");
  EXPECT_EQ(model.IPUVersion, "ipu2");
  model.numIPUs = 4;
  model.tilesPerIPU = 8;
  model.fp16InFp16OutConvUnitsPerTile = 12;
  model.fp32ConvUnitMaxPipelineDepth = 6;
  model.globalSyncCycles = 90;
  model.minIPUSyncDelay = 10;
  model.globalExchangeConstraints.push_back(
      GlobalExchangeConstraint(1e9, {GlobalExchangeFlow(0, 1), GlobalExchangeFlow(2, 3)}));
  Target t = model.createTarget();
  EXPECT_EQ(t.getNumConvUnits(HALF, HALF), 12u);
  EXPECT_EQ(t.getWeightsPerConvUnit(FLOAT), 6u);
  EXPECT_EQ(t.getWeightsPerConvUnit(true), 6u); // the older bool form: FLOAT activations
  EXPECT_EQ(t.getGlobalSyncCycles(), 90u);
  EXPECT_EQ(t.getMinIPUSyncDelay(), 10u);
  EXPECT_EQ(t.getSyncCycles(), 100u);
  ASSERT_EQ(t.getGlobalExchangeConstraints().size(), 1u);
  EXPECT_EQ(t.getGlobalExchangeConstraints()[0].flows[1], GlobalExchangeFlow(2, 3));
  IPUModel same("ipu2");
  EXPECT_NE(model, same);
  same = model;
  EXPECT_EQ(model, same);
}

TEST(TargetSystems, ExchangeConstraintsNamingAMissingIPUAreRefused) {
  IPUModel model;
  model.numIPUs = 2;
  model.globalExchangeConstraints.push_back(GlobalExchangeConstraint(1e9, {{0, 5}}));
  EXPECT_TRUE(throwsWithMessage<invalid_machine_model>([&] { model.createTarget(); },
                                                        {"IPU 5", "2 IPUs"}));
}

TEST(TargetSystems, ConvolutionUnitFiguresAreConsistentWithTheVectorUnit) {
  for (const char *arch : {"ipu1", "ipu2", "ipu21"}) {
    Target t = Target::createIPUTarget(1, arch);
    // A conv unit reads a data-path's worth of activations per cycle at most.
    EXPECT_LE(t.getConvUnitInputLoadElemsPerCycle(HALF) * 16, t.getDataPathWidth());
    EXPECT_LE(t.getConvUnitInputLoadElemsPerCycle(FLOAT) * 32, t.getDataPathWidth());
    EXPECT_EQ(t.getFloatVectorWidth(), t.getDataPathWidth() / 32);
    EXPECT_EQ(t.getHalfVectorWidth(), t.getDataPathWidth() / 16);
    EXPECT_GE(t.getNumConvUnits(HALF, HALF), t.getNumConvUnits(FLOAT, FLOAT)) << arch;
    EXPECT_GE(t.getWeightsPerConvUnit(HALF), t.getWeightsPerConvUnit(FLOAT)) << arch;
  }
  Target t = Target::createIPUTarget(1, "ipu2");
  EXPECT_TRUE(throwsWithMessage<type_error>([&] { t.getNumConvUnits(INT, FLOAT); },
                                            {"getNumConvUnits", "int", "float"}));
  EXPECT_TRUE(throwsWithMessage<type_error>([&] { t.getWeightsPerConvUnit(INT); },
                                            {"getWeightsPerConvUnit", "int"}));
}

TEST(TargetSystems, TypeLimitsAreTheClosedFormValuesAndRefuseInexactOnes) {
  Target t = Target::createIPUTarget(1, "ipu2");
  EXPECT_EQ(t.getTypeLimitsMaxAs<double>(HALF), 65504.0);
  EXPECT_EQ(t.getTypeLimitsLowestAs<double>(HALF), -65504.0);
  EXPECT_EQ(t.getTypeLimitsMaxAs<double>(FLOAT), double(std::numeric_limits<float>::max()));
  EXPECT_EQ(t.getTypeLimitsMaxAs<std::int64_t>(INT), 2147483647);
  EXPECT_EQ(t.getTypeLimitsLowestAs<std::int64_t>(SHORT), -32768);
  EXPECT_EQ(t.getTypeLimitsMaxAs<std::uint64_t>(UNSIGNED_LONGLONG),
            std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(t.getTypeLimitsLowestAs<std::uint64_t>(UNSIGNED_INT), 0u);
  // 2^64 - 1 is not a double; -1 is not a uint64_t; 3.4e38 is not an int64_t.
  EXPECT_TRUE(throwsWithMessage<poplar_error>(
      [&] { t.getTypeLimitsMaxAs<double>(UNSIGNED_LONGLONG); },
      {"getTypeLimitsMaxAs", "unsigned long long"}));
  EXPECT_TRUE(throwsWithMessage<poplar_error>(
      [&] { t.getTypeLimitsLowestAs<std::uint64_t>(INT); }, {"getTypeLimitsLowestAs", "int"}));
  EXPECT_TRUE(throwsWithMessage<poplar_error>(
      [&] { t.getTypeLimitsMaxAs<std::int64_t>(FLOAT); }, {"largest", "float"}));
}

TEST(TargetSystems, EqualTargetsHashAlikeAndOrderIsStrict) {
  Target a = Target::createIPUTarget(2, "ipu2");
  Target b = Target::createIPUTarget(2, "IPU-POD16"); // the same IPUs under another name
  Target c = Target::createIPUTarget(2, 8, "ipu2");
  EXPECT_EQ(a, b);
  EXPECT_EQ(std::hash<Target>()(a), std::hash<Target>()(b));
  EXPECT_NE(a, c);
  EXPECT_TRUE((a < c) != (c < a));
  EXPECT_FALSE(a < b);
  std::unordered_set<Target> set{a, b, c};
  EXPECT_EQ(set.size(), 2u);
  std::unordered_set<Type> types{FLOAT, HALF, FLOAT};
  EXPECT_EQ(types.size(), 2u);
}
