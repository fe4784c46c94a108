// popnn/NonLinearityDefUtil.hpp: every non-linearity type prints under PopLibs' name and reads
// back from its token; an unknown token throws poplibs_error naming it.
#include <sstream>

#include <popnn/NonLinearityDefUtil.hpp>

#include <gtest/gtest.h>

namespace {

using popnn::NonLinearityType;

TEST(NonLinearityDefUtil, NamesAreThoseOfPopLibs) {
  EXPECT_STREQ(popnn::asString(NonLinearityType::RELU), "relu");
  EXPECT_STREQ(popnn::asString(NonLinearityType::SIGMOID), "sigmoid");
  EXPECT_STREQ(popnn::asString(NonLinearityType::TANH), "tanh");
  EXPECT_STREQ(popnn::asString(NonLinearityType::GELU), "gelu");
  EXPECT_STREQ(popnn::asString(NonLinearityType::SOFTMAX), "softmax");
  EXPECT_STREQ(popnn::asString(NonLinearityType::SOFTMAX_STABLE), "softmax (stable)");
  EXPECT_STREQ(popnn::asString(NonLinearityType::SOFTMAX_SCALED), "softmax (scaled, stable)");
  std::ostringstream os;
  os << NonLinearityType::GELU_ERF << ' ' << NonLinearityType::SWISH;
  EXPECT_EQ(os.str(), "gelu_erf swish");
}

TEST(NonLinearityDefUtil, EveryTypeReadsBackFromItsToken) {
  const std::pair<const char *, NonLinearityType> tokens[] = {
      {"relu", NonLinearityType::RELU},
      {"sigmoid", NonLinearityType::SIGMOID},
      {"hard_sigmoid", NonLinearityType::HARD_SIGMOID},
      {"tanh", NonLinearityType::TANH},
      {"gelu", NonLinearityType::GELU},
      {"gelu_erf", NonLinearityType::GELU_ERF},
      {"swish", NonLinearityType::SWISH},
      {"softmax", NonLinearityType::SOFTMAX},
      {"softmax_stable", NonLinearityType::SOFTMAX_STABLE},
      {"softmax_scaled", NonLinearityType::SOFTMAX_SCALED},
      {"log_softmax", NonLinearityType::LOG_SOFTMAX}};
  for (const auto &[token, type] : tokens) {
    std::istringstream in(token);
    NonLinearityType got = NonLinearityType::RELU;
    in >> got;
    EXPECT_EQ(got, type) << token;
  }
}

TEST(NonLinearityDefUtil, UnknownTokenIsRefusedNamingIt) {
  std::istringstream in("leaky_relu");
  NonLinearityType t;
  try {
    in >> t;
    FAIL() << "expected poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    EXPECT_NE(std::string(e.what()).find("'leaky_relu'"), std::string::npos) << e.what();
  }
}

} // namespace

TEST(NonLinearityDefUtil, VertexNamesSpellTheQualifiedEnumerator) {
  EXPECT_EQ(poputil::templateVertex("NL", poplar::FLOAT, popnn::NonLinearityType::RELU),
            "NL<float,popnn::NonLinearityType::RELU>");
  EXPECT_EQ(poputil::templateVertex("NL", popnn::NonLinearityType::GELU_ERF),
            "NL<popnn::NonLinearityType::GELU_ERF>");
  EXPECT_THROW(poputil::templateVertex("NL", static_cast<popnn::NonLinearityType>(99)),
               poputil::poplibs_error);
}
