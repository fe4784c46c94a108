// popc: help, precompiling, and loading its objects without a compiler.
#include <cstdlib>
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poplar/Graph.hpp>
#include <poplar/exceptions.hpp>
#include <tessera/Codelets.hpp>
#include <tessera/testing/RunVertex.hpp>

#include "CodeletTestSupport.hpp"

using codelettest::TempDir;
using ::testing::HasSubstr;

namespace {
const std::string kPopc = "'" TESSERA_POPC "'";

float dotProduct(const std::string &object, poplar::CodeletFileType type) {
  poplar::Graph graph(codelettest::device().getTarget());
  graph.addCodelets(object, type);
  return tessera::testing::runVertex(
             "DotProductVertex",
             {{"a", std::vector<float>{1, 2}}, {"b", std::vector<float>{3, 4}}, {"out", 0.0f}})
      .scalar<float>("out");
}
} // namespace

TEST(CodeletPopc, HelpListsTheOptions) {
  std::string out;
  ASSERT_EQ(codelettest::run(kPopc + " --help", &out), 0) << out;
  for (const char *option : {"Usage: popc", "--output-file", "--include-path", "--define",
                             "--optimize", "--target", "--compile-flags"})
    EXPECT_THAT(out, HasSubstr(option));
  EXPECT_NE(codelettest::run(kPopc + " --no-such-option", &out), 0);
  EXPECT_THAT(out, HasSubstr("no-such-option"));
}

TEST(CodeletPopc, PrecompiledObjectLoadsWithoutACompiler) {
  TempDir dir;
  const std::string object = dir.path() + "/dot.gp";
  std::string out;
  ASSERT_EQ(codelettest::run(kPopc + " -O3 -v '" + codelettest::fixture("DotProduct.cpp") +
                                 "' -o '" + object + "'",
                             &out),
            0)
      << out;
  EXPECT_THAT(out, HasSubstr("vertex: DotProductVertex"));
  ASSERT_TRUE(std::filesystem::is_regular_file(object));
  // No compiler can run from here on: loading must not need one.
  setenv("TESSERA_CXX", "/nonexistent/c++", 1);
  EXPECT_EQ(dotProduct(object, poplar::CodeletFileType::Auto), 11.0f);
  const std::string renamed = dir.path() + "/dot.bin";
  std::filesystem::copy_file(object, renamed);
  EXPECT_EQ(dotProduct(renamed, poplar::CodeletFileType::Object), 11.0f);
  unsetenv("TESSERA_CXX");
}

TEST(CodeletPopc, IncludePathsAndDefinesReachTheCompiler) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/inc");
  dir.write("inc/offset.hpp", "inline int offset() { return OFFSET; }\n");
  const std::string source = dir.write("Offset.cpp", R"(#include <poplar/Vertex.hpp>
#include "offset.hpp"
class AddOffset : public poplar::Vertex {
public:
  poplar::InOut<int> x;
  void compute() { *x = *x + offset(); }
};
)");
  std::string out;
  ASSERT_EQ(
      codelettest::run(kPopc + " -I '" + dir.path() + "/inc' -D OFFSET=40 '" + source + "'", &out),
      0)
      << out;
  const std::string object = dir.path() + "/Offset.gp"; // the default output name
  poplar::Graph graph(codelettest::device().getTarget());
  graph.addCodelets(object);
  EXPECT_EQ(tessera::testing::runVertex("AddOffset", {{"x", 2}}).scalar<int>("x"), 42);
}

