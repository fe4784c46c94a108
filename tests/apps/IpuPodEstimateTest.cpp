// estimatePod against hand-worked figures: one IPU per replica, a two-stage pipeline, one
// replica (no all-reduce), and the errors naming what is missing.
#include <gtest/gtest.h>

#include <sstream>

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/IpuPodEstimate.hpp>

using namespace tessera::apps;

TEST(IpuPodEstimate, DataParallelWithAccumulation) {
  PodConfig pod; // Bow-POD16: 16 replicas, 1.85 GHz, 32 GB/s links, 2-byte gradients
  pod.microBatch = 20;
  pod.accumulation = 6;
  // 1.85 M cycles = 1 ms a pass, 0.37 M = 0.2 ms an update; 1 M parameters = 2 MB of gradients,
  // a ring moves 2 * 15/16 of them over 32 GB/s: 117.1875 us.
  const ReplicaStepCycles c{{1850000}, {370000}, 1000000};
  const PodEstimate e = estimatePod(c, pod);
  EXPECT_DOUBLE_EQ(e.passSeconds, 1e-3);
  EXPECT_NEAR(e.updateSeconds, 0.2e-3, 1e-15);
  EXPECT_NEAR(e.allReduceSeconds, 117.1875e-6, 1e-15);
  EXPECT_NEAR(e.weightUpdateSeconds, 6e-3 + 0.2e-3 + 117.1875e-6, 1e-15);
  EXPECT_EQ(e.globalBatch, 1920u);
  EXPECT_NEAR(e.samplesPerSecond, 1920 / 6.3171875e-3, 1e-6);

  std::ostringstream out;
  printPodEstimate(out, "resnet50", pod, c, e, {42029, "img/s", "published"});
  EXPECT_NE(out.str().find("ipu-estimate: resnet50 Bow-POD16 303933 img/s published 42029 "
                           "ratio 7.23"),
            std::string::npos)
      << out.str();
}

TEST(IpuPodEstimate, PipelineFillsAndDrainsOncePerUpdate) {
  PodConfig pod;
  pod.replicas = 4;
  pod.microBatch = 2;
  pod.accumulation = 10;
  pod.clockHz = 1e9;
  pod.linkBytesPerSecond = 1e9;
  // Stages of 1 and 3 ms: 10 + 2 - 1 = 11 slots of the slower; each stage reduces half of the
  // 1000 two-byte gradients: 2 * 3/4 * 1000 B / 1 GB/s = 1.5 us.
  const ReplicaStepCycles c{{1000000, 3000000}, {100000, 200000}, 1000};
  const PodEstimate e = estimatePod(c, pod);
  EXPECT_NEAR(e.allReduceSeconds, 1.5e-6, 1e-18);
  EXPECT_NEAR(e.weightUpdateSeconds, 11 * 3e-3 + 0.2e-3 + 1.5e-6, 1e-15);
  EXPECT_NEAR(e.samplesPerSecond, 80 / (33.2015e-3), 1e-6);
}

TEST(IpuPodEstimate, OneReplicaHasNoAllReduce) {
  PodConfig pod;
  pod.replicas = 1;
  const PodEstimate e = estimatePod({{1850000}, {0}, 1000000}, pod);
  EXPECT_EQ(e.allReduceSeconds, 0.0);
  EXPECT_NEAR(e.samplesPerSecond, 1000.0, 1e-9);
}

TEST(IpuPodEstimate, ErrorsNameTheMissingPart) {
  PodConfig pod;
  try {
    estimatePod({{1, 2}, {1}, 10}, pod);
    FAIL() << "no error for 2 passes and 1 update";
  } catch (const app_error &e) {
    EXPECT_NE(std::string(e.what()).find("2 stage passes and 1 stage updates"), std::string::npos)
        << e.what();
  }
  pod.accumulation = 0;
  try {
    estimatePod({{1}, {1}, 10}, pod);
    FAIL() << "no error for accumulation 0";
  } catch (const app_error &e) {
    EXPECT_NE(std::string(e.what()).find("accumulation"), std::string::npos) << e.what();
  }
}
