// Every error poplin's matMul API reports: exception type and a message naming the culprit.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>
#include <poplin/MatMul.hpp>
#include <poplin/codelets.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

using namespace poplar;
using namespace poplar::program;

namespace {

template <class E> void expectError(const std::function<void()> &f, const std::string &needle) {
  try {
    f();
    FAIL() << "no exception; expected one mentioning '" << needle << "'";
  } catch (const E &e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

struct Fixture : ::testing::Test {
  Device device = [] {
    IPUModel m;
    m.tilesPerIPU = 4;
    return m.createDevice();
  }();
  Graph graph{device.getTarget()};
  Sequence prog;
  Tensor var(Type type, std::vector<std::size_t> shape) {
    Tensor t = graph.addVariable(type, shape, "t");
    poputil::mapTensorLinearly(graph, t);
    return t;
  }
  void SetUp() override { poplin::addCodelets(graph); }
};

using MatMulErrors = Fixture;

TEST_F(MatMulErrors, InnerDimensionsThatDoNotMatch) {
  Tensor A = var(FLOAT, {3, 4}), B = var(FLOAT, {5, 6});
  expectError<poputil::poplibs_error>([&] { poplin::matMul(graph, A, B, prog); },
                                      "A [3,4] has 4 columns but B [5,6] has 5 rows");
  expectError<poputil::poplibs_error>(
      [&] {
        poplin::createMatMulInputLHS(graph, FLOAT, {3, 4}, {5, 6}, "A");
      },
      "inner");
}

TEST_F(MatMulErrors, RankErrorsNameTheOperand) {
  expectError<poputil::poplibs_error>(
      [&] {
        poplin::matMul(graph, var(FLOAT, {2, 3, 4}), var(FLOAT, {4, 5}), prog);
      },
      "A (the left operand) must have rank 2");
  expectError<poputil::poplibs_error>(
      [&] {
        poplin::matMul(graph, var(FLOAT, {3, 4}), var(FLOAT, {4}), prog);
      },
      "B (the right operand) must have rank 2 (a matrix) but has shape [4]");
  expectError<poputil::poplibs_error>(
      [&] {
        poplin::matMulGrouped(graph, var(FLOAT, {3, 4}), var(FLOAT, {1, 4, 5}), prog, FLOAT);
      },
      "A (the left operand) must have rank 3");
  expectError<poputil::poplibs_error>(
      [&] {
        poplin::matMulGrouped(graph, var(FLOAT, {2, 3, 4}), var(FLOAT, {3, 4, 5}), prog, FLOAT);
      },
      "group counts differ");
}

TEST_F(MatMulErrors, TypeErrors) {
  expectError<poputil::poplibs_error>(
      [&] {
        poplin::matMul(graph, var(FLOAT, {3, 4}), var(HALF, {4, 5}), prog);
      },
      "A has type float but B has type half");
  expectError<poputil::poplibs_error>(
      [&] {
        poplin::matMul(graph, var(INT, {3, 4}), var(INT, {4, 5}), prog);
      },
      "A (the left operand) has type int");
}

TEST_F(MatMulErrors, OutputAndAccumulatorShapes) {
  Tensor A = var(FLOAT, {3, 4}), B = var(FLOAT, {4, 5});
  expectError<poputil::poplibs_error>(
      [&] {
        poplin::matMulAcc(graph, var(FLOAT, {3, 4}), 1.0f, A, B, prog);
      },
      "C (the accumulator) has shape [3,4]; expected [3,5]");
  expectError<poputil::poplibs_error>(
      [&] {
        poplin::matMulWithOutput(graph, A, B, var(FLOAT, {5, 3}), prog);
      },
      "out has shape [5,3]; expected [3,5]");
}

TEST_F(MatMulErrors, MemoryProportionOutsideZeroToOne) {
  Tensor A = var(FLOAT, {3, 4}), B = var(FLOAT, {4, 5});
  for (const char *bad : {"0", "-0.5", "1.5"})
    expectError<invalid_option>(
        [&] {
          poplin::matMul(graph, A, B, prog, "mm", {{"availableMemoryProportion", bad}});
        },
        std::string("matMul: option 'availableMemoryProportion' has value '") + bad +
            "'; expected a number in (0, 1]");
  expectError<invalid_option>(
      [&] {
        poplin::matMul(graph, A, B, prog, "mm", {{"availableMemoryProportion", "lots"}});
      },
      "option 'availableMemoryProportion' has value 'lots'; expected a number in (0, 1]");
}

TEST_F(MatMulErrors, UnknownOptionsAndValues) {
  Tensor A = var(FLOAT, {3, 4}), B = var(FLOAT, {4, 5});
  expectError<invalid_option>(
      [&] {
        poplin::matMul(graph, A, B, prog, "mm", {{"availableMemoryProportoin", "0.5"}});
      },
      "matMul: unknown option 'availableMemoryProportoin' (did you mean "
      "'availableMemoryProportion'?)");
  expectError<invalid_option>(
      [&] {
        poplin::matMul(graph, A, B, prog, "mm", {{"partialsType", "double"}});
      },
      "option 'partialsType' has value 'double'; expected 'float' or 'half'");
  expectError<invalid_option>(
      [&] {
        poplin::matMul(graph, A, B, prog, "mm", {{"fullyConnectedPass", "TRAINING_FW"}});
      },
      "option 'fullyConnectedPass' has value 'TRAINING_FW'; expected one of 'INFERENCE_FWD', "
      "'NONE', 'TRAINING_BWD', 'TRAINING_FWD', 'TRAINING_WU' (did you mean 'TRAINING_FWD'?)");
}

TEST_F(MatMulErrors, ValidOptionsAreAccepted) {
  Tensor A = var(FLOAT, {3, 4}), B = var(FLOAT, {4, 5});
  Tensor C = poplin::matMul(graph, A, B, prog, "mm",
                            {{"availableMemoryProportion", "1"},
                             {"partialsType", "half"},
                             {"fullyConnectedPass", "TRAINING_WU"}});
  EXPECT_EQ(C.shape(), (std::vector<std::size_t>{3, 5}));
}

} // namespace
