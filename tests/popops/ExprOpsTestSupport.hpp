// Helpers of the expression-op suites: operands of any element type in and out of a device,
// one map run on a chosen tile layout and host-thread count, and the float comparison rule.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <popops/ElementWise.hpp>
#include <reference/Common.hpp>

#include "ElementWiseTestSupport.hpp"

namespace exprtest {

using namespace poplar;
namespace pe = popops::expr;

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

enum class Layout { OneTile, Linear16 };

struct Operand {
  Type type;
  std::vector<double> values;
};

inline std::size_t bytesOf(const Type &t) {
  return t == HALF || t == SHORT || t == UNSIGNED_SHORT ? 2 : (t == BOOL ? 1 : 4);
}

inline std::vector<unsigned char> encode(const Operand &o) {
  std::vector<unsigned char> out(o.values.size() * bytesOf(o.type));
  for (std::size_t i = 0; i < o.values.size(); ++i) {
    unsigned char *p = out.data() + i * bytesOf(o.type);
    const double v = o.values[i];
    if (o.type == FLOAT) {
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
    } else if (o.type == HALF) {
      const std::uint16_t h = poplar::floatToHalfBits(static_cast<float>(v));
      std::memcpy(p, &h, 2);
    } else if (o.type == INT) {
      const std::int32_t x = static_cast<std::int32_t>(static_cast<std::int64_t>(v));
      std::memcpy(p, &x, 4);
    } else if (o.type == UNSIGNED_INT) {
      const std::uint32_t x = static_cast<std::uint32_t>(static_cast<std::int64_t>(v));
      std::memcpy(p, &x, 4);
    } else if (o.type == SHORT || o.type == UNSIGNED_SHORT) {
      const std::uint16_t x = static_cast<std::uint16_t>(static_cast<std::int64_t>(v));
      std::memcpy(p, &x, 2);
    } else {
      *p = v != 0 ? 1 : 0;
    }
  }
  return out;
}

inline double decode(const Type &t, const unsigned char *p) {
  if (t == FLOAT) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (t == HALF) {
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    return poplar::halfBitsToFloat(h);
  }
  if (t == INT) {
    std::int32_t x;
    std::memcpy(&x, p, 4);
    return x;
  }
  if (t == UNSIGNED_INT) {
    std::uint32_t x;
    std::memcpy(&x, p, 4);
    return x;
  }
  if (t == SHORT) {
    std::int16_t x;
    std::memcpy(&x, p, 2);
    return x;
  }
  if (t == UNSIGNED_SHORT) {
    std::uint16_t x;
    std::memcpy(&x, p, 2);
    return x;
  }
  return *p;
}

struct Result {
  Type type;
  std::vector<unsigned char> bytes;
  std::vector<double> values;
};

/// Maps `e` over `operands` on a 16-tile device (all on tile 0, or linearly over all 16).
inline Result runMap(const pe::Expr &e, const std::vector<Operand> &operands, Layout layout,
                     unsigned threads = 1) {
  ewtest::Fixture f(16);
  std::vector<Tensor> ts;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    Tensor t = f.var(operands[i].type, {operands[i].values.size()}, name);
    if (layout == Layout::OneTile)
      f.graph.setTileMapping(t, 0);
    ts.push_back(t);
  }
  Tensor out = popops::map(f.graph, e, ts, f.prog, "map");
  f.read("out", out);
  OptionFlags opts;
  opts.set("target.hostThreads", std::to_string(threads));
  Engine engine(f.graph, f.prog, opts);
  engine.load(f.dev);
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const auto bytes = encode(operands[i]);
    engine.writeTensor("in" + std::to_string(i), bytes.data(), bytes.data() + bytes.size());
  }
  engine.run();
  Result r{out.elementType(),
           std::vector<unsigned char>(out.numElements() * bytesOf(out.elementType())),
           {}};
  engine.readTensor("out", r.bytes.data(), r.bytes.data() + r.bytes.size());
  for (std::size_t i = 0; i < out.numElements(); ++i)
    r.values.push_back(decode(r.type, r.bytes.data() + i * bytesOf(r.type)));
  return r;
}

/// Inputs as the device holds them (rounded to float or half).
inline std::vector<double> held(const Type &t, std::vector<double> v) {
  return reference::roundTo(t, std::move(v));
}

/// A float result against a double reference: both NaN, or equal infinities, or within a
/// relative tolerance of the result type (1 ulp of float; 1 ulp of half after the rounding).
inline void expectClose(const Type &t, double got, double want, const std::string &what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what << ": got " << got << ", want NaN";
    return;
  }
  if (std::isinf(want)) {
    EXPECT_EQ(got, want) << what;
    return;
  }
  const double rel = t == HALF ? 1.0 / 1024 : 2.4e-7;
  const double tiny = t == HALF ? 6.1e-5 : 1.2e-38;
  EXPECT_NEAR(got, want, rel * std::fabs(want) + tiny) << what;
  if (want == 0 && got == 0) {
    EXPECT_EQ(std::signbit(got), std::signbit(want)) << what << ": the sign of zero";
  }
}

} // namespace exprtest
