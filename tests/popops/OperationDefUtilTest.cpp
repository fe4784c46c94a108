// popops/OperationDef.hpp and OperationDefUtil.hpp: the enum on its own, readable names and the
// spelling of an Operation in a vertex name.
#include <gtest/gtest.h>

#include <popops/OperationDef.hpp>
#include <popops/OperationDefUtil.hpp>
#include <poputil/VertexTemplates.hpp>

using popops::Operation;

TEST(OperationDefUtil, AsStringGivesReadableNames) {
  EXPECT_STREQ(poputil::asString(Operation::ADD), "Add");
  EXPECT_STREQ(poputil::asString(Operation::MUL), "Mul");
  EXPECT_STREQ(poputil::asString(Operation::MIN), "Min");
  EXPECT_STREQ(poputil::asString(Operation::MAX), "Max");
  EXPECT_STREQ(poputil::asString(Operation::LOGICAL_AND), "Logical And");
  EXPECT_STREQ(poputil::asString(Operation::LOGICAL_OR), "Logical Or");
  EXPECT_STREQ(poputil::asString(Operation::SQUARE_ADD), "Square Add");
  EXPECT_STREQ(poputil::asString(Operation::LOG_ADD), "Log Add");
}

TEST(OperationDefUtil, VertexNamesSpellTheQualifiedEnumerator) {
  EXPECT_EQ(poputil::templateVertex("popops::Reduce", Operation::SQUARE_ADD, poplar::FLOAT),
            "popops::Reduce<popops::Operation::SQUARE_ADD,float>");
  EXPECT_EQ(poputil::templateVertex("R", Operation::LOG_ADD), "R<popops::Operation::LOG_ADD>");
}

TEST(OperationDefUtil, AValueOutsideTheEnumIsAPoplibsErrorNamingIt) {
  const auto bad = static_cast<Operation>(42);
  try {
    (void)poputil::asString(bad);
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("42"), std::string::npos) << e.what();
  }
  EXPECT_THROW(poputil::templateVertex("R", bad), poputil::poplibs_error);
}
