// tessera-bench ipu-estimate: the trainers' "ipu-estimate:" lines read back, the specs'
// arguments (Graphcore's published configurations), and a misspelt name getting the nearest.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include <tessera/apps/Errors.hpp>

#include "IpuEstimateCommand.hpp"

namespace tessera::bench {
namespace {

TEST(BenchIpuEstimate, ReadsTheLastEstimateLine) {
  const std::string output = "compiling...\n"
                             "ipu-estimate: resnet50 Bow-POD16 1 img/s published 2 ratio 0.5\n"
                             "ipu-estimate: resnet50 Bow-POD16 12707 img/s published 42029 "
                             "ratio 0.302\n";
  const IpuEstimateLine l = parseIpuEstimateLine(output, "resnet50");
  EXPECT_EQ(l.model, "resnet50");
  EXPECT_EQ(l.system, "Bow-POD16");
  EXPECT_EQ(l.unit, "img/s");
  EXPECT_DOUBLE_EQ(l.samplesPerSecond, 12707);
  EXPECT_DOUBLE_EQ(l.published, 42029);
  EXPECT_DOUBLE_EQ(l.ratio, 0.302);
  const IpuEstimateLine none = parseIpuEstimateLine(
      "ipu-estimate: efficientnet Bow-POD16 900 img/s published - ratio -\n", "efficientnet");
  EXPECT_EQ(none.published, 0.0);
  EXPECT_EQ(none.ratio, 0.0);
}

TEST(BenchIpuEstimate, MissingOrDamagedLinesAreNamed) {
  for (const std::string text : {"no estimate here\n", "ipu-estimate: resnet50 Bow-POD16 x\n"}) {
    try {
      parseIpuEstimateLine(text, "resnet50");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const apps::app_error &e) {
      EXPECT_NE(std::string(e.what()).find("resnet50"), std::string::npos) << e.what();
    }
  }
}

TEST(BenchIpuEstimate, SpecsUseThePublishedConfigurations) {
  const auto &specs = ipuEstimateSpecs();
  ASSERT_EQ(specs.size(), 2u);
  auto has = [](const IpuEstimateSpec &s, const std::string &flag, const std::string &value) {
    const auto it = std::find(s.args.begin(), s.args.end(), flag);
    return it != s.args.end() && it + 1 != s.args.end() && *(it + 1) == value;
  };
  EXPECT_TRUE(has(specs[0], "--image-size", "224") && has(specs[0], "--batch-size", "20") &&
              has(specs[0], "--pod-replicas", "16") && has(specs[0], "--pod-accumulation", "6"));
  // 20 x 6 x 16 = 1920, Graphcore's global batch.
  EXPECT_TRUE(has(specs[1], "--config", "large") && has(specs[1], "--batch-size", "8") &&
              has(specs[1], "--pipeline-layers", "3,7,7,7") &&
              has(specs[1], "--pod-accumulation", "2048"));
  // 8 x 2048 x 4 = 65536, Graphcore's global batch.
}

TEST(BenchIpuEstimate, TrainerArgumentsReplaceTheSpecsOwnValues) {
  const std::vector<std::string> spec{"--estimate-ipu", "--batch-size", "20", "--pod-accumulation",
                                      "6"};
  EXPECT_EQ(withOverrides(spec, {"--batch-size=4", "--pod-accumulation", "30", "--host-threads=2",
                                 "--augment"}),
            (std::vector<std::string>{"--estimate-ipu", "--batch-size", "4", "--pod-accumulation",
                                      "30", "--host-threads", "2", "--augment"}));
}

TEST(BenchIpuEstimate, AMisspeltNameGetsTheNearest) {
  std::ostringstream out;
  try {
    runIpuEstimates("/nonexistent", "bert-lrage", {}, "/tmp", out);
    FAIL() << "no error";
  } catch (const apps::cli_error &e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'bert-large'"), std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace tessera::bench
