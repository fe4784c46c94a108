// Element-wise expressions for popops::map: trees of placeholders (_1 … _20, standing for the
// tensors passed to map), constants, casts and unary/binary/ternary operations, built with the
// usual C++ operators:
//
//   using namespace popops::expr;
//   popops::map(graph, Sqrt(Abs(_1 - _2)) * 0.5f + _1, {a, b}, prog);
//
// Expressions are values: every node owns copies of its operands (`clone()`).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <poplar/TypeTraits.hpp>
#include <popops/ExprOp.hpp>

namespace popops {
namespace expr {

/// Base of every expression node.
class Expr {
public:
  virtual ~Expr() = default;
  /// A deep copy of this node and its operands.
  virtual std::unique_ptr<Expr> clone() const = 0;
  /// A readable form, e.g. "ADD(_1, SQRT(_2))", naming tensors by their position.
  virtual std::string name(const std::vector<poplar::Tensor> &tensors = {}) const = 0;
  /// Writes this expression to `os`. With `prettyPrint`, every operand sits on its own line,
  /// indented two spaces deeper than its operation, and the first line is indented by `indent`
  /// spaces; without it, the text is name() (one line, `indent` ignored).
  virtual void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const = 0;
  /// Whether this node is of class T (e.g. `e.isA<Const>()`).
  template <class T> bool isA() const { return dynamic_cast<const T *>(this) != nullptr; }
  template <class T> const T *getAs() const { return dynamic_cast<const T *>(this); }
  /// Structural equality (same tree, same constants and types).
  bool deepEquals(const Expr &other) const;
};

/// A constant. Its type is that of the C++ value (float → FLOAT, int → INT, unsigned →
/// UNSIGNED_INT, bool → BOOL); in an operation with a typed operand it takes that type.
class Const : public Expr {
public:
  template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  Const(T x)
      : typeTraits_(poplar::TypeTraits::make<T>()), type_(typeOf<T>()),
        value_(static_cast<double>(x)) {}
  Const(poplar::Type type, double value)
      : typeTraits_(traitsOf(type)), type_(type), value_(value) {}

  const poplar::Type &getType() const { return type_; }
  /// The host type the value was given as (float for a HALF constant, whose value is held as a
  /// float): its size, alignment and kind.
  const poplar::TypeTraits &getTypeTraits() const { return typeTraits_; }
  /// The value as a double (exact for every FLOAT, INT and UNSIGNED_INT value).
  double getDataAsDouble() const { return value_; }
  /// The value of a BOOL or unsigned integer constant as a 64-bit unsigned integer (for shift
  /// counts and bit masks); throws poputil::poplibs_error naming the type for any other type.
  std::uint64_t getDataForUnsignedIntegral() const;
  std::string printValue() const;

  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new Const(*this)); }
  std::string name(const std::vector<poplar::Tensor> &tensors = {}) const override;
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;

private:
  template <class T> static poplar::Type typeOf() {
    if (std::is_same<T, bool>::value)
      return poplar::BOOL;
    if (std::is_floating_point<T>::value)
      return poplar::FLOAT;
    if (std::is_signed<T>::value)
      return poplar::INT;
    return poplar::UNSIGNED_INT;
  }
  /// The traits of the host type holding a value of device type `type` (float for HALF).
  static poplar::TypeTraits traitsOf(const poplar::Type &type);
  poplar::TypeTraits typeTraits_;
  poplar::Type type_;
  double value_;
};

/// A HALF constant (`ConstHalf(0.5f)`).
class ConstHalf : public Const {
public:
  explicit ConstHalf(float x) : Const(poplar::HALF, x) {}
  std::unique_ptr<Expr> clone() const override {
    return std::unique_ptr<Expr>(new ConstHalf(*this));
  }
};

/// `0.5_half`: a HALF constant.
inline ConstHalf operator"" _half(long double x) { return ConstHalf(static_cast<float>(x)); }

/// Converts its operand to `type` (float → integer truncates; to HALF rounds to nearest).
class Cast : public Expr {
public:
  Cast(const Expr &a, const poplar::Type &type) : a_(a.clone()), type_(type) {}
  Cast(const Cast &o) : Expr(), a_(o.a_->clone()), type_(o.type_) {}
  const Expr &getLHS() const { return *a_; }
  const poplar::Type &getRHSType() const { return type_; }
  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new Cast(*this)); }
  std::string name(const std::vector<poplar::Tensor> &tensors = {}) const override;
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;

