// Errors of popops element-wise operations: each is a poputil::poplibs_error whose message
// names the shapes, types, operation or option at fault.
#include <gtest/gtest.h>

#include <popops/ElementWise.hpp>
#include <poputil/exceptions.hpp>

#include "ElementWiseTestSupport.hpp"

using namespace poplar;
namespace pe = popops::expr;
using ewtest::Fixture;

namespace {

/// Runs `f`, expecting `Error` (poplibs_error unless said) with every one of `parts` in its
/// message.
template <class Error = poputil::poplibs_error, class F>
void expectPoplibsError(F f, std::vector<std::string> parts) {
  try {
    f();
    FAIL() << "no exception";
  } catch (const Error &e) {
    const std::string msg = e.what();
    for (const auto &p : parts)
      EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  }
}

} // namespace

TEST(ElementWiseError, MismatchedShapesNameBothShapes) {
  Fixture f;
  Tensor a = f.var(FLOAT, {3, 4}, "alpha");
  Tensor b = f.var(FLOAT, {5, 4}, "beta");
  expectPoplibsError([&] { popops::add(f.graph, a, b, f.prog); },
                     {"[3,4]", "[5,4]", "alpha", "beta", "broadcast"});
}

TEST(ElementWiseError, FloatOnlyFunctionOnIntNamesOpAndType) {
  Fixture f;
  Tensor i = f.var(INT, {8}, "ints");
  expectPoplibsError([&] { popops::sqrt(f.graph, i, f.prog); }, {"SQRT", "int"});
  expectPoplibsError([&] { popops::exp(f.graph, i, f.prog); }, {"EXPONENT", "int"});
  expectPoplibsError([&] { popops::pow(f.graph, i, i, f.prog); }, {"POWER", "int"});
}

TEST(ElementWiseError, OperandsOfDifferentTypes) {
  Fixture f;
  Tensor a = f.var(FLOAT, {8}, "a");
  Tensor i = f.var(INT, {8}, "i");
  expectPoplibsError([&] { popops::add(f.graph, a, i, f.prog); }, {"ADD", "float", "int"});
  expectPoplibsError([&] { popops::logicalAnd(f.graph, a, a, f.prog); },
                     {"LOGICAL_AND", "BOOL", "float"});
  expectPoplibsError([&] { popops::select(f.graph, a, a, a, f.prog); }, {"SELECT", "BOOL"});
}

TEST(ElementWiseError, PlaceholderWithoutTensor) {
  Fixture f;
  Tensor a = f.var(FLOAT, {8}, "a");
  expectPoplibsError([&] { popops::map(f.graph, pe::_1 + pe::_3, {a}, f.prog); },
                     {"_3", "1 given"});
}

TEST(ElementWiseError, InPlaceTargetTooSmallForTheBroadcastResult) {
  Fixture f;
  Tensor v = f.var(FLOAT, {4}, "vec");
  Tensor m = f.var(FLOAT, {3, 4}, "mat");
  expectPoplibsError([&] { popops::addInPlace(f.graph, v, m, f.prog); }, {"vec", "[4]", "[3,4]"});
}

TEST(ElementWiseError, WithOutputOfTheWrongType) {
  Fixture f;
  Tensor a = f.var(FLOAT, {4}, "a");
  Tensor out = f.var(INT, {4}, "outInt");
  expectPoplibsError([&] { popops::addWithOutput(f.graph, a, a, out, f.prog); },
                     {"outInt", "int", "float"});
  Tensor big = f.var(FLOAT, {5}, "outBig");
  expectPoplibsError([&] { popops::negWithOutput(f.graph, a, big, f.prog); },
                     {"outBig", "[5]", "[4]"});
}

TEST(ElementWiseError, UnsupportedElementType) {
  Fixture f;
  Tensor s = f.var(UNSIGNED_CHAR, {4}, "bytes");
  expectPoplibsError([&] { popops::neg(f.graph, s, f.prog); }, {"bytes", "unsigned char"});
}

TEST(ElementWiseError, UnknownOptionAndBadValue) {
  Fixture f;
  Tensor a = f.var(FLOAT, {4}, "a");
  expectPoplibsError<poplar::invalid_option>(
      [&] {
        popops::neg(f.graph, a, f.prog, {}, {{"enableFusion", "true"}});
      },
      {"enableFusion"});
  expectPoplibsError<poplar::invalid_option>(
      [&] {
        popops::neg(f.graph, a, f.prog, {}, {{"enableGenerateCodelet", "maybe"}});
      },
      {"enableGenerateCodelet", "maybe"});
  expectPoplibsError<poplar::invalid_option>(
      [&] {
        popops::neg(f.graph, a, f.prog, {}, {{"enableGenerateCodelt", "true"}});
      },
      {"'enableGenerateCodelt'", "did you mean 'enableGenerateCodelet'"});
  EXPECT_NO_THROW(popops::neg(f.graph, a, f.prog, {}, {{"enableGenerateCodelet", "false"}}));
}
