// The convolution planner's two objectives (option planObjective): "hostTime" (default, what the
// trainers run with) and "ipuCycles" (what a real IPU would be planned for, used to estimate
// one). Each plan is at least as good as the other by its own measure, the IPU plan spreads a
// layer over more of a Mk2's 1472 tiles, and its results match the naive reference.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include <poplar/exceptions.hpp>

#include "ConvTestSupport.hpp"

using namespace poplin::testing;
using poplar::FLOAT;
using poplin::ConvParams;

namespace {

const poplar::OptionFlags kIpu{{"planObjective", "ipuCycles"}};

/// The number after `label` in a plan report (the first occurrence).
std::uint64_t numberAfter(const std::string &report, const std::string &label) {
  std::smatch m;
  if (!std::regex_search(report, m, std::regex(label + "([0-9]+)")))
    ADD_FAILURE() << "no '" << label << "' in:\n" << report;
  return m.empty() ? 0 : std::stoull(m[1]);
}

} // namespace

TEST(ConvIpuPlan, IpuObjectiveSpreadsALayerOverMoreTilesForFewerCycles) {
  // A ResNet-50 stage-1 3x3 convolution at batch 4.
  const ConvParams p(FLOAT, 4, {56, 56}, {3, 3}, 64, 64, 1);
  poplar::OptionFlags host{{"useWinograd", "false"}};
  poplar::OptionFlags ipu = kIpu;
  const std::string hostPlan = planReport(p, false, host, 1472);
  const std::string ipuPlan = planReport(p, false, ipu, 1472);
  EXPECT_NE(hostPlan.find("ns (the planning objective)"), std::string::npos) << hostPlan;
  EXPECT_NE(ipuPlan.find(") (the planning objective)"), std::string::npos) << ipuPlan;
  const auto cycles = [](const std::string &r) { return numberAfter(r, "estimated cycles: "); };
  const auto hostNs = [](const std::string &r) { return numberAfter(r, "estimated host time: "); };
  const auto tiles = [](const std::string &r) { return numberAfter(r, "units on "); };
  EXPECT_LE(cycles(ipuPlan), cycles(hostPlan));
  EXPECT_LE(hostNs(hostPlan), hostNs(ipuPlan));
  EXPECT_GT(tiles(ipuPlan), tiles(hostPlan)) << hostPlan << ipuPlan;
  EXPECT_GT(tiles(ipuPlan), 736u) << "an IPU plan should use most of the 1472 tiles\n" << ipuPlan;
}

TEST(ConvIpuPlan, IpuObjectiveKeepsToBlocksOrPointwiseProducts) {
  // Host time takes Winograd for this wide 3x3 layer; the IPU cost model does not price its
  // transforms, so "auto" leaves it out there.
  const ConvParams p(FLOAT, 8, {16, 16}, {3, 3}, 64, 64, 1);
  EXPECT_NE(planReport(p, false, {}, 64).find("winograd"), std::string::npos);
  EXPECT_EQ(planReport(p, false, kIpu, 64).find("winograd"), std::string::npos);
  // A wide pointwise convolution is still a matrix product when that has fewer cycles.
  const ConvParams pointwise(FLOAT, 8, {14, 14}, {1, 1}, 256, 256, 1);
  const std::string report = planReport(pointwise, false, kIpu, 1472);
  if (report.find("pointwise") != std::string::npos) {
    EXPECT_NE(report.find("cycles of the product: "), std::string::npos) << report;
  }
}

TEST(ConvIpuPlan, IpuPlansGiveTheReferenceResults) {
  ConvRun run;
  run.tiles = 64;
  run.options = kIpu;
  const ConvParams strided(FLOAT, 2, {9, 9}, {3, 3}, 6, 8, 1);
  ConvParams s = strided;
  s.outputTransform.stride = {2, 2};
  s.inputTransform.paddingLower = {1, 1};
  s.inputTransform.paddingUpper = {1, 1};
  expectAllPassesMatch(s, run, 1e-4);
  const ConvParams grouped(FLOAT, 3, {7, 5}, {3, 1}, 4, 5, 2);
  expectAllPassesMatch(grouped, run, 1e-4);
}

TEST(ConvIpuPlan, BadObjectiveIsNamed) {
  const ConvParams p(FLOAT, 1, {4, 4}, {3, 3}, 2, 2, 1);
  try {
    planReport(p, false, {{"planObjective", "ipu"}}, 4);
    FAIL() << "expected invalid_option";
  } catch (const poplar::invalid_option &e) {
    EXPECT_NE(std::string(e.what()).find("planObjective"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ipuCycles"), std::string::npos) << e.what();
  }
}
