// Every variant is one fused map: A = a·A ± b·B with a, b constants or one-element tensors.
#include <popops/ScaledAdd.hpp>

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
  if (A.shape() != B.shape() || A.elementType() != B.elementType())
    throw poputil::poplibs_error(std::string("popops::") + fn + ": B " + B.shortString() +
                                 " must have the shape and type of A " + A.shortString());
  bool optimizeForSpeed = false; // accepted for source compatibility; every variant is one map
  poputil::OptionSpec(
      std::string("popops::") + fn,
      {{"optimizeForSpeed", poputil::OptionHandler::createWithBool(optimizeForSpeed)}})
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

} // namespace

void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, float scaleB,
                 poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                 const poplar::OptionFlags &options) {
  check("scaledAddTo", A, B, options);
  mapInPlace(graph, _1 + expr::Const(scaleB) * _2, {A, B}, prog, {dc, "ScaledAdd"});
}

void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, poplar::Tensor scaleB,
                 poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                 const poplar::OptionFlags &options) {
  check("scaledAddTo", A, B, options);
  checkScale("scaledAddTo", "scaleB", scaleB);
  mapInPlace(graph, _1 + *scaleExpr(_3, scaleB, A) * _2, {A, B, scaleB}, prog, {dc, "ScaledAdd"});
}

void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, float scaleA, poplar::Tensor B,
                 float scaleB, poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                 const poplar::OptionFlags &options) {
  check("scaledAddTo", A, B, options);
  mapInPlace(graph, expr::Const(scaleA) * _1 + expr::Const(scaleB) * _2, {A, B}, prog,
             {dc, "ScaledAdd"});
}

void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor scaleA, poplar::Tensor B,
                 poplar::Tensor scaleB, poplar::program::Sequence &prog,
                 const poplar::DebugContext &dc, const poplar::OptionFlags &options) {
  check("scaledAddTo", A, B, options);
  checkScale("scaledAddTo", "scaleA", scaleA);
  checkScale("scaledAddTo", "scaleB", scaleB);
  mapInPlace(graph, *scaleExpr(_3, scaleA, A) * _1 + *scaleExpr(_4, scaleB, A) * _2,
             {A, B, scaleA, scaleB}, prog, {dc, "ScaledAdd"});
}

void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, float scaleB,
                        poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                        const poplar::OptionFlags &options) {
  check("scaledSubtractFrom", A, B, options);
  mapInPlace(graph, _1 - expr::Const(scaleB) * _2, {A, B}, prog, {dc, "ScaledSubtract"});
}

void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B,
                        poplar::Tensor scaleB, poplar::program::Sequence &prog,
                        const poplar::DebugContext &dc, const poplar::OptionFlags &options) {
  check("scaledSubtractFrom", A, B, options);
  checkScale("scaledSubtractFrom", "scaleB", scaleB);
  mapInPlace(graph, _1 - *scaleExpr(_3, scaleB, A) * _2, {A, B, scaleB}, prog,
             {dc, "ScaledSubtract"});
}

void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, float scaleA, poplar::Tensor B,
                        float scaleB, poplar::program::Sequence &prog,
                        const poplar::DebugContext &dc, const poplar::OptionFlags &options) {
  check("scaledSubtractFrom", A, B, options);
  mapInPlace(graph, expr::Const(scaleA) * _1 - expr::Const(scaleB) * _2, {A, B}, prog,
             {dc, "ScaledSubtract"});
}

void scaledSubtractFrom(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor scaleA,
                        poplar::Tensor B, poplar::Tensor scaleB, poplar::program::Sequence &prog,
                        const poplar::DebugContext &dc, const poplar::OptionFlags &options) {
  check("scaledSubtractFrom", A, B, options);
  checkScale("scaledSubtractFrom", "scaleA", scaleA);
  checkScale("scaledSubtractFrom", "scaleB", scaleB);
  mapInPlace(graph, *scaleExpr(_3, scaleA, A) * _1 - *scaleExpr(_4, scaleB, A) * _2,
             {A, B, scaleA, scaleB}, prog, {dc, "ScaledSubtract"});
}

} // namespace popops