private:
  std::unique_ptr<Expr> a_;
  poplar::Type type_;
};

/// Stands for tensor `index` (1-based) of the list given to map.
class PlaceHolder : public Expr {
public:
  explicit constexpr PlaceHolder(unsigned index) : index_(index) {}
  unsigned getIndex() const { return index_; }
  std::unique_ptr<Expr> clone() const override {
    return std::unique_ptr<Expr>(new PlaceHolder(*this));
  }
  std::string name(const std::vector<poplar::Tensor> &tensors = {}) const override;
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;

private:
  unsigned index_;
};

// Constant-initialised, one set per translation unit (as in PopLibs; C++11 has no inline
// variables).
const PlaceHolder _1(1), _2(2), _3(3), _4(4), _5(5), _6(6), _7(7), _8(8), _9(9), _10(10), _11(11),
    _12(12), _13(13), _14(14), _15(15), _16(16), _17(17), _18(18), _19(19), _20(20);

class UnaryOp : public Expr {
public:
  UnaryOp(UnaryOpType type, const Expr &a) : type_(type), a_(a.clone()) {}
  UnaryOp(const UnaryOp &o) : Expr(), type_(o.type_), a_(o.a_->clone()) {}
  UnaryOpType getOpType() const { return type_; }
  const Expr &getArg() const { return *a_; }
  std::unique_ptr<Expr> clone() const override { return std::unique_ptr<Expr>(new UnaryOp(*this)); }
  std::string name(const std::vector<poplar::Tensor> &tensors = {}) const override;
  /// The operand's name (the operation itself left out).
  std::string exprName(const std::vector<poplar::Tensor> &inputs) const { return a_->name(inputs); }
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;

private:
  UnaryOpType type_;
  std::unique_ptr<Expr> a_;
};

class BinaryOp : public Expr {
public:
  BinaryOp(BinaryOpType type, const Expr &a, const Expr &b)
      : type_(type), a_(a.clone()), b_(b.clone()) {}
  BinaryOp(const BinaryOp &o) : Expr(), type_(o.type_), a_(o.a_->clone()), b_(o.b_->clone()) {}
  BinaryOpType getOpType() const { return type_; }
  const Expr &getLHS() const { return *a_; }
  const Expr &getRHS() const { return *b_; }
  std::unique_ptr<Expr> clone() const override {
    return std::unique_ptr<Expr>(new BinaryOp(*this));
  }
  std::string name(const std::vector<poplar::Tensor> &tensors = {}) const override;
  /// The operands' names joined by '_' (the operation itself left out).
  std::string exprName(const std::vector<poplar::Tensor> &inputs) const {
    return a_->name(inputs) + "_" + b_->name(inputs);
  }
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;

private:
  BinaryOpType type_;
  std::unique_ptr<Expr> a_, b_;
};

class TernaryOp : public Expr {
public:
  TernaryOp(TernaryOpType type, const Expr &a, const Expr &b, const Expr &c)
      : type_(type), a_(a.clone()), b_(b.clone()), c_(c.clone()) {}
  TernaryOp(const TernaryOp &o)
      : Expr(), type_(o.type_), a_(o.a_->clone()), b_(o.b_->clone()), c_(o.c_->clone()) {}
  TernaryOpType getOpType() const { return type_; }
  const Expr &getArg0() const { return *a_; }
  const Expr &getArg1() const { return *b_; }
  const Expr &getArg2() const { return *c_; }
  std::unique_ptr<Expr> clone() const override {
    return std::unique_ptr<Expr>(new TernaryOp(*this));
  }
  std::string name(const std::vector<poplar::Tensor> &tensors = {}) const override;
  /// The operands' names joined by '_' (the operation itself left out).
  std::string exprName(const std::vector<poplar::Tensor> &inputs) const {
    return a_->name(inputs) + "_" + b_->name(inputs) + "_" + c_->name(inputs);
  }
  void print(std::ostream &os, unsigned indent = 0, bool prettyPrint = true) const override;

private:
  TernaryOpType type_;
  std::unique_ptr<Expr> a_, b_, c_;
};

