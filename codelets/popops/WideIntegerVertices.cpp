// popops::BinaryOp64<OP,T>: out[i] = in1[i] OP in2[i] for T long long or unsigned long long, the
// binary operations PopLibs offers on 64-bit integers (popops::map of one binary operation).
// Arithmetic wraps modulo 2^64; division by zero gives 0 and the remainder by zero the dividend
// (as the 32-bit map does); LLONG_MIN / -1 wraps and LLONG_MIN % -1 is 0; a shift by 64 or more
// (the amount read as unsigned) shifts every bit out (SHIFT_RIGHT_SIGN_EXTEND leaves the sign);
// comparisons give bool. One MultiVertex per run of the output; the workers split it.
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

enum class Op64 {
  ADD,
  SUBTRACT,
  MULTIPLY,
  DIVIDE,
  REMAINDER,
  MAXIMUM,
  MINIMUM,
  BITWISE_AND,
  BITWISE_OR,
  BITWISE_XOR,
  BITWISE_XNOR,
  SHIFT_LEFT,
  SHIFT_RIGHT,
  SHIFT_RIGHT_SIGN_EXTEND,
  EQUAL,
  NOT_EQUAL,
  LESS_THAN,
  LESS_THAN_EQUAL,
  GREATER_THAN,
  GREATER_THAN_EQUAL,
};

constexpr bool isComparison(Op64 op) {
  return op == Op64::EQUAL || op == Op64::NOT_EQUAL || op == Op64::LESS_THAN ||
         op == Op64::LESS_THAN_EQUAL || op == Op64::GREATER_THAN || op == Op64::GREATER_THAN_EQUAL;
}

template <Op64 op, class T> auto apply(T a, T b) {
  using U = std::uint64_t;
  const U ua = static_cast<U>(a), ub = static_cast<U>(b);
  if constexpr (op == Op64::ADD)
    return static_cast<T>(ua + ub);
  else if constexpr (op == Op64::SUBTRACT)
    return static_cast<T>(ua - ub);
  else if constexpr (op == Op64::MULTIPLY)
    return static_cast<T>(ua * ub);
  else if constexpr (op == Op64::DIVIDE) {
    if (b == 0)
      return T(0);
    if constexpr (std::is_signed_v<T>)
      if (b == -1)
        return static_cast<T>(U(0) - ua);
    return static_cast<T>(a / b);
  } else if constexpr (op == Op64::REMAINDER) {
    if (b == 0)
      return a;
    if constexpr (std::is_signed_v<T>)
      if (b == -1)
        return T(0);
    return static_cast<T>(a % b);
  } else if constexpr (op == Op64::MAXIMUM)
    return a > b ? a : b;
  else if constexpr (op == Op64::MINIMUM)
    return a < b ? a : b;
  else if constexpr (op == Op64::BITWISE_AND)
    return static_cast<T>(ua & ub);
  else if constexpr (op == Op64::BITWISE_OR)
    return static_cast<T>(ua | ub);
  else if constexpr (op == Op64::BITWISE_XOR)
    return static_cast<T>(ua ^ ub);
  else if constexpr (op == Op64::BITWISE_XNOR)
    return static_cast<T>(~(ua ^ ub));
  else if constexpr (op == Op64::SHIFT_LEFT)
    return static_cast<T>(ub >= 64 ? U(0) : ua << ub);
  else if constexpr (op == Op64::SHIFT_RIGHT)
    return static_cast<T>(ub >= 64 ? U(0) : ua >> ub);
  else if constexpr (op == Op64::SHIFT_RIGHT_SIGN_EXTEND)
    return ub >= 64 ? T(a < 0 ? -1 : 0) : static_cast<T>(a >> ub);
  else if constexpr (op == Op64::EQUAL)
    return a == b;
  else if constexpr (op == Op64::NOT_EQUAL)
    return a != b;
  else if constexpr (op == Op64::LESS_THAN)
    return a < b;
  else if constexpr (op == Op64::LESS_THAN_EQUAL)
    return a <= b;
  else if constexpr (op == Op64::GREATER_THAN)
    return a > b;
  else
    return a >= b;
}

template <Op64 op, class T> class BinaryOp64 : public poplar::MultiVertex {
public:
  using Out = std::conditional_t<isComparison(op), bool, T>;
  poplar::Input<poplar::Vector<T>> in1;
  poplar::Input<poplar::Vector<T>> in2;
  poplar::Output<poplar::Vector<Out>> out;

  bool compute(unsigned workerId) {
    const std::size_t n = out.size(), workers = numWorkers();
    const std::size_t begin = n * workerId / workers, end = n * (workerId + 1) / workers;
    for (std::size_t i = begin; i < end; ++i)
      out[i] = apply<op, T>(in1[i], in2[i]);
    return true;
  }
  // Two 32-bit instructions per 64-bit element on the IPU's integer unit, plus the loads.
  std::uint64_t cycleEstimate() const { return 20 + 3 * out.size(); }
};

template <Op64 op, class T> void registerOne(const char *opName, const char *typeName) {
  using V = BinaryOp64<op, T>;
  tessera::VertexTypeBuilder<V>(std::string("popops::BinaryOp64<") + opName + "," + typeName + ">")
      .field("in1", &V::in1)
      .field("in2", &V::in2)
      .field("out", &V::out)
      .add();
}

template <Op64 op> void registerBoth(const char *opName) {
  if constexpr (op != Op64::SHIFT_RIGHT_SIGN_EXTEND) // signed only, as in PopLibs
    registerOne<op, unsigned long long>(opName, "unsigned long long");
  registerOne<op, long long>(opName, "long long");
}

} // namespace

void registerWideIntegerVertices() {
#define TESSERA_OP64(NAME) registerBoth<Op64::NAME>(#NAME);
  TESSERA_OP64(ADD)
  TESSERA_OP64(SUBTRACT)
  TESSERA_OP64(MULTIPLY)
  TESSERA_OP64(DIVIDE)
  TESSERA_OP64(REMAINDER)
  TESSERA_OP64(MAXIMUM)
  TESSERA_OP64(MINIMUM)
  TESSERA_OP64(BITWISE_AND)
  TESSERA_OP64(BITWISE_OR)
  TESSERA_OP64(BITWISE_XOR)
  TESSERA_OP64(BITWISE_XNOR)
  TESSERA_OP64(SHIFT_LEFT)
  TESSERA_OP64(SHIFT_RIGHT)
  TESSERA_OP64(SHIFT_RIGHT_SIGN_EXTEND)
  TESSERA_OP64(EQUAL)
  TESSERA_OP64(NOT_EQUAL)
  TESSERA_OP64(LESS_THAN)
  TESSERA_OP64(LESS_THAN_EQUAL)
  TESSERA_OP64(GREATER_THAN)
  TESSERA_OP64(GREATER_THAN_EQUAL)
#undef TESSERA_OP64
}

} // namespace tessera::codelets::popops
