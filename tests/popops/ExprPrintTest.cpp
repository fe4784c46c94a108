// popops::expr printing and constant accessors (popops/Expr.hpp): the virtual
// print(os, indent, prettyPrint) of every node class, operator<< (the pretty form),
// exprName of the operation nodes and Const::getDataForUnsignedIntegral.
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>

#include <poplar/Type.hpp>
#include <popops/Expr.hpp>
#include <poputil/exceptions.hpp>

namespace pe = popops::expr;

namespace {

std::string printed(const pe::Expr &e, unsigned indent, bool pretty) {
  std::ostringstream os;
  e.print(os, indent, pretty);
  return os.str();
}

} // namespace

TEST(ExprPrint, CompactFormIsTheName) {
  const pe::Any exprs[] = {pe::_3,
                           pe::Const(2),
                           pe::Cast(pe::_1, poplar::HALF),
                           pe::Sqrt(pe::_1),
                           pe::Add(pe::_1, pe::Mul(pe::_2, pe::Const(0.5f))),
                           pe::Select(pe::_1, pe::_2, pe::_3 > 0)};
  for (const pe::Any &a : exprs) {
    const pe::Expr &e = a;
    EXPECT_EQ(printed(e, 7, false), e.name());
  }
}

TEST(ExprPrint, PrettyFormPutsEachOperandOnAnIndentedLine) {
  const pe::Add e(pe::_1, pe::Mul(pe::_2, pe::Const(3)));
  EXPECT_EQ(printed(e, 0, true), "ADD(\n  _1,\n  MULTIPLY(\n    _2,\n    3:int))");
  EXPECT_EQ(printed(e, 2, true), "  ADD(\n    _1,\n    MULTIPLY(\n      _2,\n      3:int))");
  EXPECT_EQ(printed(pe::Cast(pe::_1, poplar::FLOAT), 0, true), "CAST(\n  _1,\n  float)");
  EXPECT_EQ(printed(pe::Clamp(pe::_1, pe::_2, pe::_3), 0, true), "CLAMP(\n  _1,\n  _2,\n  _3)");
  EXPECT_EQ(printed(pe::Const(true), 4, true), "    true:bool");
}

TEST(ExprPrint, DefaultArgumentsAndStreamOperatorPrintPretty) {
  const pe::Neg e(pe::_2);
  std::ostringstream viaDefaults, viaStream;
  e.print(viaDefaults);
  viaStream << static_cast<const pe::Expr &>(e);
  EXPECT_EQ(viaDefaults.str(), "NEGATE(\n  _2)");
  EXPECT_EQ(viaStream.str(), viaDefaults.str());
}

TEST(ExprPrint, PrintIsVirtualThroughTheBaseClass) {
  const pe::Any any = pe::Abs(pe::_1);
  const pe::Expr &base = any;
  EXPECT_EQ(printed(base, 0, false), "ABSOLUTE(_1)");
}

TEST(ExprPrint, ExprNameJoinsTheOperandNames) {
  EXPECT_EQ(pe::Sqrt(pe::_4).exprName({}), "_4");
  EXPECT_EQ(pe::Sub(pe::_1, pe::Const(2u)).exprName({}), "_1_2:unsigned int");
  EXPECT_EQ(pe::Clamp(pe::_1, pe::_2, pe::_3).exprName({}), "_1__2__3");
}

TEST(ExprConst, UnsignedIntegralDataOfUnsignedAndBoolConstants) {
  EXPECT_EQ(pe::Const(7u).getDataForUnsignedIntegral(), 7u);
  EXPECT_EQ(pe::Const(4294967295u).getDataForUnsignedIntegral(), 4294967295u);
  EXPECT_EQ(pe::Const(true).getDataForUnsignedIntegral(), 1u);
  EXPECT_EQ(pe::Const(poplar::UNSIGNED_SHORT, 65535).getDataForUnsignedIntegral(), 65535u);
  EXPECT_EQ(pe::Const(poplar::UNSIGNED_CHAR, 200).getDataForUnsignedIntegral(), 200u);
}

TEST(ExprConst, UnsignedIntegralDataOfOtherTypesIsRefusedNamingTheType) {
  for (const pe::Const &c : {pe::Const(-3), pe::Const(1.5f), pe::Const(poplar::HALF, 2.0)}) {
    try {
      (void)c.getDataForUnsignedIntegral();
      FAIL() << "expected poplibs_error for " << c.name();
    } catch (const poputil::poplibs_error &e) {
      EXPECT_NE(std::string(e.what()).find(c.getType().toString()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("unsigned integer"), std::string::npos) << e.what();
    }
  }
}

TEST(ExprConst, TypeTraitsDescribeTheHostValue) {
  const poplar::TypeTraits f = pe::Const(1.5f).getTypeTraits();
  EXPECT_EQ(f.size, sizeof(float));
  EXPECT_TRUE(f.isFloat);
  EXPECT_FALSE(f.isIntegral);
  const poplar::TypeTraits u = pe::Const(7u).getTypeTraits();
  EXPECT_EQ(u.size, sizeof(unsigned));
  EXPECT_TRUE(u.isIntegral);
  EXPECT_FALSE(u.isSigned);
  EXPECT_EQ(pe::Const(std::int64_t(-1)).getTypeTraits().size, 8u);
  // A HALF constant holds its value as a float, as in PopLibs.
  const poplar::TypeTraits h = pe::ConstHalf(0.25f).getTypeTraits();
  EXPECT_EQ(h.size, sizeof(float));
  EXPECT_TRUE(h.isFloat);
  EXPECT_EQ(pe::Const(poplar::UNSIGNED_SHORT, 3).getTypeTraits().size, 2u);
  EXPECT_TRUE(pe::Const(true).clone()->getAs<pe::Const>()->getTypeTraits().isIntegral);
  static_assert(poplar::TypeTraits::isSimpleType<float>(), "float is a simple type");
  static_assert(!poplar::TypeTraits::isSimpleType<std::string>(), "a string is not");
}
