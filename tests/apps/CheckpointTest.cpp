#include "TempDir.hpp"

#include <tessera/apps/Checkpoint.hpp>
#include <tessera/apps/Errors.hpp>

#include <poplar/Version.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

using namespace tessera::apps;
using tessera::apps::testing::TempDir;

namespace {

CheckpointState sampleState() {
  CheckpointState s;
  s.modelName = "resnet50";
  s.config = {{"batch-size", "32"}, {"precision", "32.32"}};
  s.step = 1234;
  s.epoch = 3;
  s.loaderPosition = {3, 17};
  NamedTensor w{"conv1/weights", {2, 3}, {}};
  // Awkward values that a lossy encoding would change: -0, denormal, NaN payload, infinities.
  const std::uint32_t nanBits = 0x7fc01234u;
  float nan;
  std::memcpy(&nan, &nanBits, sizeof nan);
  w.data = {-0.0f,       std::numeric_limits<float>::denorm_min(),
            nan,         std::numeric_limits<float>::infinity(),
            1.0f / 3.0f, -1e30f};
  s.tensors.push_back(w);
  s.tensors.push_back({"fc/bias", {4}, {0.1f, 0.2f, 0.3f, 0.4f}});
  s.optimiserState.push_back({"conv1/weights/momentum", {2, 3}, {1, 2, 3, 4, 5, 6}});
  s.rngState = {0xdeadbeefu, 7u, 0u, 0xffffffffu};
  return s;
}

bool sameBits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::string readBytes(const std::filesystem::path &f) {
  std::ifstream in(f, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeBytes(const std::filesystem::path &f, const std::string &bytes) {
  std::ofstream(f, std::ios::binary) << bytes;
}

template <typename F> std::string checkpointErrorOf(F &&f) {
  try {
    f();
  } catch (const checkpoint_error &e) {
    return e.what();
  }
  ADD_FAILURE() << "no checkpoint_error thrown";
  return "";
}

} // namespace

TEST(Checkpoint, RoundTripIsBitExact) {
  TempDir dir;
  const CheckpointState in = sampleState();
  const std::filesystem::path file = writeCheckpoint(dir.path(), in);
  EXPECT_EQ(file.filename(), "checkpoint-0000001234.tckpt");
  const CheckpointState out = readCheckpoint(file);
  EXPECT_EQ(out.modelName, in.modelName);
  EXPECT_EQ(out.config, in.config);
  EXPECT_EQ(out.sdkVersion, poplar::versionString());
  EXPECT_EQ(out.step, in.step);
  EXPECT_EQ(out.epoch, in.epoch);
  EXPECT_EQ(out.loaderPosition, in.loaderPosition);
  EXPECT_EQ(out.rngState, in.rngState);
  ASSERT_EQ(out.tensors.size(), 2u);
  ASSERT_EQ(out.optimiserState.size(), 1u);
  for (std::size_t i = 0; i < in.tensors.size(); ++i) {
    EXPECT_EQ(out.tensors[i].name, in.tensors[i].name);
    EXPECT_EQ(out.tensors[i].shape, in.tensors[i].shape);
    EXPECT_TRUE(sameBits(out.tensors[i].data, in.tensors[i].data)) << in.tensors[i].name;
  }
  EXPECT_EQ(out.optimiserState[0].name, "conv1/weights/momentum");
  EXPECT_TRUE(sameBits(out.optimiserState[0].data, in.optimiserState[0].data));
}

TEST(Checkpoint, AtomicWriteLeavesOnlyTheCheckpoint) {
  TempDir dir;
  CheckpointState s = sampleState();
  const auto file = writeCheckpoint(dir / "nested", s);
  writeCheckpoint(dir / "nested", s); // overwrite in place
  std::vector<std::string> names;
  for (const auto &e : std::filesystem::directory_iterator(dir / "nested"))
    names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{file.filename().string()});
}

TEST(Checkpoint, LatestCheckpointPicksTheHighestStep) {
  TempDir dir;
  EXPECT_FALSE(latestCheckpoint(dir / "absent").has_value());
  EXPECT_FALSE(latestCheckpoint(dir.path()).has_value());
  CheckpointState s = sampleState();
  for (std::uint64_t step : {5u, 100u, 20u}) {
    s.step = step;
    writeCheckpoint(dir.path(), s);
  }
  writeBytes(dir / ".checkpoint-0000009999.tckpt.tmp.1", "partial");
  writeBytes(dir / "checkpoint-notanumber.tckpt", "x");
  writeBytes(dir / "notes.txt", "x");
  const auto latest = latestCheckpoint(dir.path());
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->filename(), "checkpoint-0000000100.tckpt");
  EXPECT_EQ(readCheckpoint(*latest).step, 100u);
}

