#include <tessera/apps/AdaptiveOptimisers.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <popops/Zero.hpp>

#include <tessera/apps/Errors.hpp>

namespace tessera::apps {
namespace pe = popops::expr;
using ExprPtr = std::unique_ptr<pe::Expr>;

namespace {

/// The tensor list of one popops::map call, built alongside its expression: add() returns the
/// placeholder standing for the tensor, so optional operands need no index bookkeeping.
struct Operands {
  std::vector<poplar::Tensor> tensors;
  pe::PlaceHolder add(const poplar::Tensor &t) {
    tensors.push_back(t);
    return pe::PlaceHolder(static_cast<unsigned>(tensors.size()));
  }
};

ExprPtr asFloat(const pe::Expr &e) { return pe::Cast(e, poplar::FLOAT).clone(); }

void checkOption(bool ok, const std::string &optimiser, const std::string &field, float value,
                 const std::string &expected) {
  if (ok)
    return;
  std::ostringstream text;
  text << optimiser << " option " << field << " = " << value << " must be " << expected;
  throw app_error(text.str());
}

} // namespace

namespace detail {

/// What AdamW and LAMB share: the learning rate, the step counter, the moments and the
/// bias-correction denominators of the current step.
class AdaptiveMoments {
public:
  AdaptiveMoments(BuildContext &ctx, const AdaptiveOptions &options, std::string optimiser)
      : options(options), optimiser(std::move(optimiser)) {
    checkOption(options.beta1 >= 0 && options.beta1 < 1, this->optimiser, "beta1", options.beta1,
                "in [0, 1)");
    checkOption(options.beta2 >= 0 && options.beta2 < 1, this->optimiser, "beta2", options.beta2,
                "in [0, 1)");
    checkOption(options.epsilon >= 0, this->optimiser, "epsilon", options.epsilon, ">= 0");
    checkOption(options.weightDecay >= 0, this->optimiser, "weightDecay", options.weightDecay,
                ">= 0");
    if (options.gradientScale.valid() && (options.gradientScale.elementType() != poplar::FLOAT ||
                                          options.gradientScale.numElements() != 1))
      throw app_error(this->optimiser +
                      " option gradientScale must be a FLOAT tensor of one "
                      "element, got " +
                      options.gradientScale.elementType().toString() + " of " +
                      std::to_string(options.gradientScale.numElements()));
    poplar::Graph &g = ctx.graph;
    learningRate = g.addVariable(poplar::FLOAT, {1}, "learningRate");
    g.setTileMapping(learningRate, 0);
    g.createHostWrite("learningRate", learningRate);
    g.createHostRead("learningRate", learningRate);
    step = g.addVariable(poplar::FLOAT, {1}, "optimiser/step");
    g.setTileMapping(step, 0);
    popops::zero(g, step, ctx.initialise, "optimiser/stepInit");
    ctx.addState("optimiser/step", step);
  }

