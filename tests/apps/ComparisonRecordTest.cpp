// Comparison records: JSON round trip, file names, errors naming a bad file, their separation
// from benchmark records in one directory, and the measured speedups RELEASES.md lists.
#include "TempDir.hpp"

#include <tessera/apps/BenchReport.hpp>
#include <tessera/apps/ComparisonRecord.hpp>
#include <tessera/apps/Errors.hpp>
#include <tessera/apps/ReleaseHistory.hpp>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <fstream>

using namespace tessera::apps;
using tessera::apps::testing::TempDir;

namespace {

ComparisonRecord comparison(const std::string &current, const std::string &baseline,
                            const std::string &benchmark, std::optional<double> speedup,
                            const std::string &hostClass = "intel-xeon-2c") {
  ComparisonRecord c;
  c.set_benchmark(benchmark);
  c.set_app("resnet50");
  c.set_bench_args("--synthetic-data --batch-size 32");
  c.add_trainer_args("--host-threads=2");
  c.mutable_host()->set_cpu_model("Intel(R) Xeon(R) Processor");
  c.mutable_host()->set_cores(2);
  c.mutable_host()->set_host_class(hostClass);
  c.set_timestamp("2027-01-10T12:00:00Z");
  c.set_rounds(3);
  for (auto [side, version, commit] : {std::tuple{c.mutable_current(), current, "aaaaaaa"},
                                       std::tuple{c.mutable_baseline(), baseline, "bbbbbbb"}}) {
    side->set_label(version);
    side->set_version(version);
    side->set_commit(commit);
    side->set_status(pb::SIDE_MEASURED);
    (*side->mutable_thread_settings())["host-threads"] = "2";
  }
  if (speedup) {
    for (unsigned round = 1; round <= 3; ++round)
      for (auto *side : {c.mutable_current(), c.mutable_baseline()}) {
        ComparisonRun &run = *side->add_runs();
        run.set_round(round);
        run.set_position(side == c.mutable_current() ? 1 + (round + 1) % 2 : 1 + round % 2);
        run.set_throughput(side == c.mutable_current() ? 180.0 + round : 100.0);
        run.set_steal_fraction(0.01 * round);
        run.set_compile_seconds(20.5);
        run.set_training_seconds(9.25);
        run.set_wall_seconds(31);
        run.set_peak_rss_kib(1u << 20);
        run.set_git_commit(side->commit());
      }
    c.set_speedup(*speedup);
    c.set_interval_low(*speedup - 0.2);
    c.set_interval_high(*speedup + 0.2);
    c.set_significant(true);
    c.set_interval_method("95% paired percentile bootstrap");
    c.set_confidence(0.95);
    c.set_resamples(10000);
    c.set_seed(20261206);
  } else {
    c.mutable_baseline()->set_status(pb::SIDE_NEW);
    c.mutable_baseline()->set_detail("the baseline has no resnet50 trainer");
  }
  return c;
}

void writeText(const std::filesystem::path &file, const std::string &text) {
  std::ofstream(file) << text;
}

} // namespace

TEST(ComparisonRecord, RoundTripsThroughAJsonFile) {
  TempDir dir;
  const ComparisonRecord original =
      comparison("0.2.0", "0.1.0", "resnet50-synthetic-throughput", 1.8);
  const auto file = dir / comparisonRecordFileName(original);
  EXPECT_EQ(file.filename(),
            "compare_0.2.0_vs_0.1.0_resnet50-synthetic-throughput_intel-xeon-2c.json");
  saveComparisonRecord(file, original);
  const ComparisonRecord loaded = loadComparisonRecord(file);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(original, loaded))
      << loaded.DebugString();
  EXPECT_DOUBLE_EQ(loaded.speedup(), 1.8);
  EXPECT_EQ(loaded.baseline().runs(2).peak_rss_kib(), 1u << 20);
  // No temporary file is left beside it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

TEST(ComparisonRecord, RevisionLabelsBecomeOneSafeFileName) {
  ComparisonRecord c = comparison("0.2.0", "0.1.0", "b", 1.0);
  c.mutable_baseline()->set_label("origin/main~2");
  EXPECT_EQ(comparisonRecordFileName(c), "compare_0.2.0_vs_origin-main-2_b_intel-xeon-2c.json");
}

