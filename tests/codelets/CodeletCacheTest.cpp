// The on-disk codelet cache: a fresh process reuses the object, and every input of the key
// (the file, what it includes, the flags) causes a recompile when it changes.
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poplar/Graph.hpp>
#include <tessera/Codelets.hpp>
#include <tessera/testing/RunVertex.hpp>

#include "CodeletTestSupport.hpp"

using codelettest::TempDir;
using ::testing::HasSubstr;

namespace {

/// A compiler wrapper that appends one line per invocation to `log`, then runs the real one.
std::string writeLoggingCompiler(const TempDir &dir, const std::string &log) {
  const std::string path =
      dir.write("logging-cxx.sh", "#!/bin/sh\necho \"$*\" >> '" + log +
                                      "'\nexec '" TESSERA_TEST_HOST_CXX "' \"$@\"\n");
  chmod(path.c_str(), 0755);
  return path;
}

std::size_t lines(const std::string &path) {
  const std::string text = codelettest::readText(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

/// Sets an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const std::string &value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

const char *kScaledSource = R"(#include <poplar/Vertex.hpp>
#include "scale.hpp"
class Scaled : public poplar::Vertex {
public:
  poplar::Input<float> in;
  poplar::Output<float> out;
  void compute() { *out = *in * SCALE * EXTRA; }
};
)";

float runScaled(const std::string &source, const std::string &flags = "-DEXTRA=1") {
  return tessera::testing::runVertex("Scaled", {{"in", 2.0f}, {"out", 0.0f}}, {{source}, flags, 6})
      .scalar<float>("out");
}

} // namespace

TEST(CodeletCache, SecondLoadInAFreshProcessStartsNoCompiler) {
  TempDir dir;
  const std::string log = dir.path() + "/compiler.log";
  const std::string cxx = writeLoggingCompiler(dir, log);
  const std::string source =
      dir.write("DotProduct.cpp", codelettest::readText(codelettest::fixture("DotProduct.cpp")));
  const std::string command = "TESSERA_CODELET_CACHE='" + dir.path() + "/cache' TESSERA_CXX='" +
                              cxx + "' '" TESSERA_CACHE_PROBE "' '" + source + "'";
  std::string first, second;
  ASSERT_EQ(codelettest::run(command, &first), 0) << first;
  EXPECT_THAT(first, HasSubstr("out=32"));
  EXPECT_EQ(lines(log), 1u) << "the first load compiles once";
  std::cout << "[ info ] first load (compiles): " << first;
  ASSERT_EQ(codelettest::run(command, &second), 0) << second;
  EXPECT_THAT(second, HasSubstr("out=32"));
  EXPECT_EQ(lines(log), 1u) << "the second process must not start the compiler:\n"
                            << codelettest::readText(log);
  std::cout << "[ info ] second load (cache hit): " << second;
}

TEST(CodeletCache, IncludedHeaderAndFlagsAreInTheKey) {
  TempDir dir;
  const std::string log = dir.path() + "/compiler.log";
  ScopedEnv cache("TESSERA_CODELET_CACHE", dir.path() + "/cache");
  ScopedEnv cxx("TESSERA_CXX", writeLoggingCompiler(dir, log));
  const std::string source = dir.write("Scaled.cpp", kScaledSource);
  dir.write("scale.hpp", "#define SCALE 2\n");
  EXPECT_EQ(runScaled(source), 4.0f);
  EXPECT_EQ(lines(log), 1u);
  EXPECT_EQ(runScaled(source), 4.0f);
  EXPECT_EQ(lines(log), 1u) << "unchanged: a cache hit";

  dir.write("scale.hpp", "#define SCALE 3\n");
  EXPECT_EQ(runScaled(source), 6.0f) << "the recompiled codelet replaces the old one";
  EXPECT_EQ(lines(log), 2u) << "an included header changed";

  dir.write("scale.hpp", "#define SCALE 2\n");
  EXPECT_EQ(runScaled(source), 4.0f);
  EXPECT_EQ(lines(log), 2u) << "back to the first header: its object is still cached";

  EXPECT_EQ(runScaled(source, "-DEXTRA=5"), 20.0f);
  EXPECT_EQ(lines(log), 3u) << "other flags, other object";
  std::size_t objects = 0;
  for (const auto &e : std::filesystem::directory_iterator(dir.path() + "/cache"))
    objects += e.path().extension() == ".so";
  EXPECT_EQ(objects, 3u) << "no temporary files are left behind";
}

TEST(CodeletCache, LocationComesFromTheEnvironment) {
  TempDir dir;
  {
    ScopedEnv cache("TESSERA_CODELET_CACHE", dir.path() + "/explicit");
    EXPECT_EQ(tessera::codeletCacheDirectory(), dir.path() + "/explicit");
  }
  ScopedEnv noCache("TESSERA_CODELET_CACHE", "");
  ScopedEnv xdg("XDG_CACHE_HOME", dir.path() + "/xdg");
  EXPECT_EQ(tessera::codeletCacheDirectory(), dir.path() + "/xdg/tessera/codelets");
  EXPECT_TRUE(std::filesystem::is_directory(dir.path() + "/xdg/tessera/codelets"));
}

TEST(CodeletCache, CodeletsAreBuiltForThisHostsInstructionSetAndItIsInTheKey) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "the flags below are x86's";
#endif
  TempDir dir;
  const std::string log = dir.path() + "/compiler.log";
  const std::string cxx = writeLoggingCompiler(dir, log);
  const std::string source =
      dir.write("DotProduct.cpp", codelettest::readText(codelettest::fixture("DotProduct.cpp")));
  const auto probe = [&](const std::string &targetFlags) {
    std::string env = "TESSERA_CODELET_CACHE='" + dir.path() + "/cache' TESSERA_CXX='" + cxx + "'";
    if (targetFlags != "default")
      env += " TESSERA_CODELET_TARGET_FLAGS='" + targetFlags + "'";
    std::string out;
    EXPECT_EQ(codelettest::run(env + " '" TESSERA_CACHE_PROBE "' '" + source + "'", &out), 0)
        << out;
    EXPECT_THAT(out, HasSubstr("out=32"));
  };
  probe("default");
  ASSERT_EQ(lines(log), 1u);
  const std::string command = codelettest::readText(log);
#if defined(__x86_64__)
  // The widest tier of those Highway dispatches to that this CPU has, named by -march.
  const char *expected = __builtin_cpu_supports("avx512bw") ? "-march=skylake-avx512"
                         : __builtin_cpu_supports("avx2")   ? "-march=haswell"
                         : __builtin_cpu_supports("sse4.2") ? "-march=westmere"
                                                            : "-D__POPC__";
  EXPECT_THAT(command, HasSubstr(expected));
#else
  EXPECT_THAT(command, HasSubstr("-march=native"));
#endif
  std::cout << "[ info ] codelet compile command: " << command;
  probe("default");
  EXPECT_EQ(lines(log), 1u) << "same host flags: a cache hit";
  // Another machine's instruction set (as a moved cache would meet) is another key.
  probe("-march=x86-64");
  EXPECT_EQ(lines(log), 2u) << "other target flags must not reuse the object";
  EXPECT_THAT(codelettest::readText(log), HasSubstr("-march=x86-64"));
  probe("");
  EXPECT_EQ(lines(log), 3u) << "no target flags: a third object";
  probe("-march=x86-64");
  EXPECT_EQ(lines(log), 3u) << "back to known flags: still cached";
  std::size_t objects = 0;
  for (const auto &e : std::filesystem::directory_iterator(dir.path() + "/cache"))
    objects += e.path().extension() == ".so";
  EXPECT_EQ(objects, 3u);
}