  /// Checks every parameter has a gradient, creates the moments on first use, then appends
  /// t ← t + 1, the bias-correction denominators and the moment updates to `prog`.
  void begin(BuildContext &ctx, poplar::program::Sequence &prog) {
    poplar::Graph &g = ctx.graph;
    for (const auto &p : ctx.parameters())
      if (!p->gradient.valid())
        throw app_error(optimiser + ": parameter '" + p->name +
                        "' has no gradient: build backward() first");
    if (m.empty())
      for (const auto &p : ctx.parameters())
        for (auto [suffix, list] : {std::pair{"/m", &m}, std::pair{"/v", &v}}) {
          poplar::Tensor t = g.clone(poplar::FLOAT, p->value, p->name + suffix);
          popops::zero(g, t, ctx.initialise, p->name + suffix + "Init");
          ctx.addState(p->name + suffix, t);
          list->push_back(t);
        }
    if (m.size() != ctx.parameters().size())
      throw app_error(optimiser + ": the context has " + std::to_string(ctx.parameters().size()) +
                      " parameters but the optimiser's state was built for " +
                      std::to_string(m.size()) + "; add every parameter before the first update");

    popops::mapInPlace(g, pe::_1 + pe::Const(1.0f), {step}, prog, "optimiser/stepIncrement");
    if (options.biasCorrection) {
      // 1 − β^t = −expm1(t·ln β): no cancellation for β near 1.
      auto denominator = [&](float beta, const std::string &name) {
        if (beta == 0)
          return popops::map(g, pe::Const(1.0f) + pe::Const(0.0f) * pe::_1, {step}, prog, name);
        return popops::map(g, -pe::Expm1(pe::_1 * pe::Const(std::log(double(beta)))), {step}, prog,
                           name);
      };
      correction1 = denominator(options.beta1, "optimiser/biasCorrection1");
      correction2 = denominator(options.beta2, "optimiser/biasCorrection2");
    }

    const float b1 = options.beta1, b2 = options.beta2;
    std::size_t i = 0;
    for (const auto &p : ctx.parameters()) {
      for (bool second : {false, true}) {
        const poplar::Tensor &moment = second ? v.at(i) : m.at(i);
        Operands ops;
        const pe::PlaceHolder mom = ops.add(moment);
        const ExprPtr grad = gradient(ops, p->gradient);
        const std::string name = p->name + (second ? "/vUpdate" : "/mUpdate");
        if (second)
          popops::mapInPlace(g, pe::Const(b2) * mom + pe::Const(1 - b2) * pe::Square(*grad),
                             ops.tensors, prog, name);
        else
          popops::mapInPlace(g, pe::Const(b1) * mom + pe::Const(1 - b1) * *grad, ops.tensors, prog,
                             name);
      }
      ++i;
    }
  }

  /// gradientScale · ∇ in FLOAT.
  ExprPtr gradient(Operands &ops, const poplar::Tensor &grad) const {
    const pe::PlaceHolder gp = ops.add(grad);
    if (!options.gradientScale.valid())
      return asFloat(gp);
    const pe::PlaceHolder sp = ops.add(options.gradientScale);
    return (*asFloat(gp) * sp).clone();
  }

  /// m̂ / (√v̂ + ε) for moments `mp`, `vp` (adds the bias-correction operands it needs).
  ExprPtr direction(Operands &ops, const pe::Expr &mp, const pe::Expr &vp) const {
    const pe::Const eps(options.epsilon);
    if (!options.biasCorrection)
      return (mp / (pe::Sqrt(vp) + eps)).clone();
    const pe::PlaceHolder c1 = ops.add(correction1);
    const pe::PlaceHolder c2 = ops.add(correction2);
    return ((mp / c1) / (pe::Sqrt(vp / c2) + eps)).clone();
  }

  float decayOf(const Parameter &p) const { return p.decay ? options.weightDecay : 0.0f; }