/// Holds any expression by value, so a list of expressions of different node classes can be
/// built (the multi-expression map takes `std::vector<Any>`).
class Any {
public:
  Any(const Expr &e) : e_(e.clone()) {}
  Any(const Any &o) : e_(o.e_->clone()) {}
  Any &operator=(const Any &o) {
    e_ = o.e_->clone();
    return *this;
  }
  operator const Expr &() const { return *e_; }
  std::string name(const std::vector<poplar::Tensor> &tensors) const { return e_->name(tensors); }

private:
  std::unique_ptr<Expr> e_;
};

/// e.print(os, 0, true): the indented, one-operand-per-line form.
std::ostream &operator<<(std::ostream &os, const Expr &e);
/// a.deepEquals(b): the same tree with the same constants and types.
bool deepEquals(const Expr &a, const Expr &b);

// ---- named nodes, as PopLibs spells them ------------------------------------------------

#define POPOPS_EXPR_UNARY(NAME, OP)                                                                \
  class NAME : public UnaryOp {                                                                    \
  public:                                                                                          \
    explicit NAME(const Expr &a) : UnaryOp(UnaryOpType::OP, a) {}                                  \
  };
POPOPS_EXPR_UNARY(Abs, ABSOLUTE)
POPOPS_EXPR_UNARY(Asin, ASIN)
POPOPS_EXPR_UNARY(BitwiseNot, BITWISE_NOT)
POPOPS_EXPR_UNARY(Cbrt, CBRT)
POPOPS_EXPR_UNARY(Exp2, EXPONENT2)
POPOPS_EXPR_UNARY(GeluErf, GELU_ERF)
POPOPS_EXPR_UNARY(IsFinite, IS_FINITE)
POPOPS_EXPR_UNARY(IsInf, IS_INF)
POPOPS_EXPR_UNARY(IsNaN, IS_NAN)
POPOPS_EXPR_UNARY(NearbyInt, NEARBY_INT)
POPOPS_EXPR_UNARY(Tan, TAN)
POPOPS_EXPR_UNARY(Ceil, CEIL)
POPOPS_EXPR_UNARY(Cos, COS)
POPOPS_EXPR_UNARY(Erf, ERF)
POPOPS_EXPR_UNARY(Exp, EXPONENT)
POPOPS_EXPR_UNARY(Expm1, EXPONENT_MINUS_ONE)
POPOPS_EXPR_UNARY(Floor, FLOOR)
POPOPS_EXPR_UNARY(Inv, INVERSE)
POPOPS_EXPR_UNARY(Log, LOGARITHM)
POPOPS_EXPR_UNARY(Log1p, LOGARITHM_ONE_PLUS)
POPOPS_EXPR_UNARY(Not, LOGICAL_NOT)
POPOPS_EXPR_UNARY(Neg, NEGATE)
POPOPS_EXPR_UNARY(Relu, RELU)
POPOPS_EXPR_UNARY(Signum, SIGNUM)
POPOPS_EXPR_UNARY(Sin, SIN)
POPOPS_EXPR_UNARY(Tanh, TANH)
POPOPS_EXPR_UNARY(Round, ROUND)
POPOPS_EXPR_UNARY(Sqrt, SQRT)
POPOPS_EXPR_UNARY(Square, SQUARE)
POPOPS_EXPR_UNARY(Sigmoid, SIGMOID)
POPOPS_EXPR_UNARY(Rsqrt, RSQRT)
POPOPS_EXPR_UNARY(Trunc, TRUNC)
#undef POPOPS_EXPR_UNARY

#define POPOPS_EXPR_BINARY(NAME, OP)                                                               \
  class NAME : public BinaryOp {                                                                   \
  public:                                                                                          \
    NAME(const Expr &a, const Expr &b) : BinaryOp(BinaryOpType::OP, a, b) {}                       \
  };
