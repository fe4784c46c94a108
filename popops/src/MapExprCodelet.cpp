// GCC 12 reports a false -Wrestrict inside std::string operator+ at -O3 (GCC bug 105329).
#pragma GCC diagnostic ignored "-Wrestrict"

// popops::outputGeneratedCodelet: the C++ source of a vertex computing an expression, one
// statement per operation, for reading and for building outside Tessera. The expression is
// type-checked by the map compiler first, so the text is only written for what map accepts.
#include <popops/ElementWise.hpp>

#include <functional>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>

#include <poputil/exceptions.hpp>

#include "MapExprCompiler.hpp"

namespace popops {
namespace {

using expr::BinaryOpType;
using expr::TernaryOpType;
using expr::UnaryOpType;

bool isFloat(const poplar::Type &t) { return t == poplar::FLOAT || t == poplar::HALF; }

/// The C++ type a value of `t` is computed in (HALF in float, as the vertices do).
std::string computeType(const poplar::Type &t) {
  if (isFloat(t))
    return "float";
  if (t == poplar::INT)
    return "int";
  if (t == poplar::UNSIGNED_INT)
    return "unsigned";
  if (t == poplar::SHORT)
    return "short";
  if (t == poplar::UNSIGNED_SHORT)
    return "unsigned short";
  return "bool";
}
/// The C++ element type of a field holding `t`.
std::string fieldType(const poplar::Type &t) { return t == poplar::HALF ? "half" : computeType(t); }

std::string literal(const expr::Const &c, const poplar::Type &t) {
  std::ostringstream os;
  const double v = c.getDataAsDouble();
  if (isFloat(t)) {
    os << std::setprecision(std::numeric_limits<float>::max_digits10) << static_cast<float>(v);
    std::string s = os.str();
    if (s.find_first_of(".eEn") == std::string::npos)
      s += ".0";
    return s + "f";
  }
  if (t == poplar::BOOL)
    return v != 0 ? "true" : "false";
  if (t == poplar::UNSIGNED_INT)
    os << static_cast<unsigned long long>(v) << "u";
  else
    os << static_cast<long long>(v);
  return os.str();
}

class Writer {
public:
  Writer(const std::vector<poplar::Tensor> &ts) : ts_(ts) {}

  struct Value {
    std::string name;
    poplar::Type type;
  };

  Value emit(const expr::Expr &e, const poplar::Type *hint) {
    if (auto c = e.getAs<expr::Const>()) {
      const poplar::Type t = hint ? *hint : c->getType();
      return {literal(*c, t), t};
    }
    if (auto p = e.getAs<expr::PlaceHolder>())
      return placeholder(p->getIndex());
    if (auto c = e.getAs<expr::Cast>()) {
      const Value a = emit(c->getLHS(), nullptr);
      const poplar::Type to = c->getRHSType();
      std::string text = "static_cast<" + computeType(to) + ">(" + a.name + ")";
      if (to == poplar::HALF && a.type != poplar::HALF)
        text = "float(half(" + a.name + "))";
      return statement(text, to);
    }
    if (auto u = e.getAs<expr::UnaryOp>())
      return unary(*u);
    if (auto b = e.getAs<expr::BinaryOp>())
      return binary(*b);
    if (auto t = e.getAs<expr::TernaryOp>())
      return ternary(*t);
    throw poputil::poplibs_error("popops::outputGeneratedCodelet: unknown expression node " +
                                 e.name(ts_));
  }

  std::ostringstream body;
  std::map<unsigned, std::string> inputs; ///< Placeholder index → field name.

private:
  Value statement(const std::string &text, const poplar::Type &t) {
    const std::string name = "t" + std::to_string(next_++);
    body << "      const " << computeType(t) << " " << name << " = " << text << ";\n";
    return {name, t};
  }

  Value placeholder(unsigned index) {
    const poplar::Tensor &t = ts_.at(index - 1);
    const std::string field = "in" + std::to_string(index);
    const bool scalar = t.numElements() == 1;
    if (!loaded_.count(index)) {
      inputs[index] = field;
      const std::string element = field + (scalar ? "[0]" : "[i]");
      loaded_[index] = statement(
          t.elementType() == poplar::HALF ? "float(" + element + ")" : element, t.elementType());
    }
    return loaded_[index];
  }

