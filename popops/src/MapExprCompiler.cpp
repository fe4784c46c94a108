// GCC 12 reports a false -Wrestrict inside std::string operator+ at -O3 (GCC bug 105329).
#pragma GCC diagnostic ignored "-Wrestrict"

#include "MapExprCompiler.hpp"
#include "MapExprFusion.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>

#include <poplar/Half.hpp>
#include <poputil/exceptions.hpp>

#include "popops/MapExprBytecode.hpp"

namespace popops::detail {

namespace mx = tessera::codelets::popops::mapexpr;
using expr::BinaryOpType;
using expr::TernaryOpType;
using expr::UnaryOpType;
using poplar::Type;

namespace {

/// How a value is held in a register: float (FLOAT, HALF), int32, uint32 or bool 0/1.
enum class Kind { F, I, U, B };

Kind kindOf(Type t) {
  if (t == poplar::FLOAT || t == poplar::HALF)
    return Kind::F;
  if (t == poplar::INT || t == poplar::SHORT)
    return Kind::I;
  if (t == poplar::UNSIGNED_INT || t == poplar::UNSIGNED_SHORT)
    return Kind::U;
  return Kind::B;
}

/// SHORT and UNSIGNED_SHORT: held extended to 32 bits, wrapped after every op.
bool isShort(Type t) { return t == poplar::SHORT || t == poplar::UNSIGNED_SHORT; }

bool supportedType(Type t) {
  return t == poplar::FLOAT || t == poplar::HALF || t == poplar::INT || t == poplar::UNSIGNED_INT ||
         t == poplar::BOOL || isShort(t);
}

/// A DAG node. Leaves live in an input slot (32-bit inputs) or in a register filled once per
/// vertex (constants, scalar inputs); op nodes compute into a register per chunk.
struct Node {
  enum class Is { InputSlot, Persistent, Op } is;
  mx::Op op = mx::Op::CopyF;
  int args[3] = {-1, -1, -1};
  unsigned input = 0;           ///< InputSlot/scalar: position in the vertex input list.
  bool fromConst = false;       ///< Persistent: a constant (else a scalar input).
  std::uint32_t constIndex = 0; ///< Persistent constant: index in consts.
  unsigned uses = 0;
  int slot = -1;
};

/// A value during lowering: a node and the type it is seen as.
struct Value {
  int node;
  Type type;
};

void collect(const expr::Expr &e, std::vector<unsigned> &out) {
  if (auto p = e.getAs<expr::PlaceHolder>())
    out.push_back(p->getIndex());
  else if (auto c = e.getAs<expr::Cast>())
    collect(c->getLHS(), out);
  else if (auto u = e.getAs<expr::UnaryOp>())
    collect(u->getArg(), out);
  else if (auto b = e.getAs<expr::BinaryOp>()) {
    collect(b->getLHS(), out);
    collect(b->getRHS(), out);
  } else if (auto t = e.getAs<expr::TernaryOp>()) {
    collect(t->getArg0(), out);
    collect(t->getArg1(), out);
    collect(t->getArg2(), out);
  }
}

class Lowering {
public:
  Lowering(const std::vector<poplar::Tensor> &ts, const std::vector<std::string> &names,
           const expr::Expr &root, std::string context)
      : ts_(ts), names_(names), root_(root), context_(std::move(context)) {}

  CompiledMapExpr run();

private:
  [[noreturn]] void fail(const std::string &what) const {
    throw poputil::poplibs_error(context_ + ": " + what + " in expression " + root_.name(ts_));
  }

