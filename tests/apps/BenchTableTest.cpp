#include <tessera/apps/BenchReport.hpp>
#include <tessera/apps/Errors.hpp>

#include <gtest/gtest.h>

using namespace tessera::apps;

namespace {

BenchmarkRecord record(const std::string &version, const std::string &benchmark,
                       const std::string &hostClass, double throughput,
                       std::optional<double> timeToTrain = std::nullopt,
                       const std::string &timestamp = "2026-01-01T00:00:00Z") {
  BenchmarkRecord r;
  r.set_sdk_version(version);
  r.set_benchmark(benchmark);
  r.set_app("resnet50");
  r.set_git_commit("c0ffee1");
  r.mutable_host()->set_host_class(hostClass);
  r.mutable_host()->set_cpu_model("Test CPU");
  r.mutable_host()->set_cores(2);
  r.set_throughput_images_per_second(throughput);
  if (timeToTrain)
    r.set_time_to_target_seconds(*timeToTrain);
  r.set_final_accuracy(0.9);
  r.set_timestamp(timestamp);
  return r;
}

std::vector<BenchmarkRecord> history() {
  return {
      record("0.1.0", "throughput", "a", 100.0),
      record("0.2.0", "throughput", "a", 250.0),
      record("0.10.0", "throughput", "a", 400.0),
      record("0.1.0", "tta", "a", 80.0, 1200.0),
      record("0.2.0", "tta", "a", 90.0), // did not reach the target
      record("0.10.0", "tta", "a", 160.0, 300.0),
      record("0.2.0", "throughput", "b", 1.0),    // other host class: never compared
      record("0.11.0", "throughput", "a", 999.0), // later than current: not a baseline
  };
}

} // namespace

TEST(BenchTable, VersionsCompareNumerically) {
  EXPECT_LT(compareVersions("0.9.2", "0.10.0"), 0);
  EXPECT_GT(compareVersions("1.0", "0.99.99"), 0);
  EXPECT_EQ(compareVersions("1.2", "1.2.0"), 0);
  EXPECT_LT(compareVersions("1.2.0-rc1", "1.2.0-rc2"), 0);
}

TEST(BenchTable, SpeedupsOverEveryEarlierVersionOnTheSameHostClass) {
  const auto rows = speedupTable(history(), "0.10.0", "a");
  ASSERT_EQ(rows.size(), 4u);
  // Benchmarks alphabetically, newest baseline first.
  EXPECT_EQ(rows[0].benchmark, "throughput");
  EXPECT_EQ(rows[0].baselineVersion, "0.2.0");
  EXPECT_DOUBLE_EQ(rows[0].throughputRatio, 400.0 / 250.0);
  EXPECT_FALSE(rows[0].timeToTrainRatio.has_value());
  EXPECT_EQ(rows[1].baselineVersion, "0.1.0");
  EXPECT_DOUBLE_EQ(rows[1].throughputRatio, 4.0);
  EXPECT_EQ(rows[2].benchmark, "tta");
  EXPECT_EQ(rows[2].baselineVersion, "0.2.0");
  EXPECT_DOUBLE_EQ(rows[2].throughputRatio, 160.0 / 90.0);
  EXPECT_FALSE(rows[2].timeToTrainRatio.has_value()); // baseline never reached the target
  EXPECT_EQ(rows[3].baselineVersion, "0.1.0");
  EXPECT_DOUBLE_EQ(rows[3].throughputRatio, 2.0);
  ASSERT_TRUE(rows[3].timeToTrainRatio.has_value());
  EXPECT_DOUBLE_EQ(*rows[3].timeToTrainRatio, 1200.0 / 300.0);
  for (const auto &r : rows)
    EXPECT_EQ(r.currentVersion, "0.10.0");
  EXPECT_TRUE(speedupTable(history(), "0.10.0", "c").empty());
  EXPECT_TRUE(speedupTable(history(), "0.1.0", "a").empty()); // nothing earlier
}

