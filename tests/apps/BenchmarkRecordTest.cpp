#include "TempDir.hpp"

#include <tessera/apps/BenchmarkRecord.hpp>
#include <tessera/apps/Errors.hpp>

#include <poplar/Version.hpp>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <fstream>

using namespace tessera::apps;
using google::protobuf::util::MessageDifferencer;
using tessera::apps::testing::TempDir;

namespace {

BenchmarkRecord fullRecord() {
  BenchmarkRecord r;
  r.set_sdk_version("0.2.0");
  r.set_sdk_version_string("Tessera 0.2.0 (abc)");
  r.set_git_commit("ee6b876");
  r.set_app("resnet50");
  r.set_benchmark("resnet50-synthetic-throughput");
  (*r.mutable_config())["batch-size"] = "32";
  (*r.mutable_config())["precision"] = "16.16";
  r.mutable_host()->set_cpu_model("Intel(R) Xeon(R) Processor");
  r.mutable_host()->set_cores(2);
  r.mutable_host()->set_host_class("intel-xeon-2c");
  r.set_timestamp("2026-12-02T19:00:00Z");
  r.set_throughput_images_per_second(1234.5);
  r.set_time_to_target_seconds(3600.25);
  r.set_target_accuracy(0.9);
  r.set_final_accuracy(0.9125);
  r.set_epochs(10);
  (*r.mutable_metrics())["compile-seconds"] = 12.5;
  return r;
}

template <typename F> std::string recordErrorOf(F &&f) {
  try {
    f();
  } catch (const record_error &e) {
    return e.what();
  }
  ADD_FAILURE() << "no record_error thrown";
  return "";
}

} // namespace

TEST(BenchmarkRecord, JsonRoundTrip) {
  const BenchmarkRecord r = fullRecord();
  const std::string json = benchmarkRecordToJson(r);
  EXPECT_NE(json.find("\"throughputImagesPerSecond\": 1234.5"), std::string::npos) << json;
  EXPECT_NE(json.find("\"timeToTargetSeconds\""), std::string::npos) << json;
  const BenchmarkRecord back = benchmarkRecordFromJson(json, "inline");
  EXPECT_TRUE(MessageDifferencer::Equals(r, back));
  EXPECT_TRUE(back.has_time_to_target_seconds());
}

TEST(BenchmarkRecord, UnsetTimeToTargetStaysUnset) {
  BenchmarkRecord r = fullRecord();
  r.clear_time_to_target_seconds();
  const std::string json = benchmarkRecordToJson(r);
  EXPECT_EQ(json.find("timeToTargetSeconds"), std::string::npos) << json;
  EXPECT_FALSE(benchmarkRecordFromJson(json, "inline").has_time_to_target_seconds());
}

TEST(BenchmarkRecord, SaveAndLoadJsonAndBinary) {
  TempDir dir;
  const BenchmarkRecord r = fullRecord();
  saveBenchmarkRecord(dir / "r.json", r);
  saveBenchmarkRecord(dir / "sub" / "r.pb", r);
  EXPECT_TRUE(MessageDifferencer::Equals(loadBenchmarkRecord(dir / "r.json"), r));
  EXPECT_TRUE(MessageDifferencer::Equals(loadBenchmarkRecord(dir / "sub" / "r.pb"), r));
  std::ifstream in(dir / "r.json");
  EXPECT_EQ(in.get(), '{');
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            2); // r.json and sub: no temporaries left
}

TEST(BenchmarkRecord, CorruptFilesNameTheFile) {
  TempDir dir;
  std::ofstream(dir / "bad.json") << "{\"sdkVersion\": \"0.1.0\", \"throughput";
  std::string m = recordErrorOf([&] { loadBenchmarkRecord(dir / "bad.json"); });
  EXPECT_NE(m.find((dir / "bad.json").string()), std::string::npos) << m;
  std::ofstream(dir / "unknown.json") << "{\"sdkVersion\": \"0.1.0\", \"speed\": 3}";
  m = recordErrorOf([&] { loadBenchmarkRecord(dir / "unknown.json"); });
  EXPECT_NE(m.find("speed"), std::string::npos) << m;
  std::ofstream(dir / "empty.json") << "{}";
  m = recordErrorOf([&] { loadBenchmarkRecord(dir / "empty.json"); });
  EXPECT_NE(m.find("sdkVersion"), std::string::npos) << m;
  std::ofstream(dir / "bad.pb") << "\xff\xff\xff\xff garbage";
  m = recordErrorOf([&] { loadBenchmarkRecord(dir / "bad.pb"); });
  EXPECT_NE(m.find((dir / "bad.pb").string()), std::string::npos) << m;
  m = recordErrorOf([&] { loadBenchmarkRecord(dir / "missing.json"); });
  EXPECT_NE(m.find((dir / "missing.json").string()), std::string::npos) << m;
}