  int addNode(Node n) {
    nodes_.push_back(n);
    return static_cast<int>(nodes_.size()) - 1;
  }
  /// Every op is a pure function of its operands, so an op already in the DAG with the same
  /// operands is that node: a subexpression written twice (GELU's gradient uses its tanh twice
  /// and x² three times) is computed once, with the same bits.
  int addOp(mx::Op op, int a, int b = -1, int c = -1) {
    const auto key = std::make_tuple(op, a, b, c);
    if (const auto it = opNodes_.find(key); it != opNodes_.end())
      return it->second;
    Node n{Node::Is::Op};
    n.op = op;
    n.args[0] = a;
    n.args[1] = b;
    n.args[2] = c;
    const int node = addNode(n);
    opNodes_.emplace(key, node);
    return node;
  }

  Value lower(const expr::Expr &e, std::optional<Type> hint);
  std::optional<Value> lowerFused(const expr::Expr &e);
  Value lowerConst(const expr::Const &c, std::optional<Type> hint);
  Value lowerPlaceholder(const expr::PlaceHolder &p);
  Value lowerCast(const expr::Cast &c);
  Value lowerUnary(const expr::UnaryOp &u);
  Value lowerBinary(const expr::BinaryOp &b);
  Value lowerTernary(const expr::TernaryOp &t);
  /// Lowers operands that must share one type; constants take the others' type.
  std::vector<Value> lowerSameType(const std::vector<const expr::Expr *> &args,
                                   const std::string &opName);

