// The pieces every binary file of the apps is built from: the envelope (magic, version, size,
// CRC-32) reports each kind of damage naming the file, and the atomic write replaces a file whole
// or not at all, never leaving its temporary file behind.
#include "TempDir.hpp"

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/FileEnvelope.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <thread>
#include <vector>

using namespace tessera::apps;
using tessera::apps::testing::TempDir;

namespace {

constexpr EnvelopeFormat kTestFormat("TSRTEST\n", 1, "test file");

std::string readBytes(const std::filesystem::path &f) {
  std::ifstream in(f, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeBytes(const std::filesystem::path &f, const std::string &bytes) {
  std::ofstream(f, std::ios::binary) << bytes;
}

std::vector<std::string> namesIn(const std::filesystem::path &directory) {
  std::vector<std::string> names;
  for (const auto &e : std::filesystem::directory_iterator(directory))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A payload with every byte value, NULs included, so nothing treats it as text.
std::string binaryPayload() {
  std::string payload;
  for (int round = 0; round < 3; ++round)
    for (int b = 0; b < 256; ++b)
      payload.push_back(static_cast<char>(b));
  return payload;
}

template <typename Error> std::string errorOf(const std::function<void()> &call) {
  try {
    call();
  } catch (const Error &e) {
    return e.what();
  }
  ADD_FAILURE() << "nothing thrown";
  return "";
}

} // namespace

TEST(FileEnvelope, SealedPayloadOpensUnchanged) {
  for (const std::string &payload : {binaryPayload(), std::string()}) {
    const std::string sealed = sealEnvelope(kTestFormat, payload);
    ASSERT_EQ(sealed.size(), EnvelopeFormat::kHeaderBytes + payload.size());
    EXPECT_EQ(sealed.substr(0, 8), "TSRTEST\n");
    EXPECT_EQ(sealed.substr(0, EnvelopeFormat::kHeaderBytes), envelopeHeader(kTestFormat, payload));
    const std::string_view opened = openEnvelope(kTestFormat, sealed, "inline");
    EXPECT_EQ(opened, payload);
    // A view into the caller's bytes, not a copy.
    EXPECT_EQ(opened.data(), sealed.data() + EnvelopeFormat::kHeaderBytes);
  }
}

TEST(FileEnvelope, HeaderFieldsAreLittleEndian) {
  constexpr EnvelopeFormat format("ABCDEFG\n", 0x01020304u, "layout test");
  const std::string sealed = sealEnvelope(format, "hello");
  EXPECT_EQ(sealed.substr(8, 4), std::string("\x04\x03\x02\x01", 4));
  EXPECT_EQ(sealed.substr(12, 8), std::string("\x05\0\0\0\0\0\0\0", 8));
  // CRC-32 (ISO-HDLC, as zlib and Python's zlib.crc32 compute it) of "hello" is 0x3610a686.
  EXPECT_EQ(sealed.substr(20, 4), std::string("\x86\xa6\x10\x36", 4));
}

TEST(FileEnvelope, EachDamageIsReportedNamingTheFile) {
  const std::filesystem::path file = "/data/run-7/weights.bin";
  const std::string good = sealEnvelope(kTestFormat, binaryPayload());
  std::string otherVersion = good;
  otherVersion[8] = 2;
  std::string flippedPayload = good;
  flippedPayload[EnvelopeFormat::kHeaderBytes + 100] ^= 0x10;
  std::string flippedCrc = good;
  flippedCrc[21] ^= 0x01;
  struct Damage {
    const char *name;
    std::string bytes;
    EnvelopeProblem problem;
    const char *says;
  };
  const Damage damages[] = {
      {"another format's magic", sealEnvelope(EnvelopeFormat("TSRCKPT\n", 1, "x"), "p"),
       EnvelopeProblem::OtherFormat, "is not a test file (no TSRTEST header)"},
      {"text", "hello, this is not an envelope", EnvelopeProblem::OtherFormat, "not a test file"},
      {"empty", "", EnvelopeProblem::OtherFormat, "not a test file"},
      {"truncated header", good.substr(0, 12), EnvelopeProblem::Truncated,
       "is truncated: 12 bytes, shorter than the 24-byte test file header"},
      {"truncated payload", good.substr(0, good.size() - 1), EnvelopeProblem::Truncated,
       "is truncated: its header promises 768 payload bytes, only 767 are present"},
      {"header only", good.substr(0, EnvelopeFormat::kHeaderBytes), EnvelopeProblem::Truncated,
       "only 0 are present"},
      {"trailing bytes", good + "xyz", EnvelopeProblem::Corrupt,
       "is corrupt: 3 unexpected bytes after the payload"},
      {"other version", otherVersion, EnvelopeProblem::OtherVersion,
       "has test file format version 2; this build reads version 1"},
      {"flipped payload byte", flippedPayload, EnvelopeProblem::Corrupt, "is corrupt"},
      {"flipped CRC byte", flippedCrc, EnvelopeProblem::Corrupt, "CRC-32"},
  };
  for (const Damage &d : damages) {
    try {
      openEnvelope(kTestFormat, d.bytes, file);
      ADD_FAILURE() << d.name << ": no envelope_error";
    } catch (const envelope_error &e) {
      const std::string m = e.what();
      EXPECT_EQ(e.problem(), d.problem) << d.name << ": " << m;
      EXPECT_EQ(m.rfind(file.string(), 0), 0u) << d.name << ": " << m;
      EXPECT_NE(m.find(d.says), std::string::npos) << d.name << ": " << m;
      EXPECT_EQ(e.type, "envelope_error");
    }
  }
}

TEST(FileEnvelope, EnvelopeErrorsAreApplicationErrors) {
  EXPECT_THROW(openEnvelope(kTestFormat, "junk", "f"), app_error);
  EXPECT_THROW(openEnvelope(kTestFormat, "junk", "f"), poplar::poplar_error);
}

TEST(FileEnvelope, AtomicWriteReplacesAnExistingFileAndLeavesNoTemporary) {
  TempDir dir;
  const auto file = dir / "state.bin";
  writeBytes(file, "the old content, longer than the new one");
  writeFileAtomically(file, "new");
  EXPECT_EQ(readBytes(file), "new");
  // Parts are written back to back, as one file.
  const std::string payload = binaryPayload();
  writeFileAtomically(file, {envelopeHeader(kTestFormat, payload), payload});
  EXPECT_EQ(readBytes(file), sealEnvelope(kTestFormat, payload));
  writeFileAtomically(file, std::string_view());
  EXPECT_EQ(readBytes(file), "");
  EXPECT_EQ(namesIn(dir.path()), std::vector<std::string>{"state.bin"});
}

TEST(FileEnvelope, AtomicWriteCreatesMissingDirectories) {
  TempDir dir;
  const auto file = dir / "a" / "b" / "c.bin";
  writeFileAtomically(file, "deep");
  EXPECT_EQ(readBytes(file), "deep");
  EXPECT_EQ(namesIn(dir / "a" / "b"), std::vector<std::string>{"c.bin"});
}

TEST(FileEnvelope, AtomicWriteIntoAnUncreatableDirectoryNamesThePath) {
  TempDir dir;
  writeBytes(dir / "blocker", "a regular file where a directory should be");
  const auto file = dir / "blocker" / "sub" / "out.bin";
  const std::string m = errorOf<file_write_error>([&] { writeFileAtomically(file, "x"); });
  EXPECT_NE(m.find(file.string()), std::string::npos) << m;
  EXPECT_NE(m.find("creating the directory " + (dir / "blocker" / "sub").string()),
            std::string::npos)
      << m;
  EXPECT_EQ(readBytes(dir / "blocker"), "a regular file where a directory should be");
}

TEST(FileEnvelope, FailedAtomicWriteRemovesItsTemporaryFile) {
  TempDir dir;
  // A non-empty directory where the file should go: everything succeeds up to the rename.
  std::filesystem::create_directories(dir / "target" / "inside");
  const auto file = dir / "target";
  const std::string m = errorOf<file_write_error>([&] { writeFileAtomically(file, "x"); });
  EXPECT_NE(m.find("cannot write " + file.string()), std::string::npos) << m;
  EXPECT_NE(m.find("renaming"), std::string::npos) << m;
  EXPECT_EQ(namesIn(dir.path()), std::vector<std::string>{"target"});
  EXPECT_EQ(namesIn(dir / "target"), std::vector<std::string>{"inside"});
}

TEST(FileEnvelope, ConcurrentAtomicWritesLeaveOneWholeFile) {
  TempDir dir;
  const auto file = dir / "shared.bin";
  const std::string a(100000, 'a'), b(50000, 'b');
  std::vector<std::thread> writers;
  for (const std::string *content : {&a, &b})
    writers.emplace_back([&, content] {
      for (int i = 0; i < 20; ++i)
        writeFileAtomically(file, *content);
    });
  for (std::thread &t : writers)
    t.join();
  const std::string result = readBytes(file);
  EXPECT_TRUE(result == a || result == b) << result.size() << " bytes";
  EXPECT_EQ(namesIn(dir.path()), std::vector<std::string>{"shared.bin"});
}

TEST(FileEnvelope, ReadWholeFileReturnsEveryByte) {
  TempDir dir;
  std::string big;
  for (int i = 0; i < 5000; ++i)
    big += binaryPayload();
  writeBytes(dir / "big.bin", big);
  EXPECT_EQ(readWholeFile(dir / "big.bin"), big);
  writeBytes(dir / "empty.bin", "");
  EXPECT_EQ(readWholeFile(dir / "empty.bin"), "");
  // Files whose size stat reports as 0 are still read to the end.
  EXPECT_NE(readWholeFile("/proc/self/status").find("Name:"), std::string::npos);
}

TEST(FileEnvelope, ReadWholeFileErrorNamesTheKindAndPath) {
  TempDir dir;
  const auto missing = dir / "absent.tckpt";
  std::string m = errorOf<file_read_error>([&] { readWholeFile(missing, "checkpoint"); });
  EXPECT_NE(m.find("cannot open checkpoint " + missing.string()), std::string::npos) << m;
  m = errorOf<file_read_error>([&] { readWholeFile(dir.path(), "batch file"); });
  EXPECT_NE(m.find("cannot read batch file " + dir.path().string()), std::string::npos) << m;
}
