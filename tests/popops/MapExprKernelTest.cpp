// Every kernel of the map interpreter (the Highway table) against its scalar reference, on
// odd lengths and unaligned pointers, plus exhaustive checks of the half conversions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <poplar/Half.hpp>

#include "popops/MapExprBytecode.hpp"

namespace mx = tessera::codelets::popops::mapexpr;

namespace {

enum class K { F, I, U, B, H, C };
struct OpInfo {
  K in, out;
};
const OpInfo kInfo[] = {
#define TESSERA_INFO(name, in, out) {K::in, K::out},
    TESSERA_MAPEXPR_OPS(TESSERA_INFO)
#undef TESSERA_INFO
};
static_assert(sizeof(kInfo) / sizeof(kInfo[0]) == mx::kNumOps);

std::size_t bytesOf(K k) { return k == K::H ? 2 : k == K::C ? 1 : 4; }

/// Operand values suited to each op (in range, no NaN, no division by zero).
void fillOperand(mx::Op op, K k, unsigned operand, std::vector<unsigned char> &buf, std::size_t n,
                 std::mt19937 &rng) {
  buf.assign(n * bytesOf(k) + 8, 0);
  // Misaligned for SIMD vectors but aligned for the element type, as tile memory always is.
  unsigned char *p = buf.data() + bytesOf(k);
  const std::string name = mx::opName(op);
  for (std::size_t i = 0; i < n; ++i) {
    switch (k) {
    case K::F: {
      float lo = -20, hi = 20;
      if (name == "LogF" || name == "SqrtF" || name == "RsqrtF")
        lo = 0.001f;
      if (name == "Log1pF")
        lo = -0.99f;
      if (name == "PowF" && operand == 0)
        lo = 0.01f, hi = 5;
      if (name == "PowF" && operand == 1)
        lo = -3, hi = 3;
      if ((name == "DivF" || name == "InverseF") && operand == (name == "DivF" ? 1u : 0u))
        lo = 0.5f, hi = 20;
      if (name == "ClampF" && operand == 2)
        lo = 0, hi = 20;
      if (name == "ClampF" && operand == 1)
        lo = -20, hi = 0;
      float v = std::uniform_real_distribution<float>(lo, hi)(rng);
      if (name == "RoundF" && i % 7 == 0)
        v = std::floor(v) + 0.5f; // halfway cases
      if (name.substr(0, 2) == "Eq" && i % 3 == 0)
        v = 1.0f;
      // Float comparisons meet NaN too: unordered, so all false but != (as in C++).
      const bool comparison = name == "EqF" || name == "NeF" || name == "LtF" || name == "LeF" ||
                              name == "GtF" || name == "GeF";
      if (comparison && (i + operand) % 7 == 0)
        v = std::numeric_limits<float>::quiet_NaN();
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    case K::I: {
      int lo = -100000, hi = 100000;
      if (name == "DivI" && operand == 1)
        lo = -50, hi = 50;
      if (name == "MulI" || name == "SquareI")
        lo = -40000, hi = 40000;
      if (name == "ClampI" && operand == 1)
        hi = 0;
      if (name == "ClampI" && operand == 2)
        lo = 0;
      if ((name == "ShrSEI" || name == "RemI") && operand == 1)
        lo = -40, hi = 40; // shifts past the width, negative amounts, remainders by 0 and -1
      int v = std::uniform_int_distribution<int>(lo, hi)(rng);
      if (name == "EqI" && i % 3 == 0)
        v = 5;
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    case K::U: {
      std::uint32_t v = static_cast<std::uint32_t>(rng());
      if (name == "ClampU" && operand == 1)
        v >>= 2;
      if (name == "ClampU" && operand == 2)
        v |= 0x80000000u;
      if (name == "DivU" && operand == 1 && i % 5 == 0)
        v = 0; // division by zero gives 0
      if ((name == "ShlI" || name == "ShrI") && operand == 1)
        v %= 40; // shifts past the width too
      if (name == "RemU" && operand == 1)
        v = i % 5 == 0 ? 0 : v % 1000;
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    case K::B: {
      std::uint32_t v = rng() & 1u;
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    case K::H: {
      const std::uint16_t h = static_cast<std::uint16_t>(rng());
      std::memcpy(p + 2 * i, &h, 2);
      break;
    }
    case K::C:
      p[i] = static_cast<unsigned char>(rng() % 3); // 2 counts as true
      break;
    }
  }
}

unsigned arity(mx::Op op) {
  const std::string n = mx::opName(op);
  if (n.rfind("Clamp", 0) == 0 || n == "Select")
    return 3;
  static const char *binary[] = {"Add",
                                 "Sub",
                                 "Mul",
                                 "Div",
                                 "Pow",
                                 "Max",
                                 "Min",
                                 "Eq",
                                 "Ne",
                                 "Lt",
                                 "Le",
                                 "Gt",
                                 "Ge",
                                 "And",
                                 "Or",
                                 "GeluTanhGrad",
                                 "Atan2",
                                 "Rem",
                                 "InvStdDevToVariance",
                                 "VarianceToInvStdDev",
                                 "BitAnd",
                                 "BitOr",
                                 "BitXor",
                                 "BitXnor",
                                 "Shl",
                                 "Shr"};
  for (const char *b : binary)
    if (n.rfind(b, 0) == 0)
      return 2;
  return 1;
}

/// Allowed difference between kernel and reference, relative to max(1, |reference|).
double tolerance(mx::Op op) {
  const std::string n = mx::opName(op);
  for (const char *approx : {"ExpF", "Expm1F", "LogF", "Log1pF", "TanhF", "SigmoidF", "CosF",
                             "SinF", "ErfF", "PowF", "RsqrtF", "GeluTanhF", "GeluTanhGradF"})
    if (n == approx)
      return 2e-6;
  return 0;
}

} // namespace

TEST(MapExprKernel, EveryOpcodeMatchesItsScalarReference) {
  const mx::KernelFn *kernels = mx::kernelTable();
  const mx::KernelFn *refs = mx::referenceTable();
  std::mt19937 rng(42);
  for (std::uint32_t o = 0; o < mx::kNumOps; ++o) {
    const auto op = static_cast<mx::Op>(o);
    const OpInfo info = kInfo[o];
    for (std::size_t n : {0u, 1u, 3u, 7u, 16u, 17u, 33u, 1031u}) {
      std::vector<unsigned char> in[3];
      // Select's condition is a bool register.
      for (unsigned a = 0; a < arity(op); ++a)
        fillOperand(op, (op == mx::Op::Select && a == 2) ? K::B : info.in, a, in[a], n, rng);
      const std::size_t outBytes = n * bytesOf(info.out);
      std::vector<unsigned char> got(outBytes + 8, 0xab), want(outBytes + 8, 0xab);
      const void *args[3] = {nullptr, nullptr, nullptr};
      for (unsigned a = 0; a < arity(op); ++a)
        args[a] = in[a].data() + bytesOf((op == mx::Op::Select && a == 2) ? K::B : info.in);
      const std::size_t ob = bytesOf(info.out); // output misaligned the same way
      kernels[o](got.data() + ob, args[0], args[1], args[2], n);
      refs[o](want.data() + ob, args[0], args[1], args[2], n);
      const double tol = tolerance(op);
      for (std::size_t i = 0; i < n; ++i) {
        if (bytesOf(info.out) != 4 || info.out != K::F || tol == 0) {
          ASSERT_EQ(0, std::memcmp(got.data() + ob + i * bytesOf(info.out),
                                   want.data() + ob + i * bytesOf(info.out), bytesOf(info.out)))
              << mx::opName(op) << " n=" << n << " i=" << i;
        } else {
          float g, w;
          std::memcpy(&g, got.data() + ob + 4 * i, 4);
          std::memcpy(&w, want.data() + ob + 4 * i, 4);
          ASSERT_NEAR(g, w, tol * std::max(1.0, std::fabs(double(w))))
              << mx::opName(op) << " n=" << n << " i=" << i;
        }
      }
      // Nothing outside [0, n) is written.
      for (std::size_t i = 0; i < ob; ++i)
        ASSERT_EQ(got[i], 0xab) << mx::opName(op);
      for (std::size_t i = ob + outBytes; i < got.size(); ++i)
        ASSERT_EQ(got[i], 0xab) << mx::opName(op);
    }
  }
}

TEST(MapExprKernel, HalfLoadIsExactForEveryHalf) {
  const auto load = mx::kernelTable()[static_cast<unsigned>(mx::Op::LoadHalf)];
  std::vector<std::uint16_t> h(65536);
  for (unsigned i = 0; i < 65536; ++i)
    h[i] = static_cast<std::uint16_t>(i);
  std::vector<std::uint32_t> got(65536);
  load(got.data(), h.data(), nullptr, nullptr, h.size());
  for (unsigned i = 0; i < 65536; ++i) {
    const float want = poplar::halfBitsToFloat(h[i]);
    std::uint32_t wb;
    std::memcpy(&wb, &want, 4);
    if (std::isnan(want))
      ASSERT_TRUE((got[i] & 0x7f800000u) == 0x7f800000u && (got[i] & 0x7fffffu)) << i;
    else
      ASSERT_EQ(got[i], wb) << "half bits " << i;
  }
}

TEST(MapExprKernel, HalfStoreRoundsLikeTheHostConversion) {
  const auto store = mx::kernelTable()[static_cast<unsigned>(mx::Op::StoreHalf)];
  // A stride through every float bit pattern (prime step), plus the edge cases.
  std::vector<std::uint32_t> bits;
  for (std::uint64_t b = 0; b < (1ull << 32); b += 4099)
    bits.push_back(static_cast<std::uint32_t>(b));
  for (std::uint32_t b : {0x477fefffu, 0x477ff000u, 0x477fe000u, 0x38800000u, 0x387fffffu,
                          0x33000000u, 0x33000001u, 0x7f800000u, 0xff800000u, 0x80000000u})
    bits.push_back(b);
  std::vector<std::uint16_t> got(bits.size());
  store(got.data(), bits.data(), nullptr, nullptr, bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) {
    float f;
    std::memcpy(&f, &bits[i], 4);
    ASSERT_EQ(got[i], poplar::floatToHalfBits(f)) << std::hex << "float bits 0x" << bits[i];
  }
}