  /// Operands of one type: the constants take the type of the others.
  std::vector<Value> same(const std::vector<const expr::Expr *> &args) {
    std::vector<Value> out(args.size());
    const poplar::Type *common = nullptr;
    poplar::Type keep;
    for (std::size_t i = 0; i < args.size(); ++i)
      if (!args[i]->isA<expr::Const>()) {
        out[i] = emit(*args[i], nullptr);
        if (!common) {
          keep = out[i].type;
          common = &keep;
        }
      }
    for (std::size_t i = 0; i < args.size(); ++i)
      if (args[i]->isA<expr::Const>())
        out[i] = emit(*args[i], common);
    return out;
  }

  Value unary(const expr::UnaryOp &u) {
    const UnaryOpType op = u.getOpType();
    const poplar::Type boolType = poplar::BOOL;
    const Value a = emit(u.getArg(), op == UnaryOpType::LOGICAL_NOT ? &boolType : nullptr);
    const std::string x = a.name;
    const bool f = isFloat(a.type);
    auto call = [&](const char *fn) { return statement(std::string(fn) + "(" + x + ")", a.type); };
    switch (op) {
    case UnaryOpType::ABSOLUTE:
      return f ? call("std::fabs")
               : statement(a.type == poplar::INT ? "std::abs(" + x + ")" : x, a.type);
    case UnaryOpType::ASIN:
      return call("std::asin");
    case UnaryOpType::BITWISE_NOT:
      return statement("~" + x, a.type);
    case UnaryOpType::CBRT:
      return call("std::cbrt");
    case UnaryOpType::CEIL:
      return call("std::ceil");
    case UnaryOpType::COS:
      return call("std::cos");
    case UnaryOpType::COUNT_LEADING_ZEROS:
      return statement(x + " == 0 ? 32 : __builtin_clz(" + x + ")", a.type);
    case UnaryOpType::ERF:
      return call("std::erf");
    case UnaryOpType::EXPONENT:
      return call("std::exp");
    case UnaryOpType::EXPONENT_MINUS_ONE:
      return call("std::expm1");
    case UnaryOpType::EXPONENT2:
      return call("std::exp2");
    case UnaryOpType::FLOOR:
      return call("std::floor");
    case UnaryOpType::GELU_ERF:
      return statement("0.5f * " + x + " * std::erfc(-" + x + " * 0.70710678f)", a.type);
    case UnaryOpType::INVERSE:
      return statement("1.0f / " + x, a.type);
    case UnaryOpType::IS_FINITE:
      return statement("std::isfinite(" + x + ")", poplar::BOOL);
    case UnaryOpType::IS_INF:
      return statement("std::isinf(" + x + ")", poplar::BOOL);
    case UnaryOpType::IS_NAN:
      return statement("std::isnan(" + x + ")", poplar::BOOL);
    case UnaryOpType::LOGARITHM:
      return call("std::log");
    case UnaryOpType::LOGARITHM_ONE_PLUS:
      return call("std::log1p");
    case UnaryOpType::LOGICAL_NOT:
      return statement("!" + x, a.type);
    case UnaryOpType::NEGATE:
      return statement("-" + x, a.type);
    case UnaryOpType::NEARBY_INT:
      return call("std::nearbyint");
    case UnaryOpType::POPCOUNT:
      return call("__builtin_popcount");
    case UnaryOpType::RELU:
      return statement(x + " > 0.0f ? " + x + " : 0.0f", a.type);
    case UnaryOpType::SIGNUM:
      if (f)
        return statement(x + " > 0.0f ? 1.0f : (" + x + " < 0.0f ? -1.0f : " + x + ")", a.type);
      return statement(computeType(a.type) + "((" + x + " > 0) - (" + x + " < 0))", a.type);
    case UnaryOpType::SIN:
      return call("std::sin");
    case UnaryOpType::TAN:
      return call("std::tan");
    case UnaryOpType::TANH:
      return call("std::tanh");
    case UnaryOpType::ROUND:
      return call("std::round");
    case UnaryOpType::SQRT:
      return call("std::sqrt");
    case UnaryOpType::SQUARE:
      return statement(x + " * " + x, a.type);
    case UnaryOpType::SIGMOID:
      return statement("1.0f / (1.0f + std::exp(-" + x + "))", a.type);
    case UnaryOpType::RSQRT:
      return statement("1.0f / std::sqrt(" + x + ")", a.type);
    case UnaryOpType::TRUNC:
      return call("std::trunc");
    }
    return a;
  }