TEST(BenchTable, LatestRecordWinsForTheSameVersion) {
  auto records = history();
  records.push_back(
      record("0.1.0", "throughput", "a", 200.0, std::nullopt, "2026-06-01T00:00:00Z"));
  const auto rows = speedupTable(records, "0.10.0", "a");
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[1].baselineVersion, "0.1.0");
  EXPECT_DOUBLE_EQ(rows[1].throughputRatio, 2.0);
}

TEST(BenchTable, FormattedTableShowsRatios) {
  const std::string text = formatSpeedupTable(speedupTable(history(), "0.10.0", "a"));
  EXPECT_NE(text.find("4.00x"), std::string::npos) << text;
  EXPECT_NE(text.find("1.60x"), std::string::npos) << text;
  EXPECT_NE(text.find("1200.0"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 5); // header + 4 rows
}

TEST(BenchTable, PerformancePerDollar) {
  // $87660 over 10 years of 8766 hours is $1/h.
  EXPECT_DOUBLE_EQ(pricePerHourFromSystem(87660.0, 10.0), 1.0);
  const auto figures = costFigures(record("0.1.0", "tta", "a", 500.0, 7200.0), 2.5);
  EXPECT_DOUBLE_EQ(figures.imagesPerSecondPerDollarHour, 200.0);
  ASSERT_TRUE(figures.costToTrain.has_value());
  EXPECT_DOUBLE_EQ(*figures.costToTrain, 5.0);
  EXPECT_FALSE(costFigures(record("0.1.0", "t", "a", 1.0), 1.0).costToTrain.has_value());
}

TEST(BenchTable, BadPricesNameTheFlag) {
  auto messageOf = [](auto &&f) -> std::string {
    try {
      f();
    } catch (const app_error &e) {
      return e.what();
    }
    return "no app_error";
  };
  EXPECT_NE(messageOf([] { pricePerHourFromSystem(0, 3); }).find("--system-price"),
            std::string::npos);
  EXPECT_NE(messageOf([] { pricePerHourFromSystem(1000, -1); }).find("--amortisation-years"),
            std::string::npos);
  EXPECT_NE(messageOf([] { costFigures(BenchmarkRecord(), 0); }).find("--price-per-hour"),
            std::string::npos);
}

TEST(BenchTable, ReleasesSectionListsVersionsNewestFirst) {
  const std::string section = releasesSection(history());
  EXPECT_EQ(section.rfind(kReleasesBeginMarker, 0), 0u);
  EXPECT_NE(section.find(kReleasesEndMarker), std::string::npos);
  EXPECT_NE(section.find("### a (Test CPU, 2 CPUs)"), std::string::npos) << section;
  EXPECT_NE(section.find("### b"), std::string::npos) << section;
  EXPECT_NE(section.find("| 0.10.0 | throughput | c0ffee1 | 400.0 | 1.60x vs 0.2.0 |"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("| 0.1.0 | tta | c0ffee1 | 80.0 | - | 1200.0 s | 90.00% |"),
            std::string::npos)
      << section;
  EXPECT_LT(section.find("| 0.11.0 |"), section.find("| 0.10.0 |"));
  EXPECT_LT(section.find("| 0.10.0 |"), section.find("| 0.2.0 |"));
}

TEST(BenchTable, ReleasesSectionIsReplacedInPlace) {
  const std::string section =
      std::string(kReleasesBeginMarker) + "\nnew\n" + kReleasesEndMarker + "\n";
  const std::string document = std::string("# Releases\n\nintro\n") + kReleasesBeginMarker +
                               "\nold\n" + kReleasesEndMarker + "\n## 0.1.0\nnotes\n";
  EXPECT_EQ(replaceReleasesSection(document, section),
            "# Releases\n\nintro\n" + section + "## 0.1.0\nnotes\n");
  EXPECT_EQ(replaceReleasesSection("# Releases", section), "# Releases\n\n" + section);
  EXPECT_EQ(replaceReleasesSection("", section), section);
  try {
    replaceReleasesSection(std::string("x ") + kReleasesBeginMarker, section);
    FAIL() << "no app_error";
  } catch (const app_error &e) {
    EXPECT_NE(std::string(e.what()).find("unmatched"), std::string::npos) << e.what();
  }
}
