// Every variant is one fused map: A = a·A ± b·B with a, b constants or one-element tensors.
#include <popops/ScaledAdd.hpp>

#include <limits>
#include <memory>

#include <popops/ElementWise.hpp>
#include <poputil/OptionParsing.hpp>
#include <poputil/exceptions.hpp>

namespace popops {

namespace {

using expr::_1;
using expr::_2;
using expr::_3;
using expr::_4;

void check(const char *fn, const poplar::Tensor &A, const poplar::Tensor &B,
           const poplar::OptionFlags &options) {
  if (A.shape() != B.shape())
    throw poputil::poplibs_error(std::string("popops::") + fn + ": B " + B.shortString() +
                                 " must have the shape of A " + A.shortString());
  // Both accepted for PopLibs compatibility: every variant is one map computed in float for
  // HALF, so neither changes the result.
  bool optimizeForSpeed = false;
  double scaleFloatToHalfTolerance = 1e-6;
  poputil::OptionSpec(
      std::string("popops::") + fn,
      {{"optimizeForSpeed", poputil::OptionHandler::createWithBool(optimizeForSpeed)},
       {"scaleFloatToHalfTolerance",
        poputil::OptionHandler::createWithDouble(scaleFloatToHalfTolerance, 0.0,
                                                 std::numeric_limits<double>::max())}})
      .parse(options);
}

void checkScale(const char *fn, const char *which, const poplar::Tensor &s) {
  if (s.numElements() != 1)
    throw poputil::poplibs_error(std::string("popops::") + fn + ": " + which + " " +
                                 s.shortString() + " must hold exactly one element");
}

/// The scale as an expression of A's type (a tensor scale of another type is cast).
std::unique_ptr<expr::Expr> scaleExpr(const expr::PlaceHolder &placeholder, const poplar::Tensor &s,
                                      const poplar::Tensor &A) {
  if (s.elementType() == A.elementType())
    return placeholder.clone();
  return expr::Cast(placeholder, A.elementType()).clone();
}

/// B as an expression of A's type: PopLibs casts B to A's type first.
std::unique_ptr<expr::Expr> bExpr(const poplar::Tensor &B, const poplar::Tensor &A) {
  if (B.elementType() == A.elementType())
    return _2.clone();
  return expr::Cast(_2, A.elementType()).clone();
}

} // namespace

void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, float scaleB,
                 poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                 const poplar::OptionFlags &options) {
  check("scaledAddTo", A, B, options);
  mapInPlace(graph, _1 + expr::Const(scaleB) * *bExpr(B, A), {A, B}, prog, {dc, "ScaledAdd"});
}

void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, poplar::Tensor scaleB,
                 poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                 const poplar::OptionFlags &options) {
  check("scaledAddTo", A, B, options);
  checkScale("scaledAddTo", "scaleB", scaleB);
  mapInPlace(graph, _1 + *scaleExpr(_3, scaleB, A) * *bExpr(B, A), {A, B, scaleB}, prog,
             {dc, "ScaledAdd"});
}

void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, float scaleA, poplar::Tensor B,
                 float scaleB, poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                 const poplar::OptionFlags &options) {
  check("scaledAddTo", A, B, options);
  mapInPlace(graph, expr::Const(scaleA) * _1 + expr::Const(scaleB) * *bExpr(B, A), {A, B}, prog,
             {dc, "ScaledAdd"});
}

void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor scaleA, poplar::Tensor B,
                 poplar::Tensor scaleB, poplar::program::Sequence &prog,
                 const poplar::DebugContext &dc, const poplar::OptionFlags &options) {
  check("scaledAddTo", A, B, options);
  checkScale("scaledAddTo", "scaleA", scaleA);
  checkScale("scaledAddTo", "scaleB", scaleB);
  mapInPlace(graph, *scaleExpr(_3, scaleA, A) * _1 + *scaleExpr(_4, scaleB, A) * *bExpr(B, A),
             {A, B, scaleA, scaleB}, prog, {dc, "ScaledAdd"});
}

void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, float scaleB,
                        poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                        const poplar::OptionFlags &options) {
  check("scaledSubtractFrom", A, B, options);
  mapInPlace(graph, _1 - expr::Const(scaleB) * *bExpr(B, A), {A, B}, prog, {dc, "ScaledSubtract"});
}

void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B,
                        poplar::Tensor scaleB, poplar::program::Sequence &prog,
                        const poplar::DebugContext &dc, const poplar::OptionFlags &options) {
  check("scaledSubtractFrom", A, B, options);
  checkScale("scaledSubtractFrom", "scaleB", scaleB);
  mapInPlace(graph, _1 - *scaleExpr(_3, scaleB, A) * *bExpr(B, A), {A, B, scaleB}, prog,
             {dc, "ScaledSubtract"});
}

void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, float scaleA, poplar::Tensor B,
                        float scaleB, poplar::program::Sequence &prog,
                        const poplar::DebugContext &dc, const poplar::OptionFlags &options) {
  check("scaledSubtractFrom", A, B, options);
  mapInPlace(graph, expr::Const(scaleA) * _1 - expr::Const(scaleB) * *bExpr(B, A), {A, B}, prog,
             {dc, "ScaledSubtract"});
}

void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor scaleA,
                        poplar::Tensor B, poplar::Tensor scaleB, poplar::program::Sequence &prog,
                        const poplar::DebugContext &dc, const poplar::OptionFlags &options) {
  check("scaledSubtractFrom", A, B, options);
  checkScale("scaledSubtractFrom", "scaleA", scaleA);
  checkScale("scaledSubtractFrom", "scaleB", scaleB);
  mapInPlace(graph, *scaleExpr(_3, scaleA, A) * _1 - *scaleExpr(_4, scaleB, A) * *bExpr(B, A),
             {A, B, scaleA, scaleB}, prog, {dc, "ScaledSubtract"});
}

void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor scaleA, poplar::Tensor B,
                 poplar::Tensor scaleB, poplar::program::Sequence &prog,
                 const ScaledAddSpecialisation speciality, const poplar::DebugContext &dc,
                 const poplar::OptionFlags &options) {
  if (speciality == ScaledAddSpecialisation::DEFAULT) {
    scaledAddTo(graph, A, scaleA, B, scaleB, prog, dc, options);
    return;
  }
  check("scaledAddTo", A, B, options);
  checkScale("scaledAddTo", "scaleA", scaleA);
  checkScale("scaledAddTo", "scaleB", scaleB);
  mapInPlace(graph, _1 - *scaleExpr(_3, scaleA, A) * _1 + *scaleExpr(_4, scaleB, A) * *bExpr(B, A),
             {A, B, scaleA, scaleB}, prog, {dc, "ScaledAdd"});
}

void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, float scaleA, poplar::Tensor B,
                 float scaleB, poplar::program::Sequence &prog,
                 const ScaledAddSpecialisation speciality, const poplar::DebugContext &dc,
                 const poplar::OptionFlags &options) {
  if (speciality == ScaledAddSpecialisation::DEFAULT) {
    scaledAddTo(graph, A, scaleA, B, scaleB, prog, dc, options);
    return;
  }
  check("scaledAddTo", A, B, options);
  mapInPlace(graph, _1 - expr::Const(scaleA) * _1 + expr::Const(scaleB) * *bExpr(B, A), {A, B},
             prog, {dc, "ScaledAdd"});
}

} // namespace popops