TEST(ComparisonRecord, CorruptOrForeignFilesAreNamed) {
  TempDir dir;
  const auto corrupt = dir / "compare_x.json";
  writeText(corrupt, "{\"benchmark\": \"resnet50\", \"rounds\": ");
  const auto foreign = dir / "compare_y.json";
  writeText(foreign, "{\"sdkVersion\": \"0.1.0\", \"gitCommit\": \"abc\"}");
  const auto empty = dir / "compare_z.json";
  writeText(empty, "{}");
  for (const auto &file : {corrupt, foreign, empty, dir / "compare_missing.json"}) {
    try {
      loadComparisonRecord(file);
      FAIL() << file << " loaded";
    } catch (const record_error &e) {
      EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(loadComparisonRecords(dir.path()), record_error);
}

TEST(ComparisonRecord, BenchmarkAndComparisonRecordsShareADirectory) {
  TempDir dir;
  BenchmarkRecord r;
  r.set_sdk_version("0.1.0");
  r.set_benchmark("resnet50-synthetic-throughput");
  r.mutable_host()->set_host_class("intel-xeon-2c");
  saveBenchmarkRecord(dir / benchmarkRecordFileName(r), r);
  const ComparisonRecord c = comparison("0.2.0", "0.1.0", "resnet50-synthetic-throughput", 1.8);
  saveComparisonRecord(dir / comparisonRecordFileName(c), c);
  EXPECT_EQ(loadBenchmarkRecords(dir.path()).size(), 1u);
  EXPECT_EQ(loadComparisonRecords(dir.path()).size(), 1u);
}

TEST(ComparisonRecord, ReleasesListEachReleaseOverThePreviousOneCompared) {
  const std::vector<ComparisonRecord> comparisons = {
      comparison("0.2.0", "0.1.0", "resnet50-synthetic-throughput", 1.8),
      comparison("0.2.0", "0.2.0", "resnet50-synthetic-throughput", 1.1), // development commits
      comparison("0.3.0", "0.1.0", "resnet50-synthetic-throughput", 3.0), // not the previous one
      comparison("0.3.0", "0.2.0", "resnet50-synthetic-throughput", 1.5),
      comparison("0.2.0", "0.1.0", "bert-mini-mlm-accuracy", std::nullopt),
      comparison("0.2.0", "0.1.0", "resnet50-synthetic-throughput", 0.9, "amd-epyc-2c"),
  };
  const std::vector<std::string> expected = {
      "0.3.0 vs 0.2.0: resnet50-synthetic-throughput 1.50× [1.30–1.70] on intel-xeon-2c "
      "(3 rounds, aaaaaaa vs bbbbbbb, significant)",
      "0.2.0 vs 0.1.0: bert-mini-mlm-accuracy new on intel-xeon-2c",
      "0.2.0 vs 0.1.0: resnet50-synthetic-throughput 0.90× [0.70–1.10] on amd-epyc-2c "
      "(3 rounds, aaaaaaa vs bbbbbbb, significant)",
      "0.2.0 vs 0.1.0: resnet50-synthetic-throughput 1.80× [1.60–2.00] on intel-xeon-2c "
      "(3 rounds, aaaaaaa vs bbbbbbb, significant)",
  };
  EXPECT_EQ(measuredSpeedupLines(comparisons), expected);

  const std::string section = releasesSection({}, comparisons);
  EXPECT_NE(section.find("### Measured side by side"), std::string::npos);
  EXPECT_NE(section.find("- " + expected.back() + "\n"), std::string::npos) << section;
  EXPECT_EQ(section.rfind(kReleasesEndMarker),
            section.size() - std::string(kReleasesEndMarker).size() - 1);
  EXPECT_EQ(releasesSection({}).find("Measured side by side"), std::string::npos);
}

TEST(ComparisonRecord, IntervalBoundsShowEnoughDigitsToTellThemFromOne) {
  EXPECT_EQ(intervalText(0.614, 1.096), "[0.61–1.10]");
  // 0.998 would print as 1.00 and hide that the interval excludes 1 (it is significant).
  EXPECT_EQ(intervalText(0.61, 0.998), "[0.61–0.998]");
  EXPECT_EQ(intervalText(1.0004, 1.3), "[1.0004–1.30]");
  EXPECT_EQ(intervalText(0.99999, 1.0), "[1.0000–1.00]"); // four decimals at most
  EXPECT_EQ(intervalText(0.5, 1.0), "[0.50–1.00]");
}