  const std::vector<poplar::Tensor> &ts_;
  const std::vector<std::string> &names_;
  const expr::Expr &root_;
  std::string context_;
  std::vector<Node> nodes_;
  std::map<std::tuple<mx::Op, int, int, int>, int> opNodes_;
  std::map<std::uint32_t, int> constNodes_; ///< By bit pattern.
  std::vector<std::uint32_t> consts_;
  std::vector<MapInputUse> inputs_;
  std::vector<int> inputNode_; ///< Per tensor index: its (loaded) node, or -1.
  unsigned fieldCount_[3] = {0, 0, 0};
};

Value Lowering::lowerConst(const expr::Const &c, std::optional<Type> hint) {
  Type type = hint ? *hint : c.getType();
  if (!supportedType(type))
    fail("constant " + c.printValue() + " of unsupported type " + type.toString());
  const double v = c.getDataAsDouble();
  std::uint32_t bits = 0;
  switch (kindOf(type)) {
  case Kind::F: {
    float f = static_cast<float>(v);
    if (type == poplar::HALF)
      f = poplar::halfBitsToFloat(poplar::floatToHalfBits(f));
    std::memcpy(&bits, &f, 4);
    break;
  }
  case Kind::I:
    bits = type == poplar::SHORT ? static_cast<std::uint32_t>(static_cast<std::int32_t>(
                                       static_cast<std::int16_t>(static_cast<std::int64_t>(v))))
                                 : static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
    break;
  case Kind::U:
    bits =
        type == poplar::UNSIGNED_SHORT
            ? static_cast<std::uint32_t>(static_cast<std::uint16_t>(static_cast<std::int64_t>(v)))
            : static_cast<std::uint32_t>(v);
    break;
  case Kind::B:
    bits = v != 0 ? 1u : 0u;
    break;
  }
  // Equal constants share a node (so ops over them can be shared too).
  if (const auto it = constNodes_.find(bits); it != constNodes_.end())
    return {it->second, type};
  Node n{Node::Is::Persistent};
  n.fromConst = true;
  n.constIndex = static_cast<std::uint32_t>(consts_.size());
  consts_.push_back(bits);
  const int node = addNode(n);
  constNodes_.emplace(bits, node);
  return {node, type};
}

Value Lowering::lowerPlaceholder(const expr::PlaceHolder &p) {
  const unsigned index = p.getIndex();
  if (index == 0 || index > ts_.size())
    fail("placeholder _" + std::to_string(index) + " has no tensor (" + std::to_string(ts_.size()) +
         " given)");
  const poplar::Tensor &t = ts_[index - 1];
  const Type type = t.elementType();
  if (!supportedType(type))
    fail("tensor " + names_.at(index - 1) + " has unsupported element type " + type.toString() +
         " (FLOAT, HALF, INT, UNSIGNED_INT, SHORT, UNSIGNED_SHORT and BOOL are supported)");
  if (inputNode_.empty())
    inputNode_.assign(ts_.size(), -1);
  if (inputNode_[index - 1] >= 0)
    return {inputNode_[index - 1], type};
  MapInputUse use;
  use.tensorIndex = index - 1;
  use.isScalar = t.numElements() == 1;
  use.field = type == poplar::HALF || isShort(type) ? 1u : (type == poplar::BOOL ? 2u : 0u);
  use.fieldIndex = fieldCount_[use.field]++;
  use.conversion = type == poplar::SHORT ? static_cast<unsigned>(mx::InputField::In2Short)
                   : type == poplar::UNSIGNED_SHORT
                       ? static_cast<unsigned>(mx::InputField::In2UnsignedShort)
                       : use.field;
  const unsigned input = static_cast<unsigned>(inputs_.size());
  inputs_.push_back(use);
  int node;
  if (use.isScalar) {
    Node n{Node::Is::Persistent};
    n.input = input;
    node = addNode(n);
  } else {
    Node n{Node::Is::InputSlot};
    n.input = input;
    node = addNode(n);
    if (type == poplar::SHORT)
      node = addOp(mx::Op::LoadShort, node);
    else if (type == poplar::UNSIGNED_SHORT)
      node = addOp(mx::Op::LoadUnsignedShort, node);
    else if (use.field == 1)
      node = addOp(mx::Op::LoadHalf, node);
    else if (use.field == 2)
      node = addOp(mx::Op::LoadBool, node);
  }
  inputNode_[index - 1] = node;
  return {node, type};
}

Value Lowering::lowerCast(const expr::Cast &c) {
  const Value a = lower(c.getLHS(), std::nullopt);
  const Type to = c.getRHSType();
  if (!supportedType(to))
    fail("cast to unsupported type " + to.toString());
  const Kind from = kindOf(a.type), k = kindOf(to);
  int node = a.node;
  switch (k) {
  case Kind::F:
    if (from == Kind::I)
      node = addOp(mx::Op::IntToFloat, node);
    else if (from == Kind::U)
      node = addOp(mx::Op::UnsignedToFloat, node);
    else if (from == Kind::B)
      node = addOp(mx::Op::BoolToFloat, node);
    if (to == poplar::HALF && a.type != poplar::HALF)
      node = addOp(mx::Op::RoundToHalf, node);
    break;
  case Kind::I:
  case Kind::U:
    if (from == Kind::F)
      node = addOp(k == Kind::I ? mx::Op::FloatToInt : mx::Op::FloatToUnsigned, node);
    break; // int <-> unsigned and bool -> integer keep their bits
  case Kind::B:
    if (from == Kind::F)
      node = addOp(mx::Op::FloatToBool, node);
    else if (from != Kind::B)
      node = addOp(mx::Op::IntToBool, node);
    break;
  }
  return {node, to};
}

std::vector<Value> Lowering::lowerSameType(const std::vector<const expr::Expr *> &args,
                                           const std::string &opName) {
  std::vector<std::optional<Value>> vals(args.size());
  std::optional<Type> common;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (!args[i]->isA<expr::Const>()) {
      vals[i] = lower(*args[i], std::nullopt);
      if (!common)
        common = vals[i]->type;
      else if (vals[i]->type != *common)
        fail(opName + " needs operands of one type, got " + common->toString() + " and " +
             vals[i]->type.toString());
    }
  std::vector<Value> out;
  for (std::size_t i = 0; i < args.size(); ++i)
    out.push_back(vals[i] ? *vals[i] : lower(*args[i], common));
  if (!common)
    for (auto &v : out)
      if (v.type != out.front().type)
        fail(opName + " needs operands of one type, got " + out.front().type.toString() + " and " +
             v.type.toString());
  return out;
}

Value Lowering::lowerUnary(const expr::UnaryOp &u) {
  const UnaryOpType op = u.getOpType();
  const std::string name = expr::toString(op);
  const Value a =
      lower(u.getArg(),
            op == UnaryOpType::LOGICAL_NOT ? std::optional<Type>(poplar::BOOL) : std::nullopt);
  const Kind k = kindOf(a.type);
  auto bad = [&]() -> Value {
    fail(name + " does not support " + a.type.toString() + " operands");
  };
  auto floatOnly = [&](mx::Op f) -> Value {
    if (k != Kind::F)
      bad();
    return {addOp(f, a.node), a.type};
  };
  switch (op) {
  case UnaryOpType::ABSOLUTE:
    if (k == Kind::F)
      return {addOp(mx::Op::AbsF, a.node), a.type};
    if (k == Kind::I)
      return {addOp(mx::Op::AbsI, a.node), a.type};
    if (k == Kind::U)
      return a;
    return bad();
  case UnaryOpType::NEGATE:
    if (k == Kind::B)
      return bad();
    return {addOp(k == Kind::F ? mx::Op::NegF : mx::Op::NegI, a.node), a.type};
  case UnaryOpType::SQUARE:
    if (k == Kind::B)
      return bad();
    return {addOp(k == Kind::F ? mx::Op::SquareF : mx::Op::SquareI, a.node), a.type};
  case UnaryOpType::SIGNUM:
    if (k == Kind::B)
      return bad();
    return {addOp(k == Kind::F   ? mx::Op::SignumF
                  : k == Kind::I ? mx::Op::SignumI
                                 : mx::Op::SignumU,
                  a.node),
            a.type};
  case UnaryOpType::LOGICAL_NOT:
    if (k != Kind::B)
      return bad();
    return {addOp(mx::Op::NotB, a.node), a.type};
  case UnaryOpType::CEIL:
    return floatOnly(mx::Op::CeilF);
  case UnaryOpType::COS:
    return floatOnly(mx::Op::CosF);
  case UnaryOpType::ERF:
    return floatOnly(mx::Op::ErfF);
  case UnaryOpType::EXPONENT:
    return floatOnly(mx::Op::ExpF);
  case UnaryOpType::EXPONENT_MINUS_ONE:
    return floatOnly(mx::Op::Expm1F);
  case UnaryOpType::FLOOR:
    return floatOnly(mx::Op::FloorF);
  case UnaryOpType::INVERSE:
    return floatOnly(mx::Op::InverseF);
  case UnaryOpType::LOGARITHM:
    return floatOnly(mx::Op::LogF);
  case UnaryOpType::LOGARITHM_ONE_PLUS:
    return floatOnly(mx::Op::Log1pF);
  case UnaryOpType::RELU:
    return floatOnly(mx::Op::ReluF);
  case UnaryOpType::SIN:
    return floatOnly(mx::Op::SinF);
  case UnaryOpType::TANH:
    return floatOnly(mx::Op::TanhF);
  case UnaryOpType::ROUND:
    return floatOnly(mx::Op::RoundF);
  case UnaryOpType::SQRT:
    return floatOnly(mx::Op::SqrtF);
  case UnaryOpType::SIGMOID:
    return floatOnly(mx::Op::SigmoidF);
  case UnaryOpType::RSQRT:
    return floatOnly(mx::Op::RsqrtF);
  case UnaryOpType::TRUNC:
    return floatOnly(mx::Op::TruncF);
  case UnaryOpType::ASIN:
    return floatOnly(mx::Op::AsinF);
  case UnaryOpType::TAN:
    return floatOnly(mx::Op::TanF);
  case UnaryOpType::CBRT:
    return floatOnly(mx::Op::CbrtF);
  case UnaryOpType::EXPONENT2:
    return floatOnly(mx::Op::Exp2F);
  case UnaryOpType::NEARBY_INT:
    return floatOnly(mx::Op::NearbyIntF);
  case UnaryOpType::GELU_ERF:
    return floatOnly(mx::Op::GeluErfF);
  case UnaryOpType::IS_FINITE:
  case UnaryOpType::IS_INF:
  case UnaryOpType::IS_NAN:
    if (k != Kind::F)
      return bad();
    return {addOp(op == UnaryOpType::IS_FINITE ? mx::Op::IsFiniteF
                  : op == UnaryOpType::IS_INF  ? mx::Op::IsInfF
                                               : mx::Op::IsNanF,
                  a.node),
            poplar::BOOL};
  case UnaryOpType::BITWISE_NOT:
    if (k != Kind::I && k != Kind::U)
      return bad();
    return {addOp(mx::Op::BitNotI, a.node), a.type};
  case UnaryOpType::POPCOUNT:
  case UnaryOpType::COUNT_LEADING_ZEROS: {
    // Bit counts of the 32-bit pattern: INT and UNSIGNED_INT only.
    if ((k != Kind::I && k != Kind::U) || isShort(a.type))
      return bad();
    return {addOp(op == UnaryOpType::POPCOUNT ? mx::Op::PopcountI : mx::Op::ClzI, a.node), a.type};
  }
  }
  return bad();
}

Value Lowering::lowerBinary(const expr::BinaryOp &b) {
  const BinaryOpType op = b.getOpType();
  const std::string name = expr::toString(op);
  const bool logical = op == BinaryOpType::LOGICAL_AND || op == BinaryOpType::LOGICAL_OR;
  std::vector<Value> v;
  if (logical) {
    v = {lower(b.getLHS(), poplar::BOOL), lower(b.getRHS(), poplar::BOOL)};
  } else {
    v = lowerSameType({&b.getLHS(), &b.getRHS()}, name);
  }
  const Type t = v[0].type;
  const Kind k = kindOf(t);
  auto bad = [&]() -> Value { fail(name + " does not support " + t.toString() + " operands"); };
  auto make = [&](mx::Op o, Type result) -> Value {
    return {addOp(o, v[0].node, v[1].node), result};
  };
  // Per kind: F, I, U, B (Count = unsupported).
  auto pick = [&](mx::Op f, mx::Op i, mx::Op u, mx::Op bl, Type result) -> Value {
    const mx::Op o = k == Kind::F ? f : k == Kind::I ? i : k == Kind::U ? u : bl;
    if (o == mx::Op::Count)
      return bad();
    return make(o, result);
  };
  constexpr mx::Op none = mx::Op::Count;
  switch (op) {
  case BinaryOpType::ADD:
    return pick(mx::Op::AddF, mx::Op::AddI, mx::Op::AddI, none, t);
  case BinaryOpType::SUBTRACT:
    return pick(mx::Op::SubF, mx::Op::SubI, mx::Op::SubI, none, t);
  case BinaryOpType::MULTIPLY:
    return pick(mx::Op::MulF, mx::Op::MulI, mx::Op::MulI, none, t);
  case BinaryOpType::DIVIDE:
    return pick(mx::Op::DivF, mx::Op::DivI, mx::Op::DivU, none, t);
  case BinaryOpType::POWER:
    return pick(mx::Op::PowF, none, none, none, t);
  case BinaryOpType::MAXIMUM:
    return pick(mx::Op::MaxF, mx::Op::MaxI, mx::Op::MaxU, none, t);
  case BinaryOpType::MINIMUM:
    return pick(mx::Op::MinF, mx::Op::MinI, mx::Op::MinU, none, t);
  case BinaryOpType::EQUAL:
    return pick(mx::Op::EqF, mx::Op::EqI, mx::Op::EqI, mx::Op::EqI, poplar::BOOL);
  case BinaryOpType::NOT_EQUAL:
    return pick(mx::Op::NeF, mx::Op::NeI, mx::Op::NeI, mx::Op::NeI, poplar::BOOL);
  case BinaryOpType::LESS_THAN:
    return pick(mx::Op::LtF, mx::Op::LtI, mx::Op::LtU, mx::Op::LtU, poplar::BOOL);
  case BinaryOpType::LESS_THAN_EQUAL:
    return pick(mx::Op::LeF, mx::Op::LeI, mx::Op::LeU, mx::Op::LeU, poplar::BOOL);
  case BinaryOpType::GREATER_THAN:
    return pick(mx::Op::GtF, mx::Op::GtI, mx::Op::GtU, mx::Op::GtU, poplar::BOOL);
  case BinaryOpType::GREATER_THAN_EQUAL:
    return pick(mx::Op::GeF, mx::Op::GeI, mx::Op::GeU, mx::Op::GeU, poplar::BOOL);
  case BinaryOpType::ATAN2:
    return pick(mx::Op::Atan2F, none, none, none, t);
  case BinaryOpType::REMAINDER:
    return pick(mx::Op::RemF, mx::Op::RemI, mx::Op::RemU, none, t);
  case BinaryOpType::INV_STD_DEV_TO_VARIANCE:
    return pick(mx::Op::InvStdDevToVarianceF, none, none, none, t);
  case BinaryOpType::VARIANCE_TO_INV_STD_DEV:
    return pick(mx::Op::VarianceToInvStdDevF, none, none, none, t);
  case BinaryOpType::BITWISE_AND:
    return pick(none, mx::Op::BitAndI, mx::Op::BitAndI, none, t);
  case BinaryOpType::BITWISE_OR:
    return pick(none, mx::Op::BitOrI, mx::Op::BitOrI, none, t);
  case BinaryOpType::BITWISE_XOR:
    return pick(none, mx::Op::BitXorI, mx::Op::BitXorI, none, t);
  case BinaryOpType::BITWISE_XNOR:
    return pick(none, mx::Op::BitXnorI, mx::Op::BitXnorI, none, t);
  case BinaryOpType::SHIFT_LEFT:
    return pick(none, mx::Op::ShlI, mx::Op::ShlI, none, t);
  case BinaryOpType::SHIFT_RIGHT:
    if (t == poplar::SHORT) // logical on the 16-bit pattern: zero-extend it first
      return {addOp(mx::Op::ShrI, addOp(mx::Op::WrapUnsignedShort, v[0].node), v[1].node), t};
    return pick(none, mx::Op::ShrI, mx::Op::ShrI, none, t);
  case BinaryOpType::SHIFT_RIGHT_SIGN_EXTEND:
    return pick(none, mx::Op::ShrSEI, none, none, t);
  case BinaryOpType::LOGICAL_AND:
  case BinaryOpType::LOGICAL_OR:
    if (v[0].type != poplar::BOOL || v[1].type != poplar::BOOL)
      fail(name + " needs BOOL operands, got " + v[0].type.toString() + " and " +
           v[1].type.toString());
    return make(op == BinaryOpType::LOGICAL_AND ? mx::Op::AndB : mx::Op::OrB, poplar::BOOL);
  }
  return bad();
}

Value Lowering::lowerTernary(const expr::TernaryOp &t) {
  const std::string name = expr::toString(t.getOpType());
  if (t.getOpType() == TernaryOpType::SELECT) {
    const auto ab = lowerSameType({&t.getArg0(), &t.getArg1()}, name);
    const Value c = lower(t.getArg2(), poplar::BOOL);
    if (c.type != poplar::BOOL)
      fail(name + " needs a BOOL condition (third operand), got " + c.type.toString());
    return {addOp(mx::Op::Select, ab[0].node, ab[1].node, c.node), ab[0].type};
  }
  const auto v = lowerSameType({&t.getArg0(), &t.getArg1(), &t.getArg2()}, name);
  const Kind k = kindOf(v[0].type);
  if (k == Kind::B)
    fail(name + " does not support " + v[0].type.toString() + " operands");
  const mx::Op o = k == Kind::F ? mx::Op::ClampF : k == Kind::I ? mx::Op::ClampI : mx::Op::ClampU;
  return {addOp(o, v[0].node, v[1].node, v[2].node), v[0].type};
}

/// A whole expression with a fused kernel (matchFusedKernel): its operands lowered, then the one
/// op. Operands that are not of one float type fall back to the ordinary lowering, which says
/// what is wrong with them.
std::optional<Value> Lowering::lowerFused(const expr::Expr &e) {
  const auto match = matchFusedKernel(e);
  if (!match)
    return std::nullopt;
  std::vector<Value> args;
  for (const expr::Expr *operand : match->operands)
    args.push_back(lower(*operand, std::nullopt));
  for (const Value &a : args)
    if (kindOf(a.type) != Kind::F || a.type != args.front().type)
      return std::nullopt;
  const int b = args.size() > 1 ? args[1].node : -1;
  return Value{addOp(match->op, args[0].node, b), args[0].type};
}

Value Lowering::lower(const expr::Expr &e, std::optional<Type> hint) {
  if (auto fused = lowerFused(e))
    return *fused;
  if (auto c = e.getAs<expr::Const>())
    return lowerConst(*c, hint);
  if (auto p = e.getAs<expr::PlaceHolder>())
    return lowerPlaceholder(*p);
  Value v{-1, poplar::FLOAT};
  if (auto c = e.getAs<expr::Cast>())
    v = lowerCast(*c);
  else if (auto u = e.getAs<expr::UnaryOp>())
    v = lowerUnary(*u);
  else if (auto b = e.getAs<expr::BinaryOp>())
    v = lowerBinary(*b);
  else if (auto t = e.getAs<expr::TernaryOp>())
    v = lowerTernary(*t);
  else
    fail("unknown expression node '" + e.name(ts_) + "'");
  // A 16-bit integer result wraps as 16-bit arithmetic would (and stays extended to 32 bits).
  if (isShort(v.type) && nodes_[v.node].is == Node::Is::Op)
    v.node = addOp(v.type == poplar::SHORT ? mx::Op::WrapShort : mx::Op::WrapUnsignedShort, v.node);
  return v;
}

CompiledMapExpr Lowering::run() {
  Value root = lower(root_, std::nullopt);
  CompiledMapExpr out;
  out.outType = root.type;
  const bool wideOut =
      out.outType != poplar::HALF && out.outType != poplar::BOOL && !isShort(out.outType);
  // The final store: straight into the output for 32-bit results computed by an op.
  int last = root.node;
  const bool rootIsOp = nodes_[last].is == Node::Is::Op && nodes_[last].op != mx::Op::LoadHalf &&
                        nodes_[last].op != mx::Op::LoadBool;
  if (!wideOut)
    last = addOp(out.outType == poplar::HALF   ? mx::Op::StoreHalf
                 : out.outType == poplar::BOOL ? mx::Op::StoreBool
                                               : mx::Op::StoreShort,
                 last);
  else if (!rootIsOp)
    last = addOp(mx::Op::CopyF, last);

  for (const auto &n : nodes_)
    for (int a : n.args)
      if (a >= 0)
        ++nodes_[a].uses;

  // Registers: persistent ones first (never freed), then a free list for op results.
  const unsigned numInputs = static_cast<unsigned>(inputs_.size());
  std::vector<std::uint32_t> prologue;
  unsigned numRegs = 0;
  for (auto &n : nodes_)
    if (n.is == Node::Is::Persistent) {
      n.slot = static_cast<int>(numRegs++);
      prologue.push_back(static_cast<std::uint32_t>(n.slot));
      prologue.push_back(static_cast<std::uint32_t>(n.fromConst ? mx::PrologueKind::Const
                                                                : mx::PrologueKind::ScalarInput));
      prologue.push_back(n.fromConst ? n.constIndex : n.input);
    }
  const unsigned firstTemp = numRegs;
  std::vector<int> freeRegs;
  std::vector<std::array<int, 5>> body;
  const int outSlotMarker = -2;
  for (int id = 0; id < static_cast<int>(nodes_.size()); ++id) {
    Node &n = nodes_[id];
    if (n.is == Node::Is::InputSlot) {
      n.slot = outSlotMarker - 1 - static_cast<int>(n.input); // resolved below
      continue;
    }
    if (n.is != Node::Is::Op)
      continue;
    for (int a : n.args)
      if (a >= 0) {
        Node &arg = nodes_[a];
        if (--arg.uses == 0 && arg.is == Node::Is::Op && arg.slot >= static_cast<int>(firstTemp))
          freeRegs.push_back(arg.slot);
      }
    if (id == last) {
      n.slot = outSlotMarker;
    } else if (!freeRegs.empty()) {
      n.slot = freeRegs.back();
      freeRegs.pop_back();
    } else {
      n.slot = static_cast<int>(numRegs++);
    }
    std::array<int, 5> ins{static_cast<int>(n.op), id, n.args[0], n.args[1], n.args[2]};
    body.push_back(ins);
  }
  // Re-resolve: slot numbers need numRegs, known only now.
  auto slotOf = [&](int node) -> std::uint32_t {
    if (node < 0)
      return 0;
    const Node &n = nodes_[node];
    if (n.slot == outSlotMarker)
      return numRegs + numInputs;
    if (n.is == Node::Is::InputSlot)
      return numRegs + n.input;
    return static_cast<std::uint32_t>(n.slot);
  };
  if (numRegs == 0)
    numRegs = 0;
  // 256 elements per chunk measured best: short compute phases keep memory streaming.
  std::uint32_t chunk = 256;
  if (numRegs > 0)
    chunk = static_cast<std::uint32_t>(std::min<std::size_t>(
        256, mx::kRegisterBytes / 4 / numRegs / mx::kChunkGrain * mx::kChunkGrain));
  if (chunk < mx::kChunkGrain || numInputs > 64)
    fail("the expression is too large to fuse (" + std::to_string(numRegs) + " registers, " +
         std::to_string(numInputs) + " inputs)");

  auto &code = out.code;
  code = {mx::kMagic,
          chunk,
          numRegs,
          numInputs,
          static_cast<std::uint32_t>(prologue.size() / 3),
          static_cast<std::uint32_t>(body.size())};
  for (const auto &in : inputs_) {
    code.push_back(in.conversion);
    code.push_back(in.fieldIndex);
    code.push_back(static_cast<std::uint32_t>(in.isScalar ? mx::InputReading::Scalar
                                                          : mx::InputReading::PerElement));
    code.push_back(0); // period and phase: set per vertex by map for periodic pieces
    code.push_back(0);
  }
  code.insert(code.end(), prologue.begin(), prologue.end());
  for (const auto &ins : body) {
    code.push_back(static_cast<std::uint32_t>(ins[0]));
    code.push_back(slotOf(ins[1]));
    code.push_back(slotOf(ins[2]));
    code.push_back(slotOf(ins[3]));
    code.push_back(slotOf(ins[4]));
  }
  out.inputs = inputs_;
  out.consts = consts_;
  out.numBodyInstructions = static_cast<unsigned>(body.size());
  return out;
}

} // namespace

std::vector<unsigned> placeholdersOf(const expr::Expr &e) {
  std::vector<unsigned> out;
  collect(e, out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

CompiledMapExpr compileMapExpr(const expr::Expr &e, const std::vector<poplar::Tensor> &ts,
                               const std::vector<std::string> &tensorNames,
                               const std::string &context) {
  return Lowering(ts, tensorNames, e, context).run();
}

} // namespace popops::detail
