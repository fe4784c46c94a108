// popc: help, precompiling, and loading its objects without a compiler.
#include <cstdlib>
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poplar/Graph.hpp>
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
