// The executable cache: a second Engine for the same graph loads what the first compiled, any
// change to the graph misses, and a broken cache never stops a compile.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <sys/resource.h>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poputil/TileMapping.hpp>
#include <tessera/ExecutableCache.hpp>

#include "ErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;
namespace fs = std::filesystem;

namespace {

/// A fresh cache directory per test, removed afterwards.
class CacheDir {
public:
  CacheDir() {
    path_ = fs::temp_directory_path() /
            ("tessera-exe-cache-test-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
  }
  ~CacheDir() { fs::remove_all(path_); }
  std::string str() const { return path_.string(); }
  /// The entries, once there are `n` of them (another process may still be writing).
  std::vector<fs::path> entries(std::size_t n) const {
    for (int i = 0; i < 1000 && entries().size() < n; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return entries();
  }
  std::vector<fs::path> entries() const {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(path_, ec))
      if (e.path().extension() == ".tessera-exe") // not a write in progress
        out.push_back(e.path());
    return out;
  }

private:
  fs::path path_;
};

/// data *= factor on 4 tiles, then sum on tile 3: returns the sum, and whether the engine
/// came from the cache.
std::pair<float, bool> scaleAndSum(const OptionFlags &options, float factor = 2.0f,
                                   std::string *cacheKey = nullptr) {
  testvertices::registerTestVertices();
  IPUModel model;
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  Tensor data = graph.addVariable(FLOAT, {32}, "data");
  Tensor total = graph.addVariable(FLOAT, {}, "total");
  poputil::mapTensorLinearly(graph, data, 1, 1);
  graph.setTileMapping(total, 3);
  const std::vector<float> initial(32, 1.5f);
  graph.setInitialValue(data, ArrayRef<float>(initial));
  ComputeSet scale = graph.addComputeSet("scale");
  for (unsigned t = 0; t < 4; ++t) {
    VertexRef v = graph.addVertex(scale, "Scale", {{"data", data.slice(t * 8, t * 8 + 8)}});
    graph.setInitialValue(v["factor"], factor);
    graph.setTileMapping(v, t);
  }
  ComputeSet sum = graph.addComputeSet("sum");
  VertexRef s = graph.addVertex(sum, "Sum", {{"in", data}, {"out", total}});
  graph.setTileMapping(s, 3);
  graph.createHostRead("total", total);
  Engine engine(graph, Sequence{Execute(scale), Execute(sum)}, options);
  engine.load(device);
  engine.run();
  float result = 0;
  engine.readTensor("total", &result, &result + 1);
  if (cacheKey)
    *cacheKey = engine.executableCacheKey();
  return {result, engine.loadedFromExecutableCache()};
}

} // namespace

TEST(ExecutableCache, SecondEngineForTheSameGraphLoadsInsteadOfCompiling) {
  CacheDir dir;
  const OptionFlags options{{"executableCache.directory", dir.str()}};
  const auto first = scaleAndSum(options);
  EXPECT_FALSE(first.second);
  EXPECT_EQ(first.first, 32 * 1.5f * 2.0f);
  ASSERT_EQ(dir.entries(1).size(), 1u);
  const auto second = scaleAndSum(options);
  EXPECT_TRUE(second.second);
  EXPECT_EQ(second.first, first.first);
}

TEST(ExecutableCache, AnyChangeToTheGraphMisses) {
  CacheDir dir;
  const OptionFlags options{{"executableCache.directory", dir.str()}};
  scaleAndSum(options, 2.0f);
  const auto changed = scaleAndSum(options, 3.0f);
  EXPECT_FALSE(changed.second) << "a vertex's plain member is part of the key";
  EXPECT_EQ(changed.first, 32 * 1.5f * 3.0f);
  EXPECT_EQ(dir.entries(2).size(), 2u);
}

TEST(ExecutableCache, EntryIsWrittenWhenTheEngineIsDestroyedNotWhileItRuns) {
  testvertices::registerTestVertices();
  CacheDir dir;
  IPUModel model;
  model.tilesPerIPU = 2;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  Tensor data = graph.addVariable(FLOAT, {8}, "data");
  poputil::mapTensorLinearly(graph, data);
  ComputeSet scale = graph.addComputeSet("scale");
  VertexRef v = graph.addVertex(scale, "Scale", {{"data", data}});
  graph.setInitialValue(v["factor"], 2.0f);
  graph.setTileMapping(v, 0);
  {
    Engine engine(graph, Execute(scale), {{"executableCache.directory", dir.str()}});
    engine.load(device);
    engine.run();
    EXPECT_TRUE(dir.entries().empty()) << "encoding the entry would compete with the runs";
  }
  EXPECT_EQ(dir.entries().size(), 1u);
}

TEST(ExecutableCache, CanBeTurnedOff) {
  CacheDir dir;
  const OptionFlags options{{"executableCache.directory", dir.str()},
                            {"executableCache.enable", "false"}};
  scaleAndSum(options);
  EXPECT_FALSE(scaleAndSum(options).second);
  EXPECT_TRUE(dir.entries().empty());
}

TEST(ExecutableCache, UnwritableDirectoryCompilesAnywayAndWarnsOnce) {
  CacheDir dir;
  fs::create_directories(dir.str());
  const std::string file = dir.str() + "/not-a-directory";
  std::ofstream(file) << "x";
  const OptionFlags options{{"executableCache.directory", file + "/cache"}};
  ::testing::internal::CaptureStderr();
  const auto a = scaleAndSum(options);
  const auto b = scaleAndSum(options);
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(a.first, 32 * 1.5f * 2.0f);
  EXPECT_FALSE(b.second);
  EXPECT_NE(warnings.find("executable cache"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find(file), std::string::npos) << "names the directory: " << warnings;
  EXPECT_EQ(warnings.find("executable cache"), warnings.rfind("executable cache"))
      << "warned once: " << warnings;
}

// A full disk: the file size limit (RLIMIT_FSIZE, with SIGXFSZ ignored so writes fail with
// EFBIG instead of killing the process) makes every cache write fail part-way, as ENOSPC would.
// Runs three engines, reports what it saw on stderr and exits 0 when all was as it should be.
namespace {

[[noreturn]] void compileThreeTimesOnAFullDisk(const std::string &cacheDir) {
  std::signal(SIGXFSZ, SIG_IGN);
  const rlimit limit{512, 512};
  ::setrlimit(RLIMIT_FSIZE, &limit);
  const OptionFlags options{{"executableCache.directory", cacheDir}};
  ::testing::internal::CaptureStderr();
  const auto a = scaleAndSum(options);
  const auto b = scaleAndSum(options); // waits for the first store to fail
  const auto c = scaleAndSum(options);
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  const auto first = warnings.find("executable cache");
  const bool warnedOnce = first != std::string::npos && first == warnings.rfind("executable cache");
  const bool namesDirectory = warnings.find(cacheDir) != std::string::npos;
  const bool correct = a.first == 32 * 1.5f * 2.0f && b.first == a.first && c.first == a.first;
  const bool compiled = !a.second && !b.second && !c.second;
  std::cerr << "warned once: " << warnedOnce << ", names the directory: " << namesDirectory
            << ", correct: " << correct << ", compiled each time: " << compiled
            << ", files left: " << std::distance(fs::directory_iterator(cacheDir), {})
            << "\nwarnings: " << warnings << std::endl;
  std::exit(warnedOnce && namesDirectory && correct && compiled ? 0 : 1);
}

} // namespace

// In a child process, so the file size limit does not reach the other tests.
TEST(ExecutableCache, FullDiskCompilesAnywayWarnsOnceAndLeavesNoPartialFile) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  CacheDir dir;
  fs::create_directories(dir.str());
  EXPECT_EXIT(compileThreeTimesOnAFullDisk(dir.str()), ::testing::ExitedWithCode(0),
              "files left: 0");
}

TEST(ExecutableCache, DamagedEntryIsCompiledAgainAndReplaced) {
  CacheDir dir;
  const OptionFlags options{{"executableCache.directory", dir.str()}};
  scaleAndSum(options);
  ASSERT_EQ(dir.entries(1).size(), 1u);
  const fs::path entry = dir.entries().front();
  const auto size = fs::file_size(entry);
  fs::resize_file(entry, size / 2);
  const auto again = scaleAndSum(options);
  EXPECT_FALSE(again.second);
  EXPECT_EQ(again.first, 32 * 1.5f * 2.0f);
  EXPECT_TRUE(scaleAndSum(options).second) << "the entry was written again";
  EXPECT_EQ(fs::file_size(entry), size);
}

TEST(ExecutableCache, LeastRecentlyUsedEntriesGoBeyondTheSizeCap) {
  CacheDir dir;
  scaleAndSum({{"executableCache.directory", dir.str()}}, 2.0f);
  const auto oneEntry = fs::file_size(dir.entries(1).front());
  const OptionFlags capped{{"executableCache.directory", dir.str()},
                           {"executableCache.maxBytes", std::to_string(oneEntry * 3 / 2)}};
  scaleAndSum(capped, 3.0f);
  EXPECT_TRUE(scaleAndSum(capped, 3.0f).second); // (and waits for the store before it)
  ASSERT_EQ(dir.entries().size(), 1u) << "the older entry was evicted";
  EXPECT_FALSE(scaleAndSum(capped, 2.0f).second);
}

TEST(ExecutableCache, BadSizeCapIsNamed) {
  EXPECT_TRUE(testerrors::throwsWithMessage<invalid_option>(
      [] {
        scaleAndSum({{"executableCache.maxBytes", "lots"}});
      },
      {"executableCache.maxBytes", "lots"}));
}

// A program that remembers an engine's key can load the executable again without building the
// graph, and gets the same result.
TEST(ExecutableCache, KeyFromOneEngineLoadsTheExecutableWithoutTheGraph) {
  CacheDir dir;
  const OptionFlags options{{"executableCache.directory", dir.str()}};
  std::string key;
  const float expected = scaleAndSum(options, 2.0f, &key).first;
  ASSERT_FALSE(key.empty());
  std::string again;
  scaleAndSum(options, 2.0f, &again);
  EXPECT_EQ(again, key) << "compiled or loaded, the same graph has the same key";

  tessera::ExecutableCache cache(options);
  EXPECT_TRUE(cache.enabled());
  EXPECT_EQ(cache.directory(), dir.str());
  std::optional<Executable> exe = cache.load(key);
  ASSERT_TRUE(exe.has_value());
  IPUModel model;
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  Engine engine(std::move(*exe), options);
  engine.load(device);
  engine.run();
  float result = 0;
  engine.readTensor("total", &result, &result + 1);
  EXPECT_EQ(result, expected);
  EXPECT_EQ(engine.executableCacheKey(), "") << "constructed from an Executable";
}

TEST(ExecutableCache, LoadByKeyFindsNothingWhenMissingOrOff) {
  CacheDir dir;
  std::string key;
  scaleAndSum({{"executableCache.directory", dir.str()}}, 2.0f, &key);
  const tessera::ExecutableCache elsewhere({{"executableCache.directory", dir.str() + "-other"}});
  EXPECT_FALSE(elsewhere.load(key).has_value());
  const tessera::ExecutableCache off(
      {{"executableCache.directory", dir.str()}, {"executableCache.enable", "false"}});
  EXPECT_FALSE(off.enabled());
  EXPECT_FALSE(off.load(key).has_value());
  std::string offKey = "unset";
  scaleAndSum({{"executableCache.enable", "false"}}, 2.0f, &offKey);
  EXPECT_EQ(offKey, "") << "no key when the cache is off";
}

TEST(ExecutableCache, LoadRefusesWhatIsNotAKey) {
  const tessera::ExecutableCache cache;
  for (const std::string bad : {"", "../../etc/passwd", "ABC"})
    EXPECT_TRUE(testerrors::throwsWithMessage<poplar::runtime_error>(
        [&] { cache.load(bad); }, {"'" + bad + "'", "executableCacheKey"}))
        << bad;
  EXPECT_TRUE(testerrors::throwsWithMessage<invalid_option>(
      [] {
        tessera::ExecutableCache({{"executableCache.enabel", "true"}});
      },
      {"executableCache.enabel", "executableCache.enable"}));
}
