// Element-wise non-linearities as single fused popops maps; the softmax family via SoftmaxRows.
#include <popnn/LogSoftmax.hpp>
#include <popnn/NonLinearity.hpp>

#include <memory>

#include <popops/ElementWise.hpp>
#include <poputil/VertexTemplates.hpp>

#include "NnChecks.hpp"
#include "SoftmaxRows.hpp"

namespace popnn {
namespace {

using namespace popops::expr;
constexpr float kGeluAlpha = 0.7978845608f; // sqrt(2 / pi)
constexpr float kGeluBeta = 0.044715f;
// popops' map compiler runs the GELU expression and its gradient below as one fused kernel each
// when they are written exactly so (popops/src/MapExprFusion.cpp); change them together.
constexpr float kInvSqrt2 = 0.70710678118f;
constexpr float kInvSqrt2Pi = 0.39894228040f;

bool isSoftmax(NonLinearityType t) {
  return t == NonLinearityType::SOFTMAX || t == NonLinearityType::SOFTMAX_STABLE ||
         t == NonLinearityType::SOFTMAX_SCALED || t == NonLinearityType::LOG_SOFTMAX;
}

/// y = f(_1) for the element-wise types.
std::unique_ptr<Expr> forwardExpr(NonLinearityType type) {
  switch (type) {
  case NonLinearityType::SIGMOID:
    return Sigmoid(_1).clone();
  case NonLinearityType::HARD_SIGMOID:
    return Clamp(_1 * 0.2f + 0.5f, Const(0.0f), Const(1.0f)).clone();
  case NonLinearityType::RELU:
    return Relu(_1).clone();
  case NonLinearityType::TANH:
    return Tanh(_1).clone();
  case NonLinearityType::GELU:
    return (_1 * 0.5f * (1.0f + Tanh(_1 * kGeluAlpha * (1.0f + kGeluBeta * _1 * _1)))).clone();
  case NonLinearityType::GELU_ERF:
    return (_1 * 0.5f * (1.0f + Erf(_1 * kInvSqrt2))).clone();
  case NonLinearityType::SWISH:
    return (_1 * Sigmoid(_1)).clone();
  default:
    return nullptr;
  }
}

/// dx = g(_1 = act, _2 = outGradient) for the element-wise types.
std::unique_ptr<Expr> gradientExpr(NonLinearityType type) {
  switch (type) {
  case NonLinearityType::SIGMOID: // act = y
    return (_2 * _1 * (1.0f - _1)).clone();
  case NonLinearityType::HARD_SIGMOID: // act = y; slope 0.2 strictly inside (0, 1)
    return Select(_2 * 0.2f, Const(0.0f), (_1 > 0.0f) && (_1 < 1.0f)).clone();
  case NonLinearityType::RELU: // act = y
    return Select(_2, Const(0.0f), _1 > 0.0f).clone();
  case NonLinearityType::TANH: // act = y
    return (_2 * (1.0f - _1 * _1)).clone();
  case NonLinearityType::GELU: { // act = x
    const auto t = Tanh(_1 * kGeluAlpha * (1.0f + kGeluBeta * _1 * _1));
    const auto dInner = kGeluAlpha * (1.0f + 3.0f * kGeluBeta * _1 * _1);
    return (_2 * (0.5f * (1.0f + t) + 0.5f * _1 * (1.0f - t * t) * dInner)).clone();
  }
  case NonLinearityType::GELU_ERF: // act = x
    return (_2 * (0.5f * (1.0f + Erf(_1 * kInvSqrt2)) + _1 * kInvSqrt2Pi * Exp(_1 * _1 * -0.5f)))
        .clone();
  case NonLinearityType::SWISH: { // act = x
    const auto s = Sigmoid(_1);
    return (_2 * s * (1.0f + _1 * (1.0f - s))).clone();
  }
  default:
    return nullptr;
  }
}

void checkInput(const std::string &fn, const poplar::Tensor &t, NonLinearityType type) {
  detail::requireFloatType(fn, "t", t);
  if (isSoftmax(type))
    detail::requireMinRank(fn, "t", t, 1);
}

float scalingOf(NonLinearityType type) {
  return type == NonLinearityType::SOFTMAX_SCALED ? SOFTMAX_SCALING : 1.0f;
}

/// The debug-context name of each type.
const char *debugName(NonLinearityType type) {
  switch (type) {
  case NonLinearityType::SIGMOID:
    return "SIGMOID";
  case NonLinearityType::HARD_SIGMOID:
    return "HARD_SIGMOID";
  case NonLinearityType::RELU:
    return "RELU";
  case NonLinearityType::TANH:
    return "TANH";
  case NonLinearityType::GELU:
    return "GELU";
  case NonLinearityType::GELU_ERF:
    return "GELU_ERF";
  case NonLinearityType::SWISH:
    return "SWISH";
  case NonLinearityType::SOFTMAX:
    return "SOFTMAX";
  case NonLinearityType::SOFTMAX_STABLE:
    return "SOFTMAX_STABLE";
  case NonLinearityType::SOFTMAX_SCALED:
    return "SOFTMAX_SCALED";
  case NonLinearityType::LOG_SOFTMAX:
    return "LOG_SOFTMAX";
  }
  return "?";
}

// The codelets (codelets/popnn/NonLinearityVertices.cpp) take the type as its enumerator value.
static_assert(static_cast<unsigned>(NonLinearityType::SIGMOID) == 0 &&
                  static_cast<unsigned>(NonLinearityType::HARD_SIGMOID) == 1 &&
                  static_cast<unsigned>(NonLinearityType::RELU) == 2 &&
                  static_cast<unsigned>(NonLinearityType::TANH) == 3 &&
                  static_cast<unsigned>(NonLinearityType::GELU) == 4 &&
                  static_cast<unsigned>(NonLinearityType::GELU_ERF) == 5 &&
                  static_cast<unsigned>(NonLinearityType::SWISH) == 6,
              "NonLinearityRegions numbers the element-wise types in this order");

void requireElementWise(const std::string &fn, NonLinearityType type) {
  if (isSoftmax(type))
    throw poputil::poplibs_error(
        detail::cat(fn, ": argument 'nonLinearityType' ", debugName(type),
                    " needs several compute sets; use the form taking a Sequence"));
}

/// The regions of `t` on each tile, in tile order (tiles holding none are left out).
std::vector<std::pair<unsigned, std::vector<poplar::Tensor>>>
regionsByTile(const poplar::Graph &graph, const poplar::Tensor &t) {
  std::vector<std::pair<unsigned, std::vector<poplar::Tensor>>> out;
  const poplar::Tensor flat = t.flatten();
  const auto mapping = graph.getTileMapping(flat);
  for (unsigned tile = 0; tile < mapping.size(); ++tile) {
    std::vector<poplar::Tensor> regions;
    for (const auto &iv : mapping[tile])
      if (iv.size())
        regions.push_back(flat.slice(iv.begin(), iv.end()));
    if (!regions.empty())
      out.emplace_back(tile, std::move(regions));
  }
  return out;
}

} // namespace

void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType type, poplar::Tensor t,
                         float &nonLinearityScaling, poplar::ComputeSet &cs,
                         const poplar::DebugContext &) {
  const std::string fn = "popnn::nonLinearityInPlace";
  checkInput(fn, t, type);
  requireElementWise(fn, type);
  nonLinearityScaling = 1.0f;
  const std::string vertexType =
      poputil::templateVertex("popnn::NonLinearityRegions", t.elementType());
  for (auto &[tile, regions] : regionsByTile(graph, t)) {
    poplar::VertexRef v = graph.addVertex(cs, vertexType);
    graph.connect(v["data"], regions);
    graph.setInitialValue(v["type"], static_cast<unsigned>(type));
    graph.setTileMapping(v, tile);
  }
}

