// program::PrintTensor's text against what Poplar prints with its default PrintTensorFmt.
// Sources for the expected text: Poplar tutorials 1 and 2 (their printed output and the
// regular expressions their tests check), PopART's print-tensor tests and PopTorch's
// ipu_print_tensor test, which compare Poplar's output character for character.
#include <gtest/gtest.h>

#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include "EngineErrorMatchers.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {

/// Runs PrintTensor programs for constants the caller adds and returns what they printed.
class Printer {
public:
  Printer() : device_(enginetest::smallDevice(4)), graph_(device_.getTarget()) {}

  template <class T>
  void print(const std::string &title, const Type &type, std::vector<std::size_t> shape,
             const std::vector<T> &values) {
    Tensor t = graph_.addConstant<T>(type, shape, values, title);
    graph_.setTileMapping(t, 1);
    prog_.add(title.empty() ? PrintTensor(t) : PrintTensor(title, t));
  }

  std::string run() {
    Engine engine(graph_, prog_);
    engine.load(device_);
    testing::internal::CaptureStdout();
    engine.run();
    return testing::internal::GetCapturedStdout();
  }

private:
  Device device_;
  Graph graph_;
  Sequence prog_;
};

template <class T> std::vector<T> iota(std::size_t n, T first) {
  std::vector<T> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

// A vector stays on the title line; floats show 8 significant digits in fixed notation, the
// decimals set by the largest magnitude (tutorial 1: "v1-debug: [1.0000000 1.5000000 ...]",
// and uninitialised zeros as 0.0000000).
TEST(PrintTensor, FloatVectorUsesEightSignificantDigits) {
  Printer p;
  p.print<float>("v1-debug", FLOAT, {4}, {1.0f, 1.5f, 2.0f, 2.5f});
  p.print<float>("zeros", FLOAT, {4}, {0, 0, 0, 0});
  p.print<float>("tens", FLOAT, {2}, {12.5f, -0.25f});
  EXPECT_EQ(p.run(), "v1-debug: [1.0000000 1.5000000 2.0000000 2.5000000]\n"
                     "zeros: [0.0000000 0.0000000 0.0000000 0.0000000]\n"
                     "tens: [12.500000 -0.250000]\n");
}

// A matrix opens its bracket on the title line, puts each row on its own line indented by one
// space, and closes on a line of its own (tutorial 2's v3, PopTorch's 2x2 example). Every value
// is right-aligned to the widest one.
TEST(PrintTensor, MatrixRowsOnSeparateLines) {
  Printer p;
  p.print<float>("v3", FLOAT, {2, 2}, {5.0f, 4.5f, 4.0f, 3.5f});
  p.print<float>("matrix", FLOAT, {2, 3}, {1.5f, -2, 3, 4, 5.25f, 6});
  EXPECT_EQ(p.run(), "v3: [\n"
                     " [5.0000000 4.5000000]\n"
                     " [4.0000000 3.5000000]\n"
                     "]\n"
                     "matrix: [\n"
                     " [ 1.5000000 -2.0000000  3.0000000]\n"
                     " [ 4.0000000  5.2500000  6.0000000]\n"
                     "]\n");
}

// Integers print as plain decimals padded on the left to the widest value (tutorial 1's
// "v4-1: [10 11 ... 19]"; PopART's "[ 6  9 12]").
TEST(PrintTensor, IntegersRightAligned) {
  Printer p;
  p.print<int>("v4-1", INT, {10}, iota<int>(10, 10));
  p.print<int>("Add:0/1", INT, {3}, {6, 9, 12});
  p.print<unsigned>("u", UNSIGNED_INT, {2}, {4000000000u, 7u});
  EXPECT_EQ(p.run(), "v4-1: [10 11 12 13 14 15 16 17 18 19]\n"
                     "Add:0/1: [ 6  9 12]\n"
                     "u: [4000000000          7]\n");
}

// Deeper tensors nest the same way: every level but the innermost opens a bracket, puts its
// children on their own lines one space further in, and closes at its own indent.
TEST(PrintTensor, ThreeDimensionsNestOneSpacePerLevel) {
  Printer p;
  p.print<int>("t", INT, {2, 2, 2}, iota<int>(8, 1));
  EXPECT_EQ(p.run(), "t: [\n"
                     " [\n"
                     "  [1 2]\n"
                     "  [3 4]\n"
                     " ]\n"
                     " [\n"
                     "  [5 6]\n"
                     "  [7 8]\n"
                     " ]\n"
                     "]\n");
}

// Booleans print as true / false, aligned like any other value; a scalar is its value alone.
TEST(PrintTensor, BoolAndScalar) {
  Printer p;
  p.print<unsigned char>("flags", BOOL, {3}, {1, 0, 1}); // host bytes 1 = true
  p.print<int>("", INT, {}, {-42});
  EXPECT_EQ(p.run(), "flags: [ true false  true]\n"
                     "-42\n");
}

// Half values are widened and printed with the float rules: 2048 has four integer digits, so
// every value keeps four decimals.
TEST(PrintTensor, HalfFollowsTheFloatRules) {
  Printer p;
  p.print<float>("h", HALF, {3}, {0.5f, -3.0f, 2048.0f});
  p.print<float>("hm", HALF, {2, 2}, {1.0f, 2.0f, 0.25f, -1.0f});
  EXPECT_EQ(p.run(), "h: [   0.5000   -3.0000 2048.0000]\n"
                     "hm: [\n"
                     " [ 1.0000000  2.0000000]\n"
                     " [ 0.2500000 -1.0000000]\n"
                     "]\n");
}

// Values fixed notation cannot show with 8 significant digits switch the whole tensor to
// scientific notation, 8 digits in the mantissa (PopTorch's "1.4962566e+00").
TEST(PrintTensor, TinyValuesSwitchToScientific) {
  Printer p;
  p.print<float>("s", FLOAT, {2}, {0x1p-16f, 2.5f}); // 2^-16 is exact in float
  EXPECT_EQ(p.run(), "s: [1.5258789e-05 2.5000000e+00]\n");
}

// Lines longer than 75 characters wrap after a separator; the row continues two columns right
// of its opening bracket's indent (PopTorch's narrow-line example).
TEST(PrintTensor, LongRowsWrapAtSeventyFiveColumns) {
  Printer p;
  p.print<float>("w", FLOAT, {10}, iota<float>(10, 0));
  EXPECT_EQ(p.run(), "w: [0.0000000 1.0000000 2.0000000 3.0000000 4.0000000 5.0000000 6.0000000 \n"
                     "  7.0000000 8.0000000 9.0000000]\n");
}

// Tensors with more than 1000 elements are summarised: the first and last 3 of each long
// dimension around an ellipsis.
TEST(PrintTensor, LargeTensorsAreSummarised) {
  Printer p;
  p.print<int>("big", INT, {1001}, iota<int>(1001, 0));
  EXPECT_EQ(p.run(), "big: [   0    1    2  ...  998  999 1000]\n");
}

// Engine::setPrintTensorStream (and setPrintStream, which covers every printing program)
// redirect PrintTensor's text to the given stream; nothing reaches standard output then.
TEST(PrintTensor, GoesToTheStreamTheEngineIsGiven) {
  for (const bool wholePrintStream : {false, true}) {
    Device device = enginetest::smallDevice(2);
    Graph graph(device.getTarget());
    Tensor t = graph.addConstant<int>(INT, {3}, {4, 5, 6}, "t");
    graph.setTileMapping(t, 0);
    Engine engine(graph, Sequence{PrintTensor("t", t)});
    engine.load(device);
    std::ostringstream captured;
    if (wholePrintStream)
      engine.setPrintStream(captured);
    else
      engine.setPrintTensorStream(captured);
    testing::internal::CaptureStdout();
    engine.run();
    EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
    EXPECT_EQ(captured.str(), "t: [4 5 6]\n");
  }
}

} // namespace
