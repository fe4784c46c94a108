// popops::map of one binary operation over 64-bit integers: check the operands, broadcast them
// to the result's shape (NumPy rules), and add one popops::BinaryOp64<OP,T> vertex per run of
// the result on each tile, where the result lies.
#pragma GCC diagnostic ignored "-Wrestrict" // GCC bug 105329, in std::string operator+

#include "Broadcasting.hpp"
#include "MapWideInteger.hpp"

#include <algorithm>

#include <poputil/Describe.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "TileRegions.hpp"

namespace popops::detail {

namespace {

bool isWide(const poplar::Type &t) {
  return t == poplar::LONGLONG || t == poplar::UNSIGNED_LONGLONG;
}

/// The vertex name of `op`, or empty when PopLibs offers no 64-bit form of it.
std::string opName(expr::BinaryOpType op) {
  using B = expr::BinaryOpType;
  switch (op) {
  case B::ADD:
    return "ADD";
  case B::SUBTRACT:
    return "SUBTRACT";
  case B::MULTIPLY:
    return "MULTIPLY";
  case B::DIVIDE:
    return "DIVIDE";
  case B::REMAINDER:
    return "REMAINDER";
  case B::MAXIMUM:
    return "MAXIMUM";
  case B::MINIMUM:
    return "MINIMUM";
  case B::BITWISE_AND:
    return "BITWISE_AND";
  case B::BITWISE_OR:
    return "BITWISE_OR";
  case B::BITWISE_XOR:
    return "BITWISE_XOR";
  case B::BITWISE_XNOR:
    return "BITWISE_XNOR";
  case B::SHIFT_LEFT:
    return "SHIFT_LEFT";
  case B::SHIFT_RIGHT:
    return "SHIFT_RIGHT";
  case B::SHIFT_RIGHT_SIGN_EXTEND:
    return "SHIFT_RIGHT_SIGN_EXTEND";
  case B::EQUAL:
    return "EQUAL";
  case B::NOT_EQUAL:
    return "NOT_EQUAL";
  case B::LESS_THAN:
    return "LESS_THAN";
  case B::LESS_THAN_EQUAL:
    return "LESS_THAN_EQUAL";
  case B::GREATER_THAN:
    return "GREATER_THAN";
  case B::GREATER_THAN_EQUAL:
    return "GREATER_THAN_EQUAL";
  default:
    return {};
  }
}

bool isComparison(expr::BinaryOpType op) {
  using B = expr::BinaryOpType;
  return op == B::EQUAL || op == B::NOT_EQUAL || op == B::LESS_THAN || op == B::LESS_THAN_EQUAL ||
         op == B::GREATER_THAN || op == B::GREATER_THAN_EQUAL;
}

/// One operand: a tensor (placeholder) or a constant of the operation's type.
struct Operand {
  std::optional<std::size_t> tensorIndex;
  const expr::Const *constant = nullptr;
};

} // namespace

bool hasWideIntegerTensor(const std::vector<poplar::Tensor> &ts) {
  return std::any_of(ts.begin(), ts.end(),
                     [](const poplar::Tensor &t) { return t.valid() && isWide(t.elementType()); });
}

poplar::Tensor mapWideInteger(poplar::Graph &graph, const expr::Expr &e,
                              const std::vector<poplar::Tensor> &ts,
                              std::optional<poplar::Tensor> out, bool inPlace,
                              poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                              const std::string &context) {
  const std::string supported =
      "64-bit integer tensors are supported in one binary operation (ADD, SUBTRACT, MULTIPLY, "
      "DIVIDE, REMAINDER, MAXIMUM, MINIMUM, the bitwise operations, the shifts and the "
      "comparisons) of two tensors or a tensor and an integer constant";
  const auto *binary = e.getAs<expr::BinaryOp>();
  if (!binary)
    throw poputil::poplibs_error(context + ": the expression " + e.name(ts) + " reads " +
                                 "64-bit integer tensors; " + supported);
  const std::string op = opName(binary->getOpType());
  if (op.empty())
    throw poputil::poplibs_error(context + ": " + expr::toString(binary->getOpType()) + " in " +
                                 e.name(ts) + " does not support 64-bit integers; " + supported);

  // The operands and their one element type.
  Operand operands[2];
  std::optional<poplar::Type> type;
  std::string typeOwner;
  const expr::Expr *sides[2] = {&binary->getLHS(), &binary->getRHS()};
  for (unsigned s = 0; s < 2; ++s) {
    if (const auto *p = sides[s]->getAs<expr::PlaceHolder>()) {
      const unsigned index = p->getIndex();
      if (index < 1 || index > ts.size())
        throw poputil::poplibs_error(context + ": placeholder _" + std::to_string(index) +
                                     " has no tensor (" + std::to_string(ts.size()) + " given)");
      const poplar::Tensor &t = ts[index - 1];
      const std::string name = "_" + std::to_string(index) + " " + poputil::describe(t);
      if (!isWide(t.elementType()))
        throw poputil::poplibs_error(context + ": " + name + " holds " +
                                     t.elementType().toString() +
                                     "; a 64-bit integer operation takes operands of one 64-bit "
                                     "integer type");
      if (type && *type != t.elementType())
        throw poputil::poplibs_error(context + ": " + name + " holds " +
                                     t.elementType().toString() + " but " + typeOwner + " holds " +
                                     type->toString());
      type = t.elementType();
      typeOwner = name;
      operands[s].tensorIndex = index - 1;
    } else if (const auto *c = sides[s]->getAs<expr::Const>()) {
      const poplar::Type ct = c->getType();
      if (ct.isFloatingPoint())
        throw poputil::poplibs_error(context + ": the constant " + c->name() + " in " + e.name(ts) +
                                     " is floating point; 64-bit integer operands "
                                     "take integer constants");
      operands[s].constant = c;
    } else {
      throw poputil::poplibs_error(context + ": the operand " + sides[s]->name(ts) + " of " +
                                   e.name(ts) + " is not a tensor or a constant; " + supported);
    }
  }
  if (!type)
    throw poputil::poplibs_error(context + ": the expression " + e.name(ts) +
                                 " reads no tensor, so its shape is unknown");
  if (binary->getOpType() == expr::BinaryOpType::SHIFT_RIGHT_SIGN_EXTEND &&
      *type == poplar::UNSIGNED_LONGLONG)
    throw poputil::poplibs_error(context + ": SHIFT_RIGHT_SIGN_EXTEND in " + e.name(ts) +
                                 " takes long long operands, not " + type->toString());
  const poplar::Type outType = isComparison(binary->getOpType()) ? poplar::BOOL : *type;

  // The result's shape: the operands' broadcast shape.
  std::vector<std::size_t> shape;
  std::string shapeOwner;
  bool haveShape = false;
  for (const Operand &o : operands)
    if (o.tensorIndex) {
      const poplar::Tensor &t = ts[*o.tensorIndex];
      const std::string name = "_" + std::to_string(*o.tensorIndex + 1);
      if (!haveShape) {
        shape = t.shape();
        shapeOwner = name;
        haveShape = true;
      } else {
        shape = broadcastShapes(shape, t.shape(), shapeOwner + " and " + name, context);
      }
    }

  poplar::Tensor result;
  if (!out && !inPlace) {
    std::optional<poplar::Tensor> like;
    for (const Operand &o : operands)
      if (o.tensorIndex && ts[*o.tensorIndex].shape() == shape) {
        like = ts[*o.tensorIndex];
        break;
      }
    if (like) {
      result = graph.clone(outType, *like, {dc, "out"});
    } else {
      result = graph.addVariable(outType, shape, {dc, "out"});
      poputil::mapTensorLinearly(graph, result);
    }
  } else {
    result = inPlace ? ts[0] : *out;
    const std::string what = inPlace ? "the in-place tensor _1 " : "the output ";
    if (result.shape() != shape)
      throw poputil::poplibs_error(context + ": " + what + poputil::describe(result) +
                                   " has shape " + poputil::shapeString(result.shape()) +
                                   " but the result has shape " + poputil::shapeString(shape));
    if (result.elementType() != outType)
      throw poputil::poplibs_error(context + ": " + what + poputil::describe(result) + " holds " +
                                   result.elementType().toString() + " but " + e.name(ts) +
                                   " gives " + outType.toString());
  }

  // Each operand as a flat tensor of the result's size: a tensor broadcast (copied first when it
  // overlaps the result without being it), a constant as one element broadcast.
  poplar::Tensor flat[2];
  for (unsigned s = 0; s < 2; ++s) {
    poplar::Tensor t;
    if (operands[s].tensorIndex) {
      t = ts[*operands[s].tensorIndex];
      if ((out || inPlace) && !(t == result) && t.intersectsWith(result)) {
        poplar::Tensor copy = graph.clone(t, {dc, "aliasedInput"});
        prog.add(poplar::program::Copy(t, copy, false, {dc, "copyAliasedInput"}));
        t = copy;
      }
    } else {
      const expr::Const &c = *operands[s].constant;
      const double v = c.getDataAsDouble();
      if (*type == poplar::LONGLONG)
        t = graph.addConstant(*type, {1}, static_cast<long long>(v), {dc, "constant"});
      else
        t = graph.addConstant(*type, {1}, static_cast<unsigned long long>(v), {dc, "constant"});
      graph.setTileMapping(t, 0);
    }
    flat[s] = broadcastTo(t, shape).flatten();
  }

  const std::string vertexType = "popops::BinaryOp64<" + op + "," + type->toString() + ">";
  poplar::ComputeSet cs = graph.addComputeSet({dc, "BinaryOp64"});
  const poplar::Tensor resultFlat = result.flatten();
  const auto runs = contiguousRunsPerTile(graph, result);
  for (unsigned tile = 0; tile < runs.size(); ++tile)
    for (const poplar::Interval &run : runs[tile]) {
      auto v = graph.addVertex(cs, vertexType);
      graph.connect(v["in1"], flat[0].slice(run));
      graph.connect(v["in2"], flat[1].slice(run));
      graph.connect(v["out"], resultFlat.slice(run));
      graph.setTileMapping(v, tile);
    }
  prog.add(poplar::program::Execute(cs, {dc, "BinaryOp64"}));
  return result;
}

} // namespace popops::detail