void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType type, poplar::Tensor t,
                         poplar::ComputeSet &cs, const poplar::DebugContext &debugContext) {
  float scaling = 1.0f;
  nonLinearityInPlace(graph, type, t, scaling, cs, debugContext);
}

poplar::Tensor nonLinearityInputGradient(poplar::Graph &graph, NonLinearityType type,
                                         poplar::Tensor act, poplar::Tensor outGradient,
                                         poplar::ComputeSet &cs,
                                         const poplar::DebugContext &debugContext) {
  const std::string fn = "popnn::nonLinearityInputGradient";
  checkInput(fn, act, type);
  requireElementWise(fn, type);
  detail::requireShape(fn, "outGradient", outGradient, act.shape());
  detail::requireSameType(fn, "outGradient", outGradient, act.elementType());
  poplar::Tensor inGradient =
      graph.clone(act, {debugContext, detail::cat(debugName(type), "InputGradient")});
  const poplar::Tensor actFlat = act.flatten(), gradFlat = outGradient.flatten(),
                       inFlat = inGradient.flatten();
  const std::string vertexType =
      poputil::templateVertex("popnn::NonLinearityGradRegions", act.elementType());
  const auto mapping = graph.getTileMapping(actFlat);
  for (unsigned tile = 0; tile < mapping.size(); ++tile) {
    std::vector<poplar::Tensor> a, g, d;
    for (const auto &iv : mapping[tile]) {
      if (!iv.size())
        continue;
      a.push_back(actFlat.slice(iv.begin(), iv.end()));
      g.push_back(gradFlat.slice(iv.begin(), iv.end()));
      d.push_back(inFlat.slice(iv.begin(), iv.end()));
    }
    if (a.empty())
      continue;
    poplar::VertexRef v = graph.addVertex(cs, vertexType);
    graph.connect(v["act"], a);
    graph.connect(v["outGradient"], g);
    graph.connect(v["inGradient"], d);
    graph.setInitialValue(v["type"], static_cast<unsigned>(type));
    graph.setTileMapping(v, tile);
  }
  return inGradient;
}