  const AdaptiveOptions options;
  const std::string optimiser;
  poplar::Tensor learningRate, step;
  /// Valid after begin() with bias correction: 1 − β1^t and 1 − β2^t, FLOAT [1].
  poplar::Tensor correction1, correction2;
  std::vector<poplar::Tensor> m, v;
};

} // namespace detail

// ---- AdamW ----------------------------------------------------------------------------------

AdamWOptimiser::AdamWOptimiser(BuildContext &ctx, AdamWOptions options)
    : moments_(std::make_unique<detail::AdaptiveMoments>(ctx, options, "AdamW")) {}
AdamWOptimiser::~AdamWOptimiser() = default;
AdamWOptimiser::AdamWOptimiser(AdamWOptimiser &&) noexcept = default;
AdamWOptimiser &AdamWOptimiser::operator=(AdamWOptimiser &&) noexcept = default;
const poplar::Tensor &AdamWOptimiser::learningRate() const { return moments_->learningRate; }
const poplar::Tensor &AdamWOptimiser::stepCount() const { return moments_->step; }

void AdamWOptimiser::update(BuildContext &ctx, poplar::program::Sequence &prog) {
  detail::AdaptiveMoments &s = *moments_;
  s.begin(ctx, prog);
  std::size_t i = 0;
  for (const auto &p : ctx.parameters()) {
    // w ← w − lr · (m̂ / (√v̂ + ε) + wd · w), in FLOAT, rounded once to w's type.
    Operands ops;
    const pe::PlaceHolder w = ops.add(p->value);
    const pe::PlaceHolder mp = ops.add(s.m.at(i));
    const pe::PlaceHolder vp = ops.add(s.v.at(i));
    const pe::PlaceHolder lr = ops.add(s.learningRate);
    const ExprPtr dir = s.direction(ops, mp, vp);
    const ExprPtr wf = asFloat(w);
    const float wd = s.decayOf(*p);
    const ExprPtr step = wd == 0 ? dir->clone() : (*dir + pe::Const(wd) * *wf).clone();
    popops::mapInPlace(ctx.graph, pe::Cast(*wf - lr * *step, p->value.elementType()), ops.tensors,
                       prog, p->name + "/weightUpdate");
    ++i;
  }
}

// ---- LAMB -----------------------------------------------------------------------------------

LambOptimiser::LambOptimiser(BuildContext &ctx, LambOptions options)
    : moments_(std::make_unique<detail::AdaptiveMoments>(ctx, options, "LAMB")) {}
LambOptimiser::~LambOptimiser() = default;
LambOptimiser::LambOptimiser(LambOptimiser &&) noexcept = default;
LambOptimiser &LambOptimiser::operator=(LambOptimiser &&) noexcept = default;
const poplar::Tensor &LambOptimiser::learningRate() const { return moments_->learningRate; }
const poplar::Tensor &LambOptimiser::stepCount() const { return moments_->step; }

void LambOptimiser::update(BuildContext &ctx, poplar::program::Sequence &prog) {
  detail::AdaptiveMoments &s = *moments_;
  poplar::Graph &g = ctx.graph;
  s.begin(ctx, prog);
  const auto &parameters = ctx.parameters();
  if (parameters.empty())
    return;

  // u = m̂ / (√v̂ + ε) + wd · w, laid out as m (the first full-shape operand).
  std::vector<poplar::Tensor> directions;
  std::vector<popops::SingleReduceOp> norms;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const Parameter &p = *parameters[i];
    Operands ops;
    const pe::PlaceHolder mp = ops.add(s.m.at(i));
    const pe::PlaceHolder vp = ops.add(s.v.at(i));
    const pe::PlaceHolder w = ops.add(p.value);
    const ExprPtr dir = s.direction(ops, mp, vp);
    const float wd = s.decayOf(p);
    const ExprPtr u = wd == 0 ? dir->clone() : (*dir + pe::Const(wd) * *asFloat(w)).clone();
    directions.push_back(popops::map(g, *u, ops.tensors, prog, p.name + "/lambDirection"));
    norms.emplace_back(p.value.flatten(), std::vector<std::size_t>{0},
                       popops::Operation::SQUARE_ADD, poplar::FLOAT, p.name + "/weightNorm");
    norms.emplace_back(directions.back().flatten(), std::vector<std::size_t>{0},
                       popops::Operation::SQUARE_ADD, poplar::FLOAT, p.name + "/directionNorm");
  }
  // ‖w‖², ‖u‖² of every parameter side by side, then r = ‖w‖ / ‖u‖ (1 if either is 0).
  std::vector<poplar::Tensor> squares;
  popops::reduceMany(g, norms, squares, prog, "lamb/norms");
  std::vector<poplar::Tensor> weightSquares, directionSquares;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    weightSquares.push_back(squares.at(2 * i).reshape({1}));
    directionSquares.push_back(squares.at(2 * i + 1).reshape({1}));
  }
  const pe::Const zero(0.0f);
  const poplar::Tensor ratios = popops::map(
      g,
      pe::Select(pe::Sqrt(pe::_1) / pe::Sqrt(pe::_2), pe::Const(1.0f),
                 (pe::_1 > zero) && (pe::_2 > zero)),
      {poplar::concat(weightSquares), poplar::concat(directionSquares)}, prog, "lamb/trustRatios");

  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const Parameter &p = *parameters[i];
    // w ← w − lr · r · u, in FLOAT, rounded once to w's type.
    popops::mapInPlace(
        g,
        pe::Cast(pe::Cast(pe::_1, poplar::FLOAT) - pe::_3 * pe::_4 * pe::_2, p.value.elementType()),
        {p.value, directions[i], s.learningRate, ratios.slice(i, i + 1)}, prog,
        p.name + "/weightUpdate");
  }
}

} // namespace tessera::apps
