// popops::reduce's bad-input paths: each throws poputil::poplibs_error naming the culprit.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include <poplar/IPUModel.hpp>
#include <popops/Reduce.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

using namespace poplar;
using namespace poplar::program;
using popops::Operation;

namespace {

struct Fixture {
  Device device = [] {
    IPUModel m;
    m.tilesPerIPU = 4;
    return m.createDevice();
  }();
  Graph graph{device.getTarget()};
  Sequence prog;
  Fixture() { popops::addCodelets(graph); }
  Tensor mapped(const Type &type, std::vector<std::size_t> shape, const std::string &name) {
    Tensor t = graph.addVariable(type, shape, name);
    poputil::mapTensorLinearly(graph, t);
    return t;
  }
};

/// Expects `f` to throw poplibs_error whose message contains every one of `needles`.
void expectError(const std::function<void()> &f, const std::vector<std::string> &needles) {
  try {
    f();
    FAIL() << "expected poputil::poplibs_error";
  } catch (const poputil::poplibs_error &e) {
    const std::string what = e.what();
    for (const auto &n : needles)
      EXPECT_NE(what.find(n), std::string::npos) << "'" << n << "' not in: " << what;
  }
}

} // namespace

TEST(ReduceErrors, DimensionThatDoesNotExistIsNamed) {
  Fixture f;
  Tensor t = f.mapped(FLOAT, {3, 4}, "activations");
  expectError(
      [&] {
        popops::reduce(f.graph, t, {0, 2}, Operation::ADD, f.prog);
      },
      {"dimension 2", "activations", "float[3,4]"});
}

TEST(ReduceErrors, RepeatedDimensionIsNamed) {
  Fixture f;
  Tensor t = f.mapped(FLOAT, {3, 4}, "twice");
  expectError(
      [&] {
        popops::reduce(f.graph, t, {1, 1}, Operation::ADD, f.prog);
      },
      {"dimension 1", "twice"});
}

TEST(ReduceErrors, LogicalOperationNeedsBool) {
  Fixture f;
  Tensor t = f.mapped(FLOAT, {5}, "notBool");
  expectError([&] { popops::reduce(f.graph, t, {0}, Operation::LOGICAL_AND, f.prog); },
              {"LOGICAL_AND", "BOOL", "notBool"});
}

TEST(ReduceErrors, ArithmeticOnBoolAndLogAddOnIntAreRejected) {
  Fixture f;
  Tensor b = f.mapped(BOOL, {5}, "flags");
  expectError([&] { popops::reduce(f.graph, b, {0}, Operation::ADD, f.prog); }, {"ADD", "flags"});
  Tensor i = f.mapped(INT, {5}, "counts");
  expectError([&] { popops::reduce(f.graph, i, {0}, Operation::LOG_ADD, f.prog); },
              {"LOG_ADD", "counts"});
}

TEST(ReduceErrors, UnsupportedOutputTypeIsNamed) {
  Fixture f;
  Tensor t = f.mapped(INT, {4, 2}, "ints");
  expectError([&] { popops::reduce(f.graph, t, FLOAT, {0}, Operation::ADD, f.prog); },
              {"ints", "float"});
}

TEST(ReduceErrors, WrongOutputShapeNamesTheOutput) {
  Fixture f;
  Tensor in = f.mapped(FLOAT, {3, 4, 5}, "in");
  Tensor out = f.mapped(FLOAT, {3, 4}, "result");
  expectError([&] { popops::reduceWithOutput(f.graph, in, out, {1}, Operation::ADD, f.prog); },
              {"result", "float[3,4]", "[3,5]"});
}

TEST(ReduceErrors, ScaleOrUpdateOnMaxIsRejected) {
  Fixture f;
  Tensor in = f.mapped(FLOAT, {3, 4}, "in");
  Tensor out = f.mapped(FLOAT, {4}, "out");
  expectError(
      [&] {
        popops::reduceWithOutput(f.graph, in, out, {0}, popops::ReduceParams(Operation::MAX, true),
                                 f.prog);
      },
      {"MAX", "scale or update", "'in'"});
}

TEST(ReduceErrors, UpdateWithoutOutputIsRejected) {
  Fixture f;
  Tensor in = f.mapped(FLOAT, {3, 4}, "lonely");
  expectError(
      [&] { popops::reduce(f.graph, in, {0}, popops::ReduceParams(Operation::ADD, true), f.prog); },
      {"update", "lonely"});
}

TEST(ReduceErrors, ScaleMustBeOneFloat) {
  Fixture f;
  Tensor in = f.mapped(FLOAT, {3, 4}, "in");
  Tensor scale = f.mapped(FLOAT, {2}, "bigScale");
  expectError(
      [&] {
        popops::reduce(f.graph, in, {0}, popops::ReduceParams(Operation::ADD, false, scale),
                       f.prog);
      },
      {"scale", "bigScale", "float[2]"});
}

TEST(ReduceErrors, ReduceManyOutputCountMustMatch) {
  Fixture f;
  Tensor in = f.mapped(FLOAT, {3, 4}, "in");
  std::vector<popops::SingleReduceOp> ops = {popops::SingleReduceOp(in, {0}, Operation::ADD)};
  std::vector<Tensor> outs = {f.mapped(FLOAT, {4}, "o1"), f.mapped(FLOAT, {4}, "o2")};
  expectError([&] { popops::reduceMany(f.graph, ops, outs, f.prog); }, {"2 outputs", "1 reduc"});
}

TEST(ReduceErrors, UnknownOptionIsNamed) {
  Fixture f;
  Tensor in = f.mapped(FLOAT, {3, 4}, "in");
  try {
    popops::reduce(f.graph, in, {0}, Operation::ADD, f.prog, "r", {{"accumType.inVertx", "float"}});
    FAIL() << "expected poplar::invalid_option";
  } catch (const poplar::invalid_option &e) {
    EXPECT_NE(
        std::string(e.what()).find("'accumType.inVertx' (did you mean 'accumType.inVertex'?)"),
        std::string::npos)
        << e.what();
  }
  // The known keys are accepted.
  EXPECT_NO_THROW(
      popops::reduce(f.graph, in, {0}, Operation::ADD, f.prog, "r",
                     {{"accumType.inVertex", "half"}, {"accumType.interTile", "float"}}));
}

TEST(ReduceErrors, BadOptionValueIsNamed) {
  Fixture f;
  Tensor in = f.mapped(FLOAT, {3, 4}, "in");
  try {
    popops::reduce(f.graph, in, {0}, Operation::ADD, f.prog, "r", {{"accumType.interTile", "int"}});
    FAIL() << "expected poplar::invalid_option";
  } catch (const poplar::invalid_option &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("accumType.interTile"), std::string::npos) << what;
    EXPECT_NE(what.find("'int'"), std::string::npos) << what;
  }
}

TEST(ReduceErrors, UnmappedInputIsNamed) {
  Fixture f;
  Tensor in = f.graph.addVariable(FLOAT, {3, 4}, "nowhere");
  try {
    popops::reduce(f.graph, in, {1}, Operation::ADD, f.prog);
    FAIL() << "expected poplar::invalid_tile_mapping";
  } catch (const poplar::invalid_tile_mapping &e) {
    EXPECT_NE(std::string(e.what()).find("nowhere"), std::string::npos) << e.what();
  }
}
