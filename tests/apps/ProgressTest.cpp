#include <tessera/apps/Progress.hpp>

#include <gtest/gtest.h>

#include <sstream>

using namespace tessera::apps;
using namespace std::chrono_literals;

namespace {

struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  ProgressPrinter::Clock function() {
    return [this] { return now; };
  }
};

ProgressState at(std::uint64_t step) {
  ProgressState s;
  s.step = step;
  s.totalSteps = 100;
  s.epoch = 1;
  s.totalEpochs = 2;
  s.loss = 0.5;
  s.imagesSeen = step * 32;
  return s;
}

std::size_t countOf(const std::string &text, char c) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), c));
}

} // namespace

TEST(Progress, LineFormat) {
  ProgressState s = at(120);
  s.totalSteps = 1875;
  s.totalEpochs = 10;
  s.loss = 0.43214;
  s.accuracy = 0.8425;
  EXPECT_EQ(formatProgressLine(s, 1234.54, 65),
            "step 120/1875 | epoch 1/10 | loss 0.4321 | acc 84.25% | 1234.5 img/s | ETA 0:01:05");
  s.accuracy.reset();
  EXPECT_EQ(formatProgressLine(s, -1, -1),
            "step 120/1875 | epoch 1/10 | loss 0.4321 | - img/s | ETA -");
  EXPECT_NE(formatProgressLine(s, 1, 3 * 3600 + 7).find("ETA 3:00:07"), std::string::npos);
}

TEST(Progress, RateAndEtaFromTheFakeClock) {
  FakeClock clock;
  std::ostringstream out;
  ProgressPrinter printer(out, false, 0s, clock.function());
  printer.update(at(0));
  clock.now += 5s;
  printer.update(at(10)); // 320 images in 5 s; 0.5 s per step, 90 steps left
  const std::string text = out.str();
  EXPECT_NE(text.find("step 0/100 | epoch 1/2 | loss 0.5000 | - img/s | ETA -\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("step 10/100 | epoch 1/2 | loss 0.5000 | 64.0 img/s | ETA 0:00:45\n"),
            std::string::npos)
      << text;
}

TEST(Progress, ResumedRunsCountOnlyTheirOwnWork) {
  FakeClock clock;
  std::ostringstream out;
  ProgressPrinter printer(out, false, 0s, clock.function());
  printer.update(at(50));
  clock.now += 2s;
  printer.update(at(60)); // 320 images in 2 s, 0.2 s per step, 40 left → 8 s
  EXPECT_NE(out.str().find("160.0 img/s | ETA 0:00:08"), std::string::npos) << out.str();
}

TEST(Progress, LogsPrintAtMostOncePerInterval) {
  FakeClock clock;
  std::ostringstream out;
  ProgressPrinter printer(out, false, 10s, clock.function());
  for (int t = 0; t <= 25; ++t) {
    printer.update(at(static_cast<std::uint64_t>(t)));
    clock.now += 1s;
  }
  EXPECT_EQ(countOf(out.str(), '\n'), 3u) << out.str(); // t = 0, 10, 20
  EXPECT_EQ(countOf(out.str(), '\r'), 0u);
  printer.finish(at(26));
  EXPECT_EQ(countOf(out.str(), '\n'), 4u);
  EXPECT_NE(out.str().find("step 26/100"), std::string::npos);
}

TEST(Progress, TerminalsRewriteOneLine) {
  FakeClock clock;
  std::ostringstream out;
  ProgressPrinter printer(out, true, 10s, clock.function());
  ProgressState longer = at(1);
  longer.accuracy = 0.5;
  printer.update(longer);
  clock.now += 1s;
  printer.update(at(2)); // shorter: the tail of the previous line is blanked
  clock.now += 1s;
  printer.finish(at(3));
  const std::string text = out.str();
  EXPECT_EQ(countOf(text, '\r'), 3u) << text;
  EXPECT_EQ(countOf(text, '\n'), 1u) << text;
  EXPECT_EQ(text.back(), '\n');
  const std::string first = formatProgressLine(longer, -1, -1);
  const std::size_t second = text.find('\r', 1);
  const std::size_t third = text.find('\r', second + 1);
  EXPECT_EQ(third - second - 1, first.size()); // padded to the longer line's width
}