  Value binary(const expr::BinaryOp &b) {
    const BinaryOpType op = b.getOpType();
    std::vector<Value> v;
    if (op == BinaryOpType::LOGICAL_AND || op == BinaryOpType::LOGICAL_OR) {
      const poplar::Type boolType = poplar::BOOL;
      v = {emit(b.getLHS(), &boolType), emit(b.getRHS(), &boolType)};
    } else {
      v = same({&b.getLHS(), &b.getRHS()});
    }
    const std::string x = v[0].name, y = v[1].name;
    const poplar::Type t = v[0].type;
    const bool f = isFloat(t);
    auto infix = [&](const char *o) { return statement(x + " " + o + " " + y, t); };
    auto compare = [&](const char *o) { return statement(x + " " + o + " " + y, poplar::BOOL); };
    switch (op) {
    case BinaryOpType::ADD:
      return infix("+");
    case BinaryOpType::SUBTRACT:
      return infix("-");
    case BinaryOpType::MULTIPLY:
      return infix("*");
    case BinaryOpType::DIVIDE:
      if (f)
        return infix("/");
      if (t == poplar::INT)
        return statement(y + " == 0 ? 0 : (" + y + " == -1 ? int(0u - unsigned(" + x + ")) : " + x +
                             " / " + y + ")",
                         t);
      return statement(y + " == 0 ? 0u : " + x + " / " + y, t);
    case BinaryOpType::REMAINDER:
      if (f)
        return statement("std::fmod(" + x + ", " + y + ")", t);
      if (t == poplar::INT)
        return statement(y + " == 0 ? " + x + " : (" + y + " == -1 ? 0 : " + x + " % " + y + ")",
                         t);
      return statement(y + " == 0 ? " + x + " : " + x + " % " + y, t);
    case BinaryOpType::POWER:
      return statement("std::pow(" + x + ", " + y + ")", t);
    case BinaryOpType::ATAN2:
      return statement("std::atan2(" + x + ", " + y + ")", t);
    case BinaryOpType::MAXIMUM:
      return statement(
          f ? "std::fmax(" + x + ", " + y + ")" : x + " > " + y + " ? " + x + " : " + y, t);
    case BinaryOpType::MINIMUM:
      return statement(
          f ? "std::fmin(" + x + ", " + y + ")" : x + " < " + y + " ? " + x + " : " + y, t);
    case BinaryOpType::BITWISE_AND:
      return infix("&");
    case BinaryOpType::BITWISE_OR:
      return infix("|");
    case BinaryOpType::BITWISE_XOR:
      return infix("^");
    case BinaryOpType::BITWISE_XNOR:
      return statement("~(" + x + " ^ " + y + ")", t);
    case BinaryOpType::SHIFT_LEFT:
      return statement("unsigned(" + y + ") >= 32u ? 0 : " + computeType(t) + "(unsigned(" + x +
                           ") << " + y + ")",
                       t);
    case BinaryOpType::SHIFT_RIGHT: {
      const std::string bits =
          t == poplar::SHORT ? "unsigned((unsigned short)" + x + ")" : "unsigned(" + x + ")";
      return statement(
          "unsigned(" + y + ") >= 32u ? 0 : " + computeType(t) + "(" + bits + " >> " + y + ")", t);
    }
    case BinaryOpType::SHIFT_RIGHT_SIGN_EXTEND:
      return statement("unsigned(" + y + ") >= 32u ? (" + x + " < 0 ? -1 : 0) : " + x + " >> " + y,
                       t);
    case BinaryOpType::INV_STD_DEV_TO_VARIANCE:
      return statement("1.0f / (" + x + " * " + x + ") - " + y, t);
    case BinaryOpType::VARIANCE_TO_INV_STD_DEV:
      return statement("1.0f / std::sqrt(" + x + " + " + y + ")", t);
    case BinaryOpType::EQUAL:
      return compare("==");
    case BinaryOpType::NOT_EQUAL:
      return compare("!=");
    case BinaryOpType::LESS_THAN:
      return compare("<");
    case BinaryOpType::LESS_THAN_EQUAL:
      return compare("<=");
    case BinaryOpType::GREATER_THAN:
      return compare(">");
    case BinaryOpType::GREATER_THAN_EQUAL:
      return compare(">=");
    case BinaryOpType::LOGICAL_AND:
      return compare("&&");
    case BinaryOpType::LOGICAL_OR:
      return compare("||");
    }
    return v[0];
  }