TEST(Checkpoint, NotACheckpointNamesTheFile) {
  TempDir dir;
  writeBytes(dir / "weights.bin", "hello, this is not a checkpoint at all");
  const std::string m = checkpointErrorOf([&] { readCheckpoint(dir / "weights.bin"); });
  EXPECT_NE(m.find((dir / "weights.bin").string()), std::string::npos) << m;
  EXPECT_NE(m.find("not a Tessera checkpoint"), std::string::npos) << m;
  const std::string missing = checkpointErrorOf([&] { readCheckpoint(dir / "none.tckpt"); });
  EXPECT_NE(missing.find((dir / "none.tckpt").string()), std::string::npos) << missing;
}

TEST(Checkpoint, TruncatedFileNamesTheFile) {
  TempDir dir;
  const auto file = writeCheckpoint(dir.path(), sampleState());
  const std::string bytes = readBytes(file);
  for (std::size_t keep : {bytes.size() - 1, bytes.size() / 2, std::size_t{12}}) {
    writeBytes(file, bytes.substr(0, keep));
    const std::string m = checkpointErrorOf([&] { readCheckpoint(file); });
    EXPECT_NE(m.find(file.string()), std::string::npos) << m;
    EXPECT_NE(m.find("truncated"), std::string::npos) << keep << ": " << m;
  }
}

TEST(Checkpoint, CorruptPayloadNamesTheFile) {
  TempDir dir;
  const auto file = writeCheckpoint(dir.path(), sampleState());
  std::string bytes = readBytes(file);
  bytes[bytes.size() - 5] ^= 0x40;
  writeBytes(file, bytes);
  const std::string m = checkpointErrorOf([&] { readCheckpoint(file); });
  EXPECT_NE(m.find(file.string()), std::string::npos) << m;
  EXPECT_NE(m.find("corrupt"), std::string::npos) << m;
}

TEST(Checkpoint, OtherModelOrConfigNamesTheFieldAndBothValues) {
  const CheckpointState s = sampleState();
  const std::filesystem::path file = "/ckpt/checkpoint-0000001234.tckpt";
  EXPECT_NO_THROW(checkCheckpointMatches(s, file, "resnet50", {{"batch-size", "32"}}));
  const std::string model = checkpointErrorOf([&] { checkCheckpointMatches(s, file, "vgg", {}); });
  EXPECT_NE(model.find("'resnet50'"), std::string::npos) << model;
  EXPECT_NE(model.find("'vgg'"), std::string::npos) << model;
  EXPECT_NE(model.find(file.string()), std::string::npos) << model;
  const std::string config = checkpointErrorOf([&] {
    checkCheckpointMatches(s, file, "resnet50", {{"batch-size", "64"}});
  });
  EXPECT_NE(config.find("'batch-size'"), std::string::npos) << config;
  EXPECT_NE(config.find("'32'"), std::string::npos) << config;
  EXPECT_NE(config.find("'64'"), std::string::npos) << config;
  const std::string absent = checkpointErrorOf([&] {
    checkCheckpointMatches(s, file, "resnet50", {{"image-size", "32"}});
  });
  EXPECT_NE(absent.find("'image-size'"), std::string::npos) << absent;
}

TEST(Checkpoint, TensorShapeMismatchNamesTheTensor) {
  const CheckpointState s = sampleState();
  const std::filesystem::path file = "ck.tckpt";
  EXPECT_EQ(findCheckpointTensor(s.tensors, "fc/bias", {4}, file).data[2], 0.3f);
  const std::string shape =
      checkpointErrorOf([&] { findCheckpointTensor(s.tensors, "fc/bias", {5}, file); });
  EXPECT_NE(shape.find("'fc/bias'"), std::string::npos) << shape;
  EXPECT_NE(shape.find("[4]"), std::string::npos) << shape;
  EXPECT_NE(shape.find("[5]"), std::string::npos) << shape;
  const std::string missing =
      checkpointErrorOf([&] { findCheckpointTensor(s.optimiserState, "fc/bias", {4}, file); });
  EXPECT_NE(missing.find("'fc/bias'"), std::string::npos) << missing;
}

TEST(Checkpoint, WritingAMalformedTensorNamesIt) {
  TempDir dir;
  CheckpointState s = sampleState();
  s.tensors[1].shape = {3};
  const std::string m = checkpointErrorOf([&] { writeCheckpoint(dir.path(), s); });
  EXPECT_NE(m.find("'fc/bias'"), std::string::npos) << m;
  EXPECT_FALSE(latestCheckpoint(dir.path()).has_value());
}

TEST(Checkpoint, UnwritableDirectoryNamesThePath) {
  TempDir dir;
  writeBytes(dir / "file", "a regular file, not a directory");
  const std::string m = checkpointErrorOf([&] { writeCheckpoint(dir / "file", sampleState()); });
  EXPECT_NE(m.find((dir / "file").string()), std::string::npos) << m;
}
