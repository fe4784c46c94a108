// popops with every floating-point trap on (setFloatingPointBehaviour, as PopART's
// enableFloatingPointChecks sets it): ordinary data raises nothing — vector tails and fused
// kernels compute no spurious invalid, division by zero or overflow — while a real division by
// zero stops the run naming popops' vertex. Reference: the host's own arithmetic.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <poplar/CSRFunctions.hpp>
#include <popops/Cast.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>

#include "ElementWiseTestSupport.hpp"

using namespace poplar;
using namespace poplar::program;
using ewtest::Fixture;

namespace {

constexpr std::size_t kN = 37; // not a multiple of any vector width: every kernel has a tail
const FloatingPointBehaviour kAllTraps(true, true, true, false, true);

struct Traps : Fixture {
  Tensor a, b;
  explicit Traps(Type type) {
    a = var(type, {kN}, "a");
    b = var(type, {kN}, "b");
    setFloatingPointBehaviour(graph, prog, kAllTraps, "traps");
  }
  /// Writes a, b (converted to the tensors' type) and runs the program.
  Engine run(const std::vector<float> &av, const std::vector<float> &bv) {
    Engine engine(graph, prog, {{"executableCache.enable", "false"}});
    engine.load(dev);
    if (a.elementType() == HALF) {
      const auto ah = ewtest::toHalf(av), bh = ewtest::toHalf(bv);
      engine.writeTensor("a", ah.data(), ah.data() + ah.size());
      engine.writeTensor("b", bh.data(), bh.data() + bh.size());
    } else {
      engine.writeTensor("a", av.data(), av.data() + av.size());
      engine.writeTensor("b", bv.data(), bv.data() + bv.size());
    }
    engine.run(0);
    return engine;
  }
};

} // namespace

TEST(FloatingPointTraps, OrdinaryDataRaisesNothingInPopops) {
  for (Type type : {FLOAT, HALF}) {
    SCOPED_TRACE(type.toString());
    Traps t(type);
    Graph &g = t.graph;
    Sequence &p = t.prog;
    const std::vector<Tensor> results{popops::add(g, t.a, t.b, p),
                                      popops::sub(g, t.a, t.b, p),
                                      popops::mul(g, t.a, t.b, p),
                                      popops::div(g, t.a, t.b, p),
                                      popops::pow(g, t.a, t.b, p),
                                      popops::max(g, t.a, t.b, p),
                                      popops::sqrt(g, t.a, p),
                                      popops::rsqrt(g, t.a, p),
                                      popops::exp(g, t.a, p),
                                      popops::log(g, t.a, p),
                                      popops::tanh(g, t.a, p),
                                      popops::sigmoid(g, t.a, p),
                                      popops::inv(g, t.a, p),
                                      popops::square(g, t.a, p),
                                      popops::lt(g, t.a, t.b, p),
                                      popops::cast(g, t.a, type == FLOAT ? HALF : FLOAT, p),
                                      popops::reduce(g, t.a, {0}, {popops::Operation::ADD}, p),
                                      popops::reduce(g, t.a, {0}, {popops::Operation::MAX}, p)};
    t.read("quotient", results[3]);
    const auto av = ewtest::randomFloats(kN, 0.5f, 2.0f, 1),
               bv = ewtest::randomFloats(kN, 0.5f, 2.0f, 2);
    Engine engine = t.run(av, bv);
    std::vector<float> q(kN);
    if (type == HALF) {
      std::vector<std::uint16_t> h(kN);
      engine.readTensor("quotient", h.data(), h.data() + h.size());
      q = ewtest::fromHalf(h);
    } else {
      engine.readTensor("quotient", q.data(), q.data() + q.size());
    }
    for (std::size_t i = 0; i < kN; ++i)
      EXPECT_NEAR(q[i], av[i] / bv[i], 2e-3f * av[i] / bv[i]) << "element " << i;
  }
}

TEST(FloatingPointTraps, DivisionByZeroInPopopsStopsNamingItsVertex) {
  Traps t(FLOAT);
  popops::div(t.graph, t.a, t.b, t.prog, "quotient");
  std::vector<float> av(kN, 1.0f), bv(kN, 1.0f);
  bv[kN - 1] = 0.0f; // in the tail
  try {
    t.run(av, bv);
    ADD_FAILURE() << "no exception";
  } catch (const application_runtime_error &e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("division by zero"), std::string::npos) << message;
    EXPECT_NE(message.find("quotient"), std::string::npos) << message;
  }
}