POPOPS_EXPR_BINARY(Add, ADD)
POPOPS_EXPR_BINARY(Atan2, ATAN2)
POPOPS_EXPR_BINARY(BitwiseAnd, BITWISE_AND)
POPOPS_EXPR_BINARY(BitwiseOr, BITWISE_OR)
POPOPS_EXPR_BINARY(BitwiseXor, BITWISE_XOR)
POPOPS_EXPR_BINARY(BitwiseXnor, BITWISE_XNOR)
POPOPS_EXPR_BINARY(InvStdDevToVariance, INV_STD_DEV_TO_VARIANCE)
POPOPS_EXPR_BINARY(Rem, REMAINDER)
POPOPS_EXPR_BINARY(Shl, SHIFT_LEFT)
POPOPS_EXPR_BINARY(Shr, SHIFT_RIGHT)
POPOPS_EXPR_BINARY(ShrSE, SHIFT_RIGHT_SIGN_EXTEND)
POPOPS_EXPR_BINARY(VarianceToInvStdDev, VARIANCE_TO_INV_STD_DEV)
POPOPS_EXPR_BINARY(Divide, DIVIDE)
POPOPS_EXPR_BINARY(Equal, EQUAL)
POPOPS_EXPR_BINARY(Gte, GREATER_THAN_EQUAL)
POPOPS_EXPR_BINARY(Gt, GREATER_THAN)
POPOPS_EXPR_BINARY(Lte, LESS_THAN_EQUAL)
POPOPS_EXPR_BINARY(And, LOGICAL_AND)
POPOPS_EXPR_BINARY(Or, LOGICAL_OR)
POPOPS_EXPR_BINARY(Lt, LESS_THAN)
POPOPS_EXPR_BINARY(Max, MAXIMUM)
POPOPS_EXPR_BINARY(Min, MINIMUM)
POPOPS_EXPR_BINARY(Mul, MULTIPLY)
POPOPS_EXPR_BINARY(NotEqual, NOT_EQUAL)
POPOPS_EXPR_BINARY(Pow, POWER)
POPOPS_EXPR_BINARY(Sub, SUBTRACT)
#undef POPOPS_EXPR_BINARY

/// c ? a : b (c must be BOOL).
class Select : public TernaryOp {
public:
  Select(const Expr &a, const Expr &b, const Expr &c) : TernaryOp(TernaryOpType::SELECT, a, b, c) {}
};
/// min(max(a, lo), hi).
class Clamp : public TernaryOp {
public:
  Clamp(const Expr &a, const Expr &lo, const Expr &hi)
      : TernaryOp(TernaryOpType::CLAMP, a, lo, hi) {}
};

// ---- operators ------------------------------------------------------------------------

template <class T>
struct IsConstOperand : std::integral_constant<bool, std::is_arithmetic<T>::value &&
                                                         !std::is_base_of<Expr, T>::value> {};
#if __cplusplus >= 201703L
template <class T> inline constexpr bool isConstOperand = IsConstOperand<T>::value;
#endif

inline Not operator!(const Expr &a) { return Not(a); }
inline Neg operator-(const Expr &a) { return Neg(a); }
inline BitwiseNot operator~(const Expr &a) { return BitwiseNot(a); }

#define POPOPS_EXPR_OPERATOR(SYMBOL, NAME)                                                         \
  inline NAME operator SYMBOL(const Expr &a, const Expr &b) { return NAME(a, b); }                 \
  template <class T, class = typename std::enable_if<IsConstOperand<T>::value>::type>              \
  inline NAME operator SYMBOL(const T &a, const Expr &b) {                                         \
    return NAME(Const(a), b);                                                                      \
  }                                                                                                \
  template <class T, class = typename std::enable_if<IsConstOperand<T>::value>::type>              \
  inline NAME operator SYMBOL(const Expr &a, const T &b) {                                         \
    return NAME(a, Const(b));                                                                      \
  }
POPOPS_EXPR_OPERATOR(+, Add)
POPOPS_EXPR_OPERATOR(-, Sub)
POPOPS_EXPR_OPERATOR(*, Mul)
POPOPS_EXPR_OPERATOR(/, Divide)
POPOPS_EXPR_OPERATOR(==, Equal)
POPOPS_EXPR_OPERATOR(!=, NotEqual)
POPOPS_EXPR_OPERATOR(<, Lt)
POPOPS_EXPR_OPERATOR(<=, Lte)
POPOPS_EXPR_OPERATOR(>, Gt)
POPOPS_EXPR_OPERATOR(>=, Gte)
POPOPS_EXPR_OPERATOR(&&, And)
POPOPS_EXPR_OPERATOR(||, Or)
POPOPS_EXPR_OPERATOR(&, BitwiseAnd)
POPOPS_EXPR_OPERATOR(|, BitwiseOr)
POPOPS_EXPR_OPERATOR(^, BitwiseXor)
POPOPS_EXPR_OPERATOR(%, Rem)
POPOPS_EXPR_OPERATOR(<<, Shl)
POPOPS_EXPR_OPERATOR(>>, Shr)
#undef POPOPS_EXPR_OPERATOR

} // namespace expr
} // namespace popops
