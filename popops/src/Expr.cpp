// GCC 12 reports a false -Wrestrict inside std::string operator+ at -O3 (GCC bug 105329).
#pragma GCC diagnostic ignored "-Wrestrict"

#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <poputil/exceptions.hpp>

#include <cmath>
#include <ostream>
#include <sstream>

namespace popops::expr {

std::string toString(UnaryOpType op) {
  switch (op) {
  case UnaryOpType::ABSOLUTE:
    return "ABSOLUTE";
  case UnaryOpType::ASIN:
    return "ASIN";
  case UnaryOpType::BITWISE_NOT:
    return "BITWISE_NOT";
  case UnaryOpType::CBRT:
    return "CBRT";
  case UnaryOpType::CEIL:
    return "CEIL";
  case UnaryOpType::COS:
    return "COS";
  case UnaryOpType::COUNT_LEADING_ZEROS:
    return "COUNT_LEADING_ZEROS";
  case UnaryOpType::ERF:
    return "ERF";
  case UnaryOpType::EXPONENT:
    return "EXPONENT";
  case UnaryOpType::EXPONENT_MINUS_ONE:
    return "EXPONENT_MINUS_ONE";
  case UnaryOpType::EXPONENT2:
    return "EXPONENT2";
  case UnaryOpType::FLOOR:
    return "FLOOR";
  case UnaryOpType::GELU_ERF:
    return "GELU_ERF";
  case UnaryOpType::INVERSE:
    return "INVERSE";
  case UnaryOpType::IS_FINITE:
    return "IS_FINITE";
  case UnaryOpType::IS_INF:
    return "IS_INF";
  case UnaryOpType::IS_NAN:
    return "IS_NAN";
  case UnaryOpType::LOGARITHM:
    return "LOGARITHM";
  case UnaryOpType::LOGARITHM_ONE_PLUS:
    return "LOGARITHM_ONE_PLUS";
  case UnaryOpType::LOGICAL_NOT:
    return "LOGICAL_NOT";
  case UnaryOpType::NEGATE:
    return "NEGATE";
  case UnaryOpType::NEARBY_INT:
    return "NEARBY_INT";
  case UnaryOpType::POPCOUNT:
    return "POPCOUNT";
  case UnaryOpType::RELU:
    return "RELU";
  case UnaryOpType::SIGNUM:
    return "SIGNUM";
  case UnaryOpType::SIN:
    return "SIN";
  case UnaryOpType::TAN:
    return "TAN";
  case UnaryOpType::TANH:
    return "TANH";
  case UnaryOpType::ROUND:
    return "ROUND";
  case UnaryOpType::SQRT:
    return "SQRT";
  case UnaryOpType::SQUARE:
    return "SQUARE";
  case UnaryOpType::SIGMOID:
    return "SIGMOID";
  case UnaryOpType::RSQRT:
    return "RSQRT";
  case UnaryOpType::TRUNC:
    return "TRUNC";
  }
  return "UNKNOWN_UNARY_OP";
}

std::string toString(BinaryOpType op) {
  switch (op) {
  case BinaryOpType::ADD:
    return "ADD";
  case BinaryOpType::ATAN2:
    return "ATAN2";
  case BinaryOpType::BITWISE_AND:
    return "BITWISE_AND";
  case BinaryOpType::BITWISE_OR:
    return "BITWISE_OR";
  case BinaryOpType::BITWISE_XOR:
    return "BITWISE_XOR";
  case BinaryOpType::BITWISE_XNOR:
    return "BITWISE_XNOR";
  case BinaryOpType::DIVIDE:
    return "DIVIDE";
  case BinaryOpType::EQUAL:
    return "EQUAL";
  case BinaryOpType::GREATER_THAN_EQUAL:
    return "GREATER_THAN_EQUAL";
  case BinaryOpType::GREATER_THAN:
    return "GREATER_THAN";
  case BinaryOpType::INV_STD_DEV_TO_VARIANCE:
    return "INV_STD_DEV_TO_VARIANCE";
  case BinaryOpType::LESS_THAN_EQUAL:
    return "LESS_THAN_EQUAL";
  case BinaryOpType::LOGICAL_AND:
    return "LOGICAL_AND";
  case BinaryOpType::LOGICAL_OR:
    return "LOGICAL_OR";
  case BinaryOpType::LESS_THAN:
    return "LESS_THAN";
  case BinaryOpType::MAXIMUM:
    return "MAXIMUM";
  case BinaryOpType::MINIMUM:
    return "MINIMUM";
  case BinaryOpType::MULTIPLY:
    return "MULTIPLY";
  case BinaryOpType::NOT_EQUAL:
    return "NOT_EQUAL";
  case BinaryOpType::POWER:
    return "POWER";
  case BinaryOpType::REMAINDER:
    return "REMAINDER";
  case BinaryOpType::SHIFT_LEFT:
    return "SHIFT_LEFT";
  case BinaryOpType::SHIFT_RIGHT:
    return "SHIFT_RIGHT";
  case BinaryOpType::SHIFT_RIGHT_SIGN_EXTEND:
    return "SHIFT_RIGHT_SIGN_EXTEND";
  case BinaryOpType::SUBTRACT:
    return "SUBTRACT";
  case BinaryOpType::VARIANCE_TO_INV_STD_DEV:
    return "VARIANCE_TO_INV_STD_DEV";
  }
  return "UNKNOWN_BINARY_OP";
}

std::string toString(TernaryOpType op) {
  switch (op) {
  case TernaryOpType::CLAMP:
    return "CLAMP";
  case TernaryOpType::SELECT:
    return "SELECT";
  }
  return "UNKNOWN_TERNARY_OP";
}

namespace {

// Writes an operation and its operands. Without prettyPrint the text equals the node's name();
// with it, each operand starts a new line indented two spaces deeper than the operation.
void printOperation(std::ostream &os, unsigned indent, bool prettyPrint, const std::string &op,
                    std::initializer_list<const Expr *> operands, const std::string &trailer = {}) {
  if (prettyPrint)
    os << std::string(indent, ' ');
  os << op << "(";
  bool first = true;
  for (const Expr *operand : operands) {
    if (!first)
      os << ",";
    if (prettyPrint)
      os << "\n";
    else if (!first)
      os << " ";
    operand->print(os, indent + 2, prettyPrint);
    first = false;
  }
  if (!trailer.empty()) {
    if (prettyPrint)
      os << ",\n" << std::string(indent + 2, ' ');
    else
      os << ", ";
    os << trailer;
  }
  os << ")";
}

} // namespace

void Const::print(std::ostream &os, unsigned indent, bool prettyPrint) const {
  if (prettyPrint)
    os << std::string(indent, ' ');
  os << name();
}

void PlaceHolder::print(std::ostream &os, unsigned indent, bool prettyPrint) const {
  if (prettyPrint)
    os << std::string(indent, ' ');
  os << name();
}

void Cast::print(std::ostream &os, unsigned indent, bool prettyPrint) const {
  printOperation(os, indent, prettyPrint, "CAST", {a_.get()}, type_.toString());
}

void UnaryOp::print(std::ostream &os, unsigned indent, bool prettyPrint) const {
  printOperation(os, indent, prettyPrint, toString(type_), {a_.get()});
}

void BinaryOp::print(std::ostream &os, unsigned indent, bool prettyPrint) const {
  printOperation(os, indent, prettyPrint, toString(type_), {a_.get(), b_.get()});
}

void TernaryOp::print(std::ostream &os, unsigned indent, bool prettyPrint) const {
  printOperation(os, indent, prettyPrint, toString(type_), {a_.get(), b_.get(), c_.get()});
}

std::ostream &operator<<(std::ostream &os, const Expr &e) {
  e.print(os, 0, true);
  return os;
}

poplar::TypeTraits Const::traitsOf(const poplar::Type &type) {
  using poplar::TypeTraits;
  if (type == poplar::BOOL)
    return TypeTraits::make<bool>();
  if (type == poplar::CHAR)
    return TypeTraits::make<char>();
  if (type == poplar::SIGNED_CHAR)
    return TypeTraits::make<signed char>();
  if (type == poplar::UNSIGNED_CHAR)
    return TypeTraits::make<unsigned char>();
  if (type == poplar::SHORT)
    return TypeTraits::make<short>();
  if (type == poplar::UNSIGNED_SHORT)
    return TypeTraits::make<unsigned short>();
  if (type == poplar::INT)
    return TypeTraits::make<int>();
  if (type == poplar::UNSIGNED_INT)
    return TypeTraits::make<unsigned>();
  if (type == poplar::LONG)
    return TypeTraits::make<long>();
  if (type == poplar::UNSIGNED_LONG)
    return TypeTraits::make<unsigned long>();
  if (type == poplar::LONGLONG)
    return TypeTraits::make<long long>();
  if (type == poplar::UNSIGNED_LONGLONG)
    return TypeTraits::make<unsigned long long>();
  return TypeTraits::make<float>(); // FLOAT, and HALF (and QUARTER) values held as float
}

std::uint64_t Const::getDataForUnsignedIntegral() const {
  const bool unsignedIntegral = type_ == poplar::BOOL || type_ == poplar::UNSIGNED_CHAR ||
                                type_ == poplar::UNSIGNED_SHORT || type_ == poplar::UNSIGNED_INT ||
                                type_ == poplar::UNSIGNED_LONG ||
                                type_ == poplar::UNSIGNED_LONGLONG;
  if (!unsignedIntegral)
    throw poputil::poplibs_error("Const::getDataForUnsignedIntegral: the constant " + name() +
                                 " is of type " + type_.toString() +
                                 ", expected BOOL or an unsigned integer type");
  return static_cast<std::uint64_t>(value_);
}

bool deepEquals(const Expr &a, const Expr &b) { return a.deepEquals(b); }

bool Expr::deepEquals(const Expr &other) const { return name() == other.name(); }

std::string Const::printValue() const {
  std::ostringstream os;
  if (type_ == poplar::BOOL)
    os << (value_ != 0 ? "true" : "false");
  else
    os << value_;
  return os.str();
}

std::string Const::name(const std::vector<poplar::Tensor> &) const {
  return printValue() + ":" + type_.toString();
}

std::string Cast::name(const std::vector<poplar::Tensor> &ts) const {
  return "CAST(" + a_->name(ts) + ", " + type_.toString() + ")";
}

std::string PlaceHolder::name(const std::vector<poplar::Tensor> &ts) const {
  std::string s = "_" + std::to_string(index_);
  if (index_ >= 1 && index_ <= ts.size() && ts[index_ - 1].valid())
    s += " " + ts[index_ - 1].shortString();
  return s;
}

std::string UnaryOp::name(const std::vector<poplar::Tensor> &ts) const {
  return toString(type_) + "(" + a_->name(ts) + ")";
}

std::string BinaryOp::name(const std::vector<poplar::Tensor> &ts) const {
  return toString(type_) + "(" + a_->name(ts) + ", " + b_->name(ts) + ")";
}

std::string TernaryOp::name(const std::vector<poplar::Tensor> &ts) const {
  return toString(type_) + "(" + a_->name(ts) + ", " + b_->name(ts) + ", " + c_->name(ts) + ")";
}

} // namespace popops::expr

namespace poputil {
template <> poplar::ProfileValue toProfileValue(const popops::expr::UnaryOpType &op) {
  return poplar::ProfileValue(popops::expr::toString(op));
}
template <> poplar::ProfileValue toProfileValue(const popops::expr::BinaryOpType &op) {
  return poplar::ProfileValue(popops::expr::toString(op));
}
template <> poplar::ProfileValue toProfileValue(const popops::expr::TernaryOpType &op) {
  return poplar::ProfileValue(popops::expr::toString(op));
}
} // namespace poputil
