#include "CodeletTestSupport.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <poplar/IPUModel.hpp>

namespace codelettest {

namespace fs = std::filesystem;

std::string fixture(const std::string &name) {
  return std::string(TESSERA_CODELET_FIXTURES) + "/" + name;
}

tessera::testing::RunVertexOptions fixtureOptions(const std::string &name) {
  tessera::testing::RunVertexOptions options;
  options.codeletFiles = {fixture(name)};
  return options;
}

TempDir::TempDir() {
  static std::atomic<unsigned> counter{0};
  fs::create_directories(TESSERA_TEST_TMP);
  path_ = (fs::path(TESSERA_TEST_TMP) / std::string("t")
                                            .append(std::to_string(getpid()))
                                            .append("-")
                                            .append(std::to_string(counter++)))
              .string();
  fs::remove_all(path_);
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string TempDir::write(const std::string &name, const std::string &contents) const {
  const std::string p = path_ + "/" + name;
  std::ofstream(p) << contents;
  return p;
}

poplar::Device device(unsigned tiles) {
  poplar::IPUModel model;
  model.tilesPerIPU = tiles;
  return model.createDevice();
}

int run(const std::string &command, std::string *output) {
  FILE *pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe)
    return -1;
  std::string text;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe))
    text.append(buf, n);
  const int status = pclose(pipe);
  if (output)
    *output = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string readText(const std::string &path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {
/// Every test process gets its own codelet cache, so tests never see each other's objects
/// (or the user's cache) and leave nothing behind.
class PerProcessCache : public ::testing::Environment {
public:
  void SetUp() override {
    dir_ = std::make_unique<TempDir>();
    setenv("TESSERA_CODELET_CACHE", dir_->path().c_str(), 1);
    unsetenv("TESSERA_CXX");
  }
  void TearDown() override { dir_.reset(); }

private:
  std::unique_ptr<TempDir> dir_;
};
[[maybe_unused]] ::testing::Environment *const kCache =
    ::testing::AddGlobalTestEnvironment(new PerProcessCache);
} // namespace

} // namespace codelettest