TEST(CodeletPopc, CompileErrorsNameFileAndLine) {
  TempDir dir;
  std::string out;
  EXPECT_EQ(codelettest::run(kPopc + " '" + codelettest::fixture("DoesNotCompile.cpp") + "' -o '" +
                                 dir.path() + "/x.gp'",
                             &out),
            1);
  EXPECT_THAT(out, HasSubstr("DoesNotCompile.cpp:10:18: error:"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/x.gp"));
}

TEST(CodeletPopc, NotATesseraObject) {
  TempDir dir;
  const std::string fake = dir.write("fake.gp", "not an object");
  poplar::Graph graph(codelettest::device().getTarget());
  try {
    graph.addCodelets(fake, poplar::CodeletFileType::Object);
    FAIL() << "loaded a text file as an object";
  } catch (const poplar::graph_object_load_error &e) {
    EXPECT_THAT(e.what(), HasSubstr("fake.gp"));
  }
}

namespace {
/// Two codelet files that could not be one translation unit: each has its own static `helper`.
struct TwoSources {
  TempDir dir;
  std::string plusOne = dir.write("PlusOne.cpp", R"(#include <poplar/Vertex.hpp>
static float helper(float x) { return x + 1; }
class PlusOne : public poplar::Vertex {
public:
  poplar::InOut<float> x;
  void compute() { *x = helper(*x); }
};
)");
  std::string timesTwo = dir.write("TimesTwo.cpp", R"(#include <poplar/Vertex.hpp>
#include <print.h>
static float helper(float x) { return 2 * x; }
template <typename T> class TimesTwo : public poplar::Vertex {
public:
  poplar::InOut<T> x;
  void compute() { *x = helper(*x); }
};
template class TimesTwo<float>;
)");
};
} // namespace

TEST(CodeletPopc, SeveralSourcesMakeOneObjectRegisteringAllTheirVertices) {
  TwoSources src;
  const std::string object = src.dir.path() + "/both.gp";
  std::string out;
  ASSERT_EQ(codelettest::run(kPopc + " -v '" + src.plusOne + "' '" + src.timesTwo + "' -o '" +
                                 object + "'",
                             &out),
            0)
      << out;
  EXPECT_THAT(out, HasSubstr("vertex: PlusOne"));
  EXPECT_THAT(out, HasSubstr("vertex: TimesTwo<float>"));
  poplar::Graph graph(codelettest::device().getTarget());
  graph.addCodelets(object);
  EXPECT_EQ(tessera::testing::runVertex("PlusOne", {{"x", 2.0f}}).scalar<float>("x"), 3.0f);
  EXPECT_EQ(tessera::testing::runVertex("TimesTwo<float>", {{"x", 2.0f}}).scalar<float>("x"), 4.0f);
}

TEST(CodeletPopc, AcceptsTheFlagsGraphcoreBuildFilesPass) {
  TwoSources src;
  const std::string files = " '" + src.plusOne + "' '" + src.timesTwo + "'";
  for (const std::string flags :
       {"-Wall -Werror", "-Wextra -Wno-unused-function -O0",
        "-Wall -Wextra -Werror -Wdouble-promotion -O1 --target=cpu",
        "-I/tmp -I /tmp -DFOO=1 -D BAR -Os -g --target=ipu1,ipu2,ipu21",
        "-O3 --target=cpu,ipu1,ipu2,ipu21", "--target ipu2", "--target ipu21 --target cpu -g",
        "-O3 -g --target=ipu2 -Wall -Wextra -Werror"}) {
    const std::string object = src.dir.path() + "/flags.gp";
    std::filesystem::remove(object);
    std::string out;
    EXPECT_EQ(codelettest::run(kPopc + " " + flags + files + " -o '" + object + "'", &out), 0)
        << flags << ":\n"
        << out;
    EXPECT_TRUE(std::filesystem::is_regular_file(object)) << flags;
  }
}

TEST(CodeletPopc, WarningFlagsReachTheCompiler) {
  TempDir dir;
  const std::string source = dir.write("Unused.cpp", R"(#include <poplar/Vertex.hpp>
class Unused : public poplar::Vertex {
public:
  poplar::Output<int> out;
  void compute() { int unused = 1; *out = 2; }
};
)");
  std::string out;
  EXPECT_EQ(codelettest::run(kPopc + " -Wall '" + source + "' -o '" + dir.path() + "/a.gp'", &out),
            0)
      << out;
  EXPECT_THAT(out, HasSubstr("unused"));
  EXPECT_EQ(codelettest::run(kPopc + " -Wall -Werror '" + source + "' -o '" + dir.path() + "/b.gp'",
                             &out),
            1);
  EXPECT_THAT(out, HasSubstr("Unused.cpp:5:"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/b.gp"));
}

TEST(CodeletPopc, BadOptionsAreClearErrors) {
  TwoSources src;
  std::string out;
  EXPECT_EQ(codelettest::run(kPopc + " --target=ipu2,ipu9 '" + src.plusOne + "'", &out), 2);
  EXPECT_THAT(out, HasSubstr("unknown target 'ipu9' in --target=ipu2,ipu9"));
  EXPECT_EQ(codelettest::run(kPopc + " --target=ipu2, '" + src.plusOne + "'", &out), 2);
  EXPECT_THAT(out, HasSubstr("unknown target ''"));
  EXPECT_EQ(codelettest::run(kPopc + " -O7 '" + src.plusOne + "'", &out), 2);
  EXPECT_THAT(out, HasSubstr("unknown optimisation level -O7"));
  EXPECT_EQ(codelettest::run(kPopc + " --frobnicate '" + src.plusOne + "'", &out), 2);
  EXPECT_THAT(out, HasSubstr("frobnicate"));
  EXPECT_EQ(codelettest::run(kPopc + " -o '" + src.dir.path() + "/x.gp'", &out), 2);
  EXPECT_THAT(out, HasSubstr("no codelet source file given"));
}

TEST(CodeletPopc, SameVertexTypeInTwoSourcesIsAnError) {
  TwoSources src;
  const std::string again = src.dir.write("PlusOneAgain.cpp", codelettest::readText(src.plusOne));
  std::string out;
  EXPECT_EQ(codelettest::run(kPopc + " '" + src.plusOne + "' '" + again + "' -o '" +
                                 src.dir.path() + "/x.gp'",
                             &out),
            1);
  EXPECT_THAT(out, HasSubstr("vertex type 'PlusOne' is defined in both '" + src.plusOne +
                             "' and '" + again + "'"));
  try {
    tessera::precompileCodelets(std::vector<std::string>{src.plusOne, again},
                                src.dir.path() + "/y.gp");
    FAIL() << "built an object registering PlusOne twice";
  } catch (const poplar::graph_object_load_error &e) {
    EXPECT_THAT(e.what(), HasSubstr("vertex type 'PlusOne' is defined in both"));
  }
  try {
    tessera::precompileCodelets(std::vector<std::string>{}, src.dir.path() + "/z.gp");
    FAIL() << "built an object from no files";
  } catch (const poplar::graph_object_load_error &e) {
    EXPECT_THAT(e.what(), HasSubstr("no codelet file to compile into"));
  }
}
