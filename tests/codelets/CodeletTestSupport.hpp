// Shared by the codelet tests: fixture paths, temporary directories, a one-tile device.
#pragma once

#include <string>

#include <poplar/Device.hpp>
#include <tessera/testing/RunVertex.hpp>

namespace codelettest {

/// Absolute path of fixture `name` in tests/codelets/fixtures.
std::string fixture(const std::string &name);

/// runVertex options that load fixture `name` (compiled, or taken from the codelet cache).
tessera::testing::RunVertexOptions fixtureOptions(const std::string &name);

/// A fresh directory under the build tree, removed with everything in it on destruction.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return path_; }
  /// Writes `contents` to `<dir>/<name>` and returns its path.
  std::string write(const std::string &name, const std::string &contents) const;

private:
  std::string path_;
};

/// An IPU Model device with `tiles` tiles.
poplar::Device device(unsigned tiles = 1);

/// Runs `command` through the shell; returns its exit status and fills `output` with what it
/// printed (stdout and stderr).
int run(const std::string &command, std::string *output = nullptr);

/// The contents of a file ("" when missing).
std::string readText(const std::string &path);

} // namespace codelettest
