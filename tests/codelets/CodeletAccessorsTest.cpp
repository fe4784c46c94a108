// The field accessors Poplar codelets use, and `__POPC__` while codelets compile (at run time
// through addCodelets, ahead of time through popc).
#include <filesystem>

#include <gtest/gtest.h>
#include <tessera/VertexType.hpp>
#include <tessera/testing/RunVertex.hpp>

#include "CodeletTestSupport.hpp"

using tessera::testing::runVertex;
using tessera::testing::RunVertexOptions;
using tessera::testing::VertexResult;

namespace {
RunVertexOptions accessors() { return codelettest::fixtureOptions("Accessors.cpp"); }

VertexResult runVectorAccessors() {
  return runVertex("VectorAccessors",
                   {{"in", std::vector<float>{1, 2, 3, 4}},
                    {"out", std::vector<float>(6)},
                    {"io", std::vector<int>{5, 6, 7}},
                    {"facts", std::vector<unsigned>(4)},
                    {"scale", 10.0f},
                    {"compiledByPopc", false}},
                   accessors());
}
} // namespace

TEST(CodeletAccessors, VectorFieldsThroughEveryAccessor) {
  const VertexResult r = runVectorAccessors();
  EXPECT_EQ(r.vector<float>("out"), (std::vector<float>{110, 1, 1, 4, 20, 100}));
  EXPECT_EQ(r.vector<int>("io"), (std::vector<int>{11, 12, 13}));
  EXPECT_EQ(r.vector<unsigned>("facts"), (std::vector<unsigned>{4, 0, 4, 3}));
}

TEST(CodeletAccessors, PopcIsDefinedWhileCodeletsCompile) {
  // The fixture has `#error` without __POPC__, so compiling at all shows it is defined.
  EXPECT_TRUE(runVectorAccessors().scalar<bool>("compiledByPopc"));
  // The host-only duplicate under `#if !defined(__POPC__)` is not registered: its field
  // `hostOnly` would be, and the compiled class has no such member.
  const auto type = tessera::findVertexType("VectorAccessors");
  ASSERT_TRUE(type);
  EXPECT_EQ(type->findField("hostOnly"), nullptr);
  EXPECT_NE(type->findField("facts"), nullptr);
  EXPECT_TRUE(tessera::findVertexType("PopcOnly"));
}

TEST(CodeletAccessors, ListsAndVectorsOfVectors) {
  const VertexResult r = runVertex("ListAccessors",
                                   {{"lists", std::vector<std::vector<float>>{{1, 2}, {}, {3}}},
                                    {"rows", std::vector<std::vector<float>>{{4, 5}, {6}}},
                                    {"sums", std::vector<float>(5)},
                                    {"emptyLists", 0u}},
                                   accessors());
  EXPECT_EQ(r.vector<float>("sums"), (std::vector<float>{3, 0, 3, 9, 6}));
  EXPECT_EQ(r.scalar<unsigned>("emptyLists"), 1u);
}

TEST(CodeletAccessors, MultiVertexUnderPopc) {
  const VertexResult r = runVertex("PopcOnly", {{"data", std::vector<int>(8, 0)}}, accessors());
  const auto data = r.vector<int>("data");
  ASSERT_EQ(data.size(), 8u);
  EXPECT_EQ(data[0], 1) << "worker 0 takes element 0";
  EXPECT_EQ(data[1], 2) << "worker 1 takes element 1";
}

TEST(CodeletAccessors, PopcDefinesPopcToo) {
  codelettest::TempDir dir;
  const std::string object = dir.path() + "/accessors.gp";
  std::string out;
  ASSERT_EQ(codelettest::run("'" TESSERA_POPC "' '" + codelettest::fixture("Accessors.cpp") +
                                 "' -o '" + object + "'",
                             &out),
            0)
      << out;
  ASSERT_TRUE(std::filesystem::is_regular_file(object));
}
