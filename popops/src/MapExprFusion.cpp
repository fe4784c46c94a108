#include "MapExprFusion.hpp"

#include <memory>

namespace popops::detail {
namespace {

namespace mx = tessera::codelets::popops::mapexpr;
using namespace expr;

/// Whether `e` has the shape of `pattern`. With `wildcards`, each placeholder _i of the pattern
/// stands for any subexpression, the same one wherever _i repeats (bound[i - 1]); without, a
/// placeholder matches only the same placeholder.
bool sameShape(const Expr &pattern, const Expr &e, bool wildcards,
               std::vector<const Expr *> &bound) {
  if (const auto *p = pattern.getAs<PlaceHolder>()) {
    if (!wildcards) {
      const auto *q = e.getAs<PlaceHolder>();
      return q && q->getIndex() == p->getIndex();
    }
    const unsigned i = p->getIndex() - 1;
    if (bound.size() <= i)
      bound.resize(i + 1, nullptr);
    if (!bound[i]) {
      bound[i] = &e;
      return true;
    }
    std::vector<const Expr *> unused;
    return sameShape(*bound[i], e, false, unused);
  }
  if (const auto *p = pattern.getAs<Const>()) {
    const auto *q = e.getAs<Const>();
    return q && q->getType() == p->getType() && q->getDataAsDouble() == p->getDataAsDouble();
  }
  if (const auto *p = pattern.getAs<Cast>()) {
    const auto *q = e.getAs<Cast>();
    return q && q->getRHSType() == p->getRHSType() &&
           sameShape(p->getLHS(), q->getLHS(), wildcards, bound);
  }
  if (const auto *p = pattern.getAs<UnaryOp>()) {
    const auto *q = e.getAs<UnaryOp>();
    return q && q->getOpType() == p->getOpType() &&
           sameShape(p->getArg(), q->getArg(), wildcards, bound);
  }
  if (const auto *p = pattern.getAs<BinaryOp>()) {
    const auto *q = e.getAs<BinaryOp>();
    return q && q->getOpType() == p->getOpType() &&
           sameShape(p->getLHS(), q->getLHS(), wildcards, bound) &&
           sameShape(p->getRHS(), q->getRHS(), wildcards, bound);
  }
  if (const auto *p = pattern.getAs<TernaryOp>()) {
    const auto *q = e.getAs<TernaryOp>();
    return q && q->getOpType() == p->getOpType() &&
           sameShape(p->getArg0(), q->getArg0(), wildcards, bound) &&
           sameShape(p->getArg1(), q->getArg1(), wildcards, bound) &&
           sameShape(p->getArg2(), q->getArg2(), wildcards, bound);
  }
  return false;
}

struct FusedPattern {
  mx::Op op;
  std::unique_ptr<Expr> pattern; ///< _1, _2, … are the opcode's operands a, b, …
};

const std::vector<FusedPattern> &patterns() {
  static const std::vector<FusedPattern> all = [] {
    constexpr float kAlpha = mx::kGeluAlpha, kBeta = mx::kGeluBeta;
    std::vector<FusedPattern> v;
    v.push_back({mx::Op::GeluTanhF,
                 (_1 * 0.5f * (1.0f + Tanh(_1 * kAlpha * (1.0f + kBeta * _1 * _1)))).clone()});
    const auto t = Tanh(_1 * kAlpha * (1.0f + kBeta * _1 * _1));
    const auto dInner = kAlpha * (1.0f + 3.0f * kBeta * _1 * _1);
    v.push_back({mx::Op::GeluTanhGradF,
                 (_2 * (0.5f * (1.0f + t) + 0.5f * _1 * (1.0f - t * t) * dInner)).clone()});
    return v;
  }();
  return all;
}

} // namespace

std::optional<FusedKernelMatch> matchFusedKernel(const Expr &e) {
  // Every pattern is a multiplication at the top: a cheap test before the tree walks.
  if (!e.isA<BinaryOp>())
    return std::nullopt;
  for (const auto &p : patterns()) {
    std::vector<const Expr *> bound;
    if (sameShape(*p.pattern, e, true, bound))
      return FusedKernelMatch{p.op, std::move(bound)};
  }
  return std::nullopt;
}

} // namespace popops::detail