void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType type, poplar::Tensor t,
                         float &nonLinearityScaling, poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext) {
  checkInput("popnn::nonLinearityInPlace", t, type);
  const poplar::DebugContext dc(debugContext, debugName(type));
  nonLinearityScaling = scalingOf(type);
  if (isSoftmax(type)) {
    detail::softmaxRows(graph, t, t, type == NonLinearityType::LOG_SOFTMAX, nonLinearityScaling,
                        prog, dc);
    return;
  }
  popops::mapInPlace(graph, *forwardExpr(type), {t}, prog, dc);
}

void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType type, poplar::Tensor t,
                         poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext) {
  float scaling = 1.0f;
  nonLinearityInPlace(graph, type, t, scaling, prog, debugContext);
}

poplar::Tensor nonLinearity(poplar::Graph &graph, NonLinearityType type, poplar::Tensor t,
                            float &nonLinearityScaling, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext) {
  checkInput("popnn::nonLinearity", t, type);
  const poplar::DebugContext dc(debugContext, debugName(type));
  nonLinearityScaling = scalingOf(type);
  if (isSoftmax(type)) {
    poplar::Tensor out = graph.clone(t, {dc, "out"});
    detail::softmaxRows(graph, t, out, type == NonLinearityType::LOG_SOFTMAX, nonLinearityScaling,
                        prog, dc);
    return out;
  }
  return popops::map(graph, *forwardExpr(type), {t}, prog, dc);
}

poplar::Tensor nonLinearity(poplar::Graph &graph, NonLinearityType type, poplar::Tensor t,
                            poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext) {
  float scaling = 1.0f;
  return nonLinearity(graph, type, t, scaling, prog, debugContext);
}

poplar::Tensor nonLinearityInputGradient(poplar::Graph &graph, NonLinearityType type,
                                         poplar::Tensor act, poplar::Tensor outGradient,
                                         poplar::program::Sequence &prog,
                                         const poplar::DebugContext &debugContext) {
  const std::string fn = "popnn::nonLinearityInputGradient";
  checkInput(fn, act, type);
  detail::requireShape(fn, "outGradient", outGradient, act.shape());
  detail::requireSameType(fn, "outGradient", outGradient, act.elementType());
  const poplar::DebugContext dc(debugContext, detail::cat(debugName(type), "Grad"));
  if (isSoftmax(type))
    return detail::softmaxRowsGradient(graph, act, outGradient,
                                       type == NonLinearityType::LOG_SOFTMAX, prog, dc);
  return popops::map(graph, *gradientExpr(type), {act, outGradient}, prog, dc);
}

poplar::Tensor logSoftmax(poplar::Graph &graph, poplar::Tensor t, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext) {
  return nonLinearity(graph, NonLinearityType::LOG_SOFTMAX, t, prog, debugContext);
}

void logSoftmaxInPlace(poplar::Graph &graph, poplar::Tensor t, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext) {
  nonLinearityInPlace(graph, NonLinearityType::LOG_SOFTMAX, t, prog, debugContext);
}

} // namespace popnn