  Value ternary(const expr::TernaryOp &t) {
    if (t.getOpType() == TernaryOpType::SELECT) {
      const auto ab = same({&t.getArg0(), &t.getArg1()});
      const poplar::Type boolType = poplar::BOOL;
      const Value c = emit(t.getArg2(), &boolType);
      return statement(c.name + " ? " + ab[0].name + " : " + ab[1].name, ab[0].type);
    }
    const auto v = same({&t.getArg0(), &t.getArg1(), &t.getArg2()});
    if (isFloat(v[0].type))
      return statement("std::fmin(std::fmax(" + v[0].name + ", " + v[1].name + "), " + v[2].name +
                           ")",
                       v[0].type);
    return statement("std::min(std::max(" + v[0].name + ", " + v[1].name + "), " + v[2].name + ")",
                     v[0].type);
  }

  const std::vector<poplar::Tensor> &ts_;
  std::map<unsigned, Value> loaded_;
  unsigned next_ = 0;
};

} // namespace

void outputGeneratedCodelet(const poplar::Target &target, const expr::Expr &expr,
                            const std::vector<poplar::Tensor> &ts,
                            const poplar::OptionFlags &options, std::ostream &os) {
  (void)target;
  (void)options;
  const std::string context = "popops::outputGeneratedCodelet";
  for (std::size_t i = 0; i < ts.size(); ++i)
    if (!ts[i].valid())
      throw poputil::poplibs_error(context + ": tensor " + std::to_string(i + 1) + " (_" +
                                   std::to_string(i + 1) + ") is not a valid tensor");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < ts.size(); ++i)
    names.push_back("_" + std::to_string(i + 1));
  // Type-checks exactly as map does (and throws as map would).
  const detail::CompiledMapExpr compiled = detail::compileMapExpr(expr, ts, names, context);

  Writer w(ts);
  const Writer::Value result = w.emit(expr, nullptr);
  std::string signature = expr.name();
  for (const auto &t : ts)
    signature += "," + t.elementType().toString() + (t.numElements() == 1 ? "s" : "v");
  const std::string className = "GeneratedMapExpr_" + [&] {
    std::ostringstream h;
    h << std::hex << std::setw(16) << std::setfill('0') << std::hash<std::string>{}(signature);
    return h.str();
  }();

  os << "// Generated by popops::outputGeneratedCodelet for\n//   " << expr.name(ts) << "\n"
     << "// Every element is computed alone: out[i] from element i of each input (or element 0\n"
     << "// of a single-element input). HALF values are computed in float and rounded on store.\n"
     << "#include <algorithm>\n#include <cmath>\n\n#include <poplar/HalfFloat.hpp>\n"
     << "#include <poplar/Vertex.hpp>\n\nusing namespace poplar;\n\n"
     << "class " << className << " : public Vertex {\npublic:\n";
  for (const auto &[index, field] : w.inputs) {
    const poplar::Tensor &t = ts[index - 1];
    os << "  Input<Vector<" << fieldType(t.elementType()) << ">> " << field << "; // _" << index
       << (t.numElements() == 1 ? ", one element for all" : "") << "\n";
  }
  os << "  Output<Vector<" << fieldType(compiled.outType) << ">> out;\n\n"
     << "  bool compute() {\n    for (unsigned i = 0; i < out.size(); ++i) {\n"
     << w.body.str() << "      out[i] = " << result.name << ";\n    }\n    return true;\n  }\n"
     << "};\n";
}

} // namespace popops
