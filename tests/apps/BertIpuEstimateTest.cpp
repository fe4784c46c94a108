// bert --estimate-ipu: a layer's price read off one- and two-layer sessions and spread over the
// pipeline stages (hand-worked), a small session planned for the IPU priced end to end, and the
// flags' errors.
#include <gtest/gtest.h>

#include <sstream>

#include <tessera/apps/Errors.hpp>

#include "training/CommandLine.hpp"
#include "training/IpuEstimate.hpp"
#include "training/PretrainingSession.hpp"

namespace tessera::bert {
namespace {

TEST(BertIpuEstimate, StagesCostTheirLayersAndStageZeroTheRest) {
  // One layer: 1000 pass cycles, 50 update, 300 parameters; two: 1600, 80, 500. A layer: 600,
  // 30, 200; the rest (embeddings, heads): 400, 20, 100.
  const apps::IpuStepCycles one{1000, 50, 300}, two{1600, 80, 500};
  const apps::ReplicaStepCycles s = pipelineStageCycles(one, two, {3, 7, 7, 7});
  EXPECT_EQ(s.stagePass, (std::vector<std::uint64_t>{400 + 3 * 600, 4200, 4200, 4200}));
  EXPECT_EQ(s.stageUpdate, (std::vector<std::uint64_t>{20 + 3 * 30, 210, 210, 210}));
  EXPECT_EQ(s.parameterElements, 100u + 24 * 200u);
}

TEST(BertIpuEstimate, ALayerThatCostsNothingIsAnError) {
  try {
    pipelineStageCycles({1000, 50, 300}, {1000, 50, 300}, {1});
    FAIL() << "no error";
  } catch (const apps::app_error &e) {
    EXPECT_NE(std::string(e.what()).find("two encoder layers priced at 1000 cycles, one at 1000"),
              std::string::npos)
        << e.what();
  }
}

SessionOptions tinySession(bool forIpu) {
  SessionOptions o;
  o.config = configByName("tiny");
  o.config.vocabSize = 512;
  o.batchSize = 2;
  o.tilesPerIpu = 32;
  o.bytesPerTile = 2 << 20;
  o.planForIpu = forIpu;
  return o;
}

TEST(BertIpuEstimate, ASessionPlannedForTheIpuIsPriced) {
  std::ostringstream log;
  PretrainingSession s(tinySession(true), log);
  const apps::IpuStepCycles c = s.estimateIpuStepCycles();
  EXPECT_GT(c.forwardBackward, c.update);
  EXPECT_GT(c.update, 0u);
  EXPECT_GT(c.parameterElements, 512u * tinySession(true).config.hidden);
}

TEST(BertIpuEstimate, AHostPlannedSessionIsNotPriced) {
  std::ostringstream log;
  PretrainingSession s(tinySession(false), log);
  try {
    s.estimateIpuStepCycles();
    FAIL() << "no error";
  } catch (const apps::app_error &e) {
    EXPECT_NE(std::string(e.what()).find("planForIpu"), std::string::npos) << e.what();
  }
}

std::string errorOf(std::vector<std::string> args) {
  args.insert(args.begin(), "bert");
  std::vector<const char *> argv;
  for (const auto &a : args)
    argv.push_back(a.c_str());
  std::ostringstream help;
  try {
    parseBertCommandLine(static_cast<int>(argv.size()), argv.data(), help);
  } catch (const apps::cli_error &e) {
    return e.what();
  }
  return "";
}

TEST(BertIpuEstimate, FlagErrorsNameTheFlag) {
  EXPECT_NE(errorOf({"--estimate-ipu", "--config", "large", "--pipeline-layers", "3,7,7"})
                .find("--pipeline-layers: its stages hold 17 encoder layers but the model has 24"),
            std::string::npos);
  EXPECT_NE(errorOf({"--estimate-ipu", "--pipeline-layers", "3,x"}).find("'3,x' is not a"),
            std::string::npos);
  EXPECT_NE(errorOf({"--estimate-ipu", "--config", "large", "--pod-replicas", "0"})
                .find("--pod-replicas must be at least 1"),
            std::string::npos);
  EXPECT_NE(errorOf({"--estimate-ipu", "--config", "large", "--pod-accumulation", "0"})
                .find("--pod-accumulation must be at least 1"),
            std::string::npos);
}

} // namespace
} // namespace tessera::bert