TEST(BenchmarkRecord, HostClassFromCpuModelAndCores) {
  EXPECT_EQ(hostClassOf("Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", 8),
            "intel-xeon-platinum-8375c-8c");
  EXPECT_EQ(hostClassOf("AMD EPYC 7R13 Processor", 96), "amd-epyc-7r13-96c");
  EXPECT_EQ(hostClassOf("", 1), "unknown-cpu-1c");
  const HostInfo host = hostInfoFromCpuinfo("processor\t: 0\nvendor_id\t: GenuineIntel\n"
                                            "model name\t: Intel(R) Core(TM) i7-8700 CPU @ "
                                            "3.20GHz\nprocessor\t: 1\nmodel name\t: other\n",
                                            12);
  EXPECT_EQ(host.cpu_model(), "Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz");
  EXPECT_EQ(host.cores(), 12u);
  EXPECT_EQ(host.host_class(), "intel-core-i7-8700-12c");
  EXPECT_EQ(hostInfoFromCpuinfo("", 2).cpu_model(), "unknown-cpu");
  const HostInfo here = detectHost();
  EXPECT_GT(here.cores(), 0u);
  EXPECT_EQ(here.host_class(), hostClassOf(here.cpu_model(), here.cores()));
}

TEST(BenchmarkRecord, GitCommitIsUnknownOutsideARepository) {
  TempDir dir;
  EXPECT_EQ(gitCommit(dir.path()), "unknown");
  const std::string commit = gitCommit();
  EXPECT_FALSE(commit.empty());
  EXPECT_TRUE(commit == "unknown" ||
              commit.find_first_not_of("0123456789abcdef") == std::string::npos)
      << commit;
}

TEST(BenchmarkRecord, NewRecordCarriesVersionHostAndTime) {
  const BenchmarkRecord r = newBenchmarkRecord("resnet50");
  EXPECT_EQ(r.sdk_version(), poplar::versionNumber());
  EXPECT_EQ(r.sdk_version_string(), poplar::versionString());
  EXPECT_EQ(r.app(), "resnet50");
  EXPECT_FALSE(r.host().host_class().empty());
  ASSERT_EQ(r.timestamp().size(), 20u) << r.timestamp();
  EXPECT_EQ(r.timestamp().back(), 'Z');
}

TEST(BenchmarkRecord, FileNamesAndDirectoryListing) {
  TempDir dir;
  BenchmarkRecord r = fullRecord();
  EXPECT_EQ(benchmarkRecordFileName(r), "0.2.0_resnet50-synthetic-throughput_intel-xeon-2c.json");
  r.set_benchmark("a/b c");
  EXPECT_EQ(benchmarkRecordFileName(r), "0.2.0_a-b-c_intel-xeon-2c.json");
  EXPECT_TRUE(loadBenchmarkRecords(dir / "absent").empty());
  BenchmarkRecord second = fullRecord();
  second.set_sdk_version("0.1.0");
  saveBenchmarkRecord(dir / benchmarkRecordFileName(fullRecord()), fullRecord());
  saveBenchmarkRecord(dir / benchmarkRecordFileName(second), second);
  std::ofstream(dir / "README.md") << "not a record";
  const auto records = loadBenchmarkRecords(dir.path());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].sdk_version(), "0.1.0");
  EXPECT_EQ(records[1].sdk_version(), "0.2.0");
}

TEST(BenchmarkRecord, RunSummaryFillsTheRecordWithProvenance) {
  tessera::apps::RunSummary run;
  run.app = "bert";
  run.config = {{"config", "mini"}, {"batch_size", "16"}};
  run.samplesPerSecond = 37.5;
  run.timeToTargetSeconds = 120.0;
  run.targetAccuracy = 0.3;
  run.finalAccuracy = 0.31;
  run.epochs = 2;
  run.metrics = {{"compile_seconds", 3.5}};
  const auto record = tessera::apps::benchmarkRecordOf(run);
  EXPECT_EQ(record.app(), "bert");
  EXPECT_FALSE(record.sdk_version().empty());
  EXPECT_FALSE(record.host().host_class().empty());
  EXPECT_EQ(record.config().at("batch_size"), "16");
  EXPECT_EQ(record.throughput_images_per_second(), 37.5);
  EXPECT_TRUE(record.has_time_to_target_seconds());
  EXPECT_EQ(record.time_to_target_seconds(), 120.0);
  EXPECT_EQ(record.final_accuracy(), 0.31);
  EXPECT_EQ(record.epochs(), 2u);
  EXPECT_EQ(record.metrics().at("compile_seconds"), 3.5);
  run.timeToTargetSeconds.reset();
  EXPECT_FALSE(tessera::apps::benchmarkRecordOf(run).has_time_to_target_seconds());
}
