// popops::map, mapInPlace and mapWithOutput: check shapes and types, compile the expression
// once, and add one compute set with one popops::MapExpr<T> vertex per contiguous run of the
// output on each tile (MapExpr2D<T> over many runs where a tile has many).
// GCC 12 reports a false -Wrestrict inside std::string operator+ at -O3 (GCC bug 105329).
#pragma GCC diagnostic ignored "-Wrestrict"

#include <popops/ElementWise.hpp>

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include <poputil/Describe.hpp>
#include <poputil/OptionParsing.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "Broadcasting.hpp"
#include "MapExprCompiler.hpp"
#include "MapWideInteger.hpp"
#include "TileRegions.hpp"
#include "popops/MapExprBytecode.hpp"

namespace popops {

namespace {

namespace mx = tessera::codelets::popops::mapexpr;

/// The map options PopLibs documents; Tessera always generates fused codelets, so they are
/// checked and ignored.
void checkOptions(const poplar::OptionFlags &options, const std::string &context) {
  using H = poputil::OptionHandler;
  bool ignored = false;
  poputil::OptionSpec(context, {{"enableGenerateCodelet", H::createWithBool(ignored)},
                                {"forceGenerateCodelet", H::createWithBool(ignored)},
                                {"enableExpressionOptimizations", H::createWithBool(ignored)}})
      .parse(options);
}

using detail::broadcastShapes;
using detail::broadcastTo;

poplar::Type fieldType(unsigned field) {
  return field == 0   ? poplar::UNSIGNED_INT
         : field == 1 ? poplar::UNSIGNED_SHORT
                      : poplar::UNSIGNED_CHAR;
}

enum class Mode { New, InPlace, WithOutput };

/// How many consecutive elements of the output, visited in dimension order `order`, read the
/// same element of an operand of shape `operand` broadcast to `shape`: the product of the
/// innermost visited dimensions the operand is broadcast along (1 when it is not).
std::size_t repetitionLength(std::vector<std::size_t> operand,
                             const std::vector<std::size_t> &shape,
                             const std::vector<unsigned> &order) {
  operand.insert(operand.begin(), shape.size() - operand.size(), 1);
  std::size_t length = 1;
  for (auto d = order.rbegin(); d != order.rend(); ++d) {
    if (operand[*d] != 1)
      break;
    length *= shape[*d];
  }
  return length;
}

/// The period with which an operand of shape `operand` broadcast to `shape` repeats when the
/// output is visited in dimension order `order`: when it is broadcast only along outer visited
/// dimensions (a bias row over the rows), output element i reads element i % P of its first P
/// elements; else 0 (also when it is not broadcast at all).
std::size_t broadcastPeriod(std::vector<std::size_t> operand, const std::vector<std::size_t> &shape,
                            const std::vector<unsigned> &order) {
  operand.insert(operand.begin(), shape.size() - operand.size(), 1);
  std::size_t period = 1;
  auto d = order.rbegin();
  for (; d != order.rend() && operand[*d] == shape[*d]; ++d)
    period *= shape[*d];
  for (; d != order.rend(); ++d)
    if (operand[*d] != 1)
      return 0;
  std::size_t total = 1;
  for (std::size_t n : shape)
    total *= n;
  return period < total ? period : 0;
}

/// `runs` with every group cut where the visited element index crosses a multiple of `period`,
/// so no group spans two repetitions of a broadcast element.
std::vector<std::vector<std::vector<poplar::Interval>>>
splitAtMultiples(const std::vector<std::vector<std::vector<poplar::Interval>>> &runs,
                 std::size_t period) {
  std::vector<std::vector<std::vector<poplar::Interval>>> split(runs.size());
  for (std::size_t tile = 0; tile < runs.size(); ++tile)
    for (const auto &group : runs[tile]) {
      std::size_t block = ~std::size_t(0);
      for (const auto &interval : group)
        for (std::size_t at = interval.begin(); at < interval.end();) {
          const std::size_t end = std::min(interval.end(), (at / period + 1) * period);
          if (at / period != block) {
            block = at / period;
            split[tile].emplace_back();
          }
          split[tile].back().emplace_back(at, end);
          at = end;
        }
    }
  return split;
}

/// One expression's vertices. With `sharedCs` they join that compute set and the caller executes
/// it (several expressions in one pass); else they get their own, executed here. `caller` names
/// the API in messages when it is not the one `mode` implies.
poplar::Tensor mapImpl(poplar::Graph &graph, const expr::Expr &e,
                       const std::vector<poplar::Tensor> &ts, std::optional<poplar::Tensor> out,
                       Mode mode, poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                       const poplar::OptionFlags &options,
                       const poplar::ComputeSet *sharedCs = nullptr,
                       const std::string &caller = {}) {
  const std::string context = !caller.empty()         ? caller
                              : mode == Mode::New     ? "popops::map"
                              : mode == Mode::InPlace ? "popops::mapInPlace"
                                                      : "popops::mapWithOutput";
  checkOptions(options, context);
  for (std::size_t i = 0; i < ts.size(); ++i)
    if (!ts[i].valid())
      throw poputil::poplibs_error(context + ": tensor " + std::to_string(i + 1) + " (_" +
                                   std::to_string(i + 1) + ") is not a valid tensor");
  if (mode == Mode::InPlace && ts.empty())
    throw poputil::poplibs_error(context + ": needs at least one tensor to write to");

  // 64-bit integers: one binary operation, on vertices of their own (MapWideInteger.cpp).
  if (!sharedCs && detail::hasWideIntegerTensor(ts))
    return detail::mapWideInteger(graph, e, ts, out, mode == Mode::InPlace, prog, dc, context);

  std::vector<std::string> names;
  for (const auto &t : ts)
    names.push_back(poputil::describe(t));
  const detail::CompiledMapExpr compiled = detail::compileMapExpr(e, ts, names, context);

  // The broadcast shape of every tensor the expression reads.
  std::optional<std::vector<std::size_t>> shape;
  std::string shapeOwner;
  for (const auto &use : compiled.inputs) {
    const poplar::Tensor &t = ts[use.tensorIndex];
    const std::string name =
        "_" + std::to_string(use.tensorIndex + 1) + " " + names[use.tensorIndex];
    if (!shape) {
      shape = t.shape();
      shapeOwner = name;
    } else {
      shape = broadcastShapes(*shape, t.shape(), shapeOwner + " and " + name, context);
      shapeOwner += " and " + name;
    }
  }
  if (!shape) {
    if (out)
      shape = out->shape();
    else if (!ts.empty())
      shape = ts[0].shape();
    else
      throw poputil::poplibs_error(context + ": the expression " + e.name() +
                                   " reads no tensor, so its shape is unknown");
  }

  poplar::Tensor result;
  if (mode == Mode::New) {
    std::optional<poplar::Tensor> like;
    for (const auto &use : compiled.inputs)
      if (ts[use.tensorIndex].shape() == *shape) {
        like = ts[use.tensorIndex];
        break;
      }
    if (like) {
      result = graph.clone(compiled.outType, *like, {dc, "out"});
    } else {
      result = graph.addVariable(compiled.outType, *shape, {dc, "out"});
      poputil::mapTensorLinearly(graph, result);
    }
  } else {
    result = mode == Mode::InPlace ? ts[0] : *out;
    const std::string what = mode == Mode::InPlace ? "the in-place tensor _1 " : "the output ";
    if (result.shape() != *shape)
      throw poputil::poplibs_error(context + ": " + what + poputil::describe(result) +
                                   " has shape " + poputil::shapeString(result.shape()) +
                                   " but the result has shape " + poputil::shapeString(*shape) +
                                   " (from " + shapeOwner + ")");
    if (result.elementType() != compiled.outType)
      throw poputil::poplibs_error(context + ": " + what + poputil::describe(result) + " holds " +
                                   result.elementType().toString() + " but the expression " +
                                   e.name(ts) + " gives " + compiled.outType.toString());
  }

  // Inputs that overlap the output without being it are read from a copy, so no vertex can
  // see an element another one has already overwritten.
  std::vector<poplar::Tensor> inputs(ts.size());
  for (const auto &use : compiled.inputs) {
    poplar::Tensor t = ts[use.tensorIndex];
    if (mode != Mode::New && !(t == result) && t.intersectsWith(result)) {
      poplar::Tensor copy = graph.clone(t, {dc, "aliasedInput"});
      prog.add(poplar::program::Copy(t, copy, false, {dc, "copyAliasedInput"}));
      t = copy;
    }
    inputs[use.tensorIndex] = t;
  }

  // An element-wise map may visit the elements in any order as long as every operand uses the
  // same one: take the dimension order in which the output's memory is most contiguous, so a
  // channel-major activation seen as [B][C][H][W] gives one run per channel block, not one
  // vertex per image row.
  std::vector<unsigned> order(shape->size());
  for (unsigned d = 0; d < order.size(); ++d)
    order[d] = d;
  auto runsIn = [&](const std::vector<unsigned> &o) {
    return detail::memoryOrderedRunsPerTile(graph, result.dimShuffle(o));
  };
  auto runs = runsIn(order);
  if (order.size() >= 2) {
    const auto [n, tiles] = detail::countGroups(runs);
    if (n > 4 * tiles) {
      std::vector<unsigned> channelsFirst = order;
      std::swap(channelsFirst[0], channelsFirst[1]);
      auto alternative = runsIn(channelsFirst);
      if (detail::countGroups(alternative).first < n) {
        order = channelsFirst;
        runs = std::move(alternative);
      }
    }
  }
  // Each operand flattened in the visiting order and seen as its field's element type once, so
  // the per-group pieces below are plain slices (not one reinterpreted view per piece).
  const std::vector<poplar::Tensor> unflattened = inputs;
  for (const auto &use : compiled.inputs) {
    const poplar::Tensor &t = unflattened[use.tensorIndex];
    inputs[use.tensorIndex] =
        (use.isScalar ? t.flatten() : broadcastTo(t, *shape).dimShuffle(order).flatten())
            .reinterpret(fieldType(use.field));
  }

  // Operands broadcast to the output's shape (a per-channel parameter over an activation, say)
  // are often one element repeated over a whole group: such a group's vertex reads that element
  // once, as a scalar, instead of an exchanged copy of the repetition — with the expression
  // compiled once more for it, those operands given as one element.
  std::vector<unsigned> broadcastOperands;
  for (const auto &use : compiled.inputs)
    if (!use.isScalar && unflattened[use.tensorIndex].numElements() != result.numElements())
      broadcastOperands.push_back(use.tensorIndex);
  std::vector<bool> scalarTensor(ts.size(), false);
  for (const auto &use : compiled.inputs)
    scalarTensor[use.tensorIndex] = use.isScalar;
  // A group spanning several of a broadcast element's repetitions (a per-(sample, channel) gate
  // over a channel-major activation whose tile holds many planes) would read an exchanged copy
  // of every repetition. Cut the groups where the broadcast operands move to their next element
  // instead, when each element covers enough of the output for a scalar read to pay off.
  constexpr std::size_t kMinRepetitionToSplit = 8;
  std::size_t repetition = 0;
  for (unsigned i : broadcastOperands) {
    const std::size_t length = repetitionLength(unflattened[i].shape(), *shape, order);
    repetition = repetition == 0 ? length : std::min(repetition, length);
  }
  if (repetition >= kMinRepetitionToSplit)
    runs = splitAtMultiples(runs, repetition);
  // Operands broadcast only along outer dimensions repeat with a period (a bias row over the
  // rows of an activation): a vertex over one run longer than the period reads the period in
  // place, cycling through it, instead of an exchanged copy of every repetition.
  constexpr std::size_t kMinPeriod = 64;
  std::vector<std::size_t> period(ts.size(), 0);
  for (unsigned i : broadcastOperands)
    if (const std::size_t p = broadcastPeriod(unflattened[i].shape(), *shape, order);
        p >= kMinPeriod)
      period[i] = p;
  std::optional<detail::CompiledMapExpr> withScalars;
  if (!broadcastOperands.empty()) {
    std::vector<poplar::Tensor> oneElement = ts;
    for (unsigned i : broadcastOperands)
      oneElement[i] = ts[i].flatten().slice(0, 1);
    withScalars = detail::compileMapExpr(e, oneElement, names, context);
  }
  auto oneElementRepeated = [](const poplar::Tensor &piece) {
    const auto regions = piece.getVarRegions();
    return !regions.empty() &&
           std::all_of(regions.begin(), regions.end(), [&](const poplar::VariableInterval &r) {
             return r == regions.front() && r.interval.size() == 1;
           });
  };

  poplar::ComputeSet cs = sharedCs ? *sharedCs : graph.addComputeSet({dc, "map"});
  const std::string vertexType = poputil::templateVertex("popops::MapExpr", compiled.outType);
  const std::string vertexType2d = poputil::templateVertex("popops::MapExpr2D", compiled.outType);
  const poplar::Tensor outFlat = result.dimShuffle(order).flatten();
  auto addMapVertex = [&](const std::string &type, const detail::CompiledMapExpr &code,
                          unsigned tile) {
    poplar::VertexRef v = graph.addVertex(cs, type);
    graph.setInitialValue(v["code"], poplar::ArrayRef<std::uint32_t>(code.code));
    graph.setInitialValue(v["consts"], poplar::ArrayRef<std::uint32_t>(code.consts));
    graph.setTileMapping(v, tile);
    return v;
  };
  // One vertex per memory-contiguous group of the output on a tile; operands laid out like
  // the output (clones of it, say) are then contiguous too and need no exchange. A tile with
  // many groups (convolution weights, strided views) gets MapExpr2D vertices over up to
  // kGroupsPer2dVertex groups each instead: the same work without a vertex per group.
  constexpr std::size_t kMinGroupsFor2d = 4, kGroupsPer2dVertex = 1024;
  for (unsigned tile = 0; tile < runs.size(); ++tile) {
    if (runs[tile].empty())
      continue;
    // Each operand's pieces for all of the tile's groups at once (one tensor per group).
    std::vector<std::vector<poplar::Tensor>> pieces(inputs.size());
    for (const auto &use : compiled.inputs)
      if (!use.isScalar && pieces[use.tensorIndex].empty())
        pieces[use.tensorIndex] = inputs[use.tensorIndex].slices(runs[tile]);
    const std::vector<poplar::Tensor> outPieces = outFlat.slices(runs[tile]);
    // Group g's input pieces as `code` reads them, appended to the per-field lists.
    auto appendInputs = [&](std::size_t g, const detail::CompiledMapExpr &code,
                            std::vector<poplar::Tensor>(&lists)[3]) {
      for (const auto &use : code.inputs) {
        const bool whole = scalarTensor[use.tensorIndex]; // one element to begin with
        const poplar::Tensor &piece = whole ? inputs[use.tensorIndex] : pieces[use.tensorIndex][g];
        lists[use.field].push_back(use.isScalar && !whole ? piece.slice(0, 1) : piece);
      }
    };
    auto repeatsOneElement = [&](std::size_t g) {
      return std::all_of(broadcastOperands.begin(), broadcastOperands.end(),
                         [&](unsigned i) { return oneElementRepeated(pieces[i][g]); });
    };
    const std::size_t groups = runs[tile].size();
    const bool twoD = groups >= kMinGroupsFor2d;
    const std::size_t step = twoD ? kGroupsPer2dVertex : 1;
    for (std::size_t first = 0; first < groups; first += step) {
      const std::size_t last = std::min(groups, first + step);
      bool scalars = withScalars.has_value();
      for (std::size_t g = first; scalars && g < last; ++g)
        scalars = repeatsOneElement(g);
      const detail::CompiledMapExpr &code = scalars ? *withScalars : compiled;
      std::vector<poplar::Tensor> lists[3];
      for (std::size_t g = first; g < last; ++g)
        appendInputs(g, code, lists);
      // This vertex's own copy of the program, made only when it reads a periodic input.
      std::optional<detail::CompiledMapExpr> periodicCode;
      if (!twoD && !scalars && runs[tile][first].size() == 1) {
        const poplar::Interval run = runs[tile][first].front();
        std::size_t listed[3] = {0, 0, 0};
        for (std::size_t k = 0; k < code.inputs.size(); ++k) {
          const auto &use = code.inputs[k];
          const std::size_t at = listed[use.field]++;
          const std::size_t p = period[use.tensorIndex];
          if (use.isScalar || p == 0 || run.size() <= p)
            continue;
          if (!periodicCode)
            periodicCode = code;
          std::uint32_t *desc = periodicCode->code.data() + mx::kHeaderWords + k * mx::kInputWords;
          desc[2] = static_cast<std::uint32_t>(mx::InputReading::Periodic);
          desc[3] = static_cast<std::uint32_t>(p);
          desc[4] = static_cast<std::uint32_t>(run.begin() % p);
          lists[use.field][at] = inputs[use.tensorIndex].slice(0, p);
        }
      }
      poplar::VertexRef v =
          addMapVertex(twoD ? vertexType2d : vertexType, periodicCode ? *periodicCode : code, tile);
      graph.connect(v["in4"], lists[0]);
      graph.connect(v["in2"], lists[1]);
      graph.connect(v["in1"], lists[2]);
      if (twoD)
        graph.connect(v["out"], std::vector<poplar::Tensor>(outPieces.begin() + first,
                                                            outPieces.begin() + last));
      else
        graph.connect(v["out"], outPieces[first]);
    }
  }
  if (!sharedCs)
    prog.add(poplar::program::Execute(cs, {dc, "map"}));
  return result;
}

/// Several expressions in one compute set. With `targets` (in-place or given outputs), an input
/// an expression reads that overlaps another expression's target is read from a copy taken
/// before the compute set, so every expression sees the inputs as they were.
std::vector<poplar::Tensor> mapMany(poplar::Graph &graph, const std::vector<expr::Any> &exprs,
                                    const std::vector<poplar::Tensor> &ts,
                                    const std::vector<poplar::Tensor> &targets,
                                    const std::string &context, poplar::program::Sequence &prog,
                                    const poplar::DebugContext &dc,
                                    const poplar::OptionFlags &options) {
  checkOptions(options, context);
  for (std::size_t i = 0; i < ts.size(); ++i)
    if (!ts[i].valid())
      throw poputil::poplibs_error(context + ": tensor " + std::to_string(i + 1) + " (_" +
                                   std::to_string(i + 1) + ") is not a valid tensor");
  for (std::size_t k = 0; k < targets.size(); ++k)
    if (!targets[k].valid())
      throw poputil::poplibs_error(context + ": the output of expression " + std::to_string(k) +
                                   " is not a valid tensor");
  std::vector<poplar::Tensor> results;
  if (exprs.empty())
    return results;
  poplar::ComputeSet cs = graph.addComputeSet({dc, "map"});
  std::vector<std::optional<poplar::Tensor>> copies(ts.size());
  for (std::size_t j = 0; j < exprs.size(); ++j) {
    const expr::Expr &e = exprs[j];
    std::vector<poplar::Tensor> inputs = ts;
    if (!targets.empty())
      for (unsigned index : detail::placeholdersOf(e)) {
        if (index == 0 || index > ts.size())
          continue; // the compiler reports it, naming the expression
        const poplar::Tensor &t = ts[index - 1];
        bool clash = false;
        for (std::size_t k = 0; k < targets.size(); ++k)
          clash = clash || (k != j && t.intersectsWith(targets[k]));
        if (!clash)
          continue;
        if (!copies[index - 1]) {
          copies[index - 1] = graph.clone(t, {dc, "inputBeforeMap"});
          prog.add(poplar::program::Copy(t, *copies[index - 1], false, {dc, "copyInput"}));
        }
        inputs[index - 1] = *copies[index - 1];
      }
    const std::string what = context + " (expression " + std::to_string(j) + ")";
    if (targets.empty())
      results.push_back(
          mapImpl(graph, e, inputs, std::nullopt, Mode::New, prog, dc, options, &cs, what));
    else
      results.push_back(
          mapImpl(graph, e, inputs, targets[j], Mode::WithOutput, prog, dc, options, &cs, what));
  }
  prog.add(poplar::program::Execute(cs, {dc, "map"}));
  return results;
}

} // namespace

std::vector<poplar::Tensor> map(poplar::Graph &graph, const std::vector<expr::Any> &exprs,
                                const std::vector<poplar::Tensor> &ts,
                                poplar::program::Sequence &prog,
                                const poplar::DebugContext &debugContext,
                                const poplar::OptionFlags &options) {
  return mapMany(graph, exprs, ts, {}, "popops::map", prog, debugContext, options);
}

void mapInPlace(poplar::Graph &graph, const std::vector<expr::Any> &exprs,
                const std::vector<poplar::Tensor> &ts, poplar::program::Sequence &prog,
                const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  if (ts.size() < exprs.size())
    throw poputil::poplibs_error("popops::mapInPlace: " + std::to_string(exprs.size()) +
                                 " expressions write tensors _1 to _" +
                                 std::to_string(exprs.size()) + " but only " +
                                 std::to_string(ts.size()) + " tensors are given");
  mapMany(graph, exprs, ts, std::vector<poplar::Tensor>(ts.begin(), ts.begin() + exprs.size()),
          "popops::mapInPlace", prog, debugContext, options);
}

void mapWithOutput(poplar::Graph &graph, const std::vector<expr::Any> &exprs,
                   const std::vector<poplar::Tensor> &ts, const std::vector<poplar::Tensor> &outs,
                   poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                   const poplar::OptionFlags &options) {
  if (outs.size() != exprs.size())
    throw poputil::poplibs_error("popops::mapWithOutput: " + std::to_string(exprs.size()) +
                                 " expressions need as many outputs, got " +
                                 std::to_string(outs.size()));
  mapMany(graph, exprs, ts, outs, "popops::mapWithOutput", prog, debugContext, options);
}

poplar::Tensor map(poplar::Graph &graph, const expr::Expr &expr,
                   const std::vector<poplar::Tensor> &ts, poplar::program::Sequence &prog,
                   const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return mapImpl(graph, expr, ts, std::nullopt, Mode::New, prog, debugContext, options);
}

void mapInPlace(poplar::Graph &graph, const expr::Expr &expr, const std::vector<poplar::Tensor> &ts,
                poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                const poplar::OptionFlags &options) {
  mapImpl(graph, expr, ts, std::nullopt, Mode::InPlace, prog, debugContext, options);
}

void mapWithOutput(poplar::Graph &graph, const expr::Expr &expr,
                   const std::vector<poplar::Tensor> &ts, const poplar::Tensor &out,
                   poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                   const poplar::OptionFlags &options) {
  if (!out.valid())
    throw poputil::poplibs_error("popops::mapWithOutput: the output is not a valid tensor");
  mapImpl(graph, expr, ts, out, Mode::WithOutput, prog, debugContext, options);
}

namespace {

/// The variance conversions with a result type: computed in src's type, converted once.
poplar::Tensor convertVariance(poplar::Graph &graph, const poplar::Tensor &src,
                               const poplar::Tensor &epsilon, poplar::program::Sequence &prog,
                               const poplar::Type &dstType, const poplar::DebugContext &dc,
                               expr::BinaryOpType op, const poplar::Type &widerType,
                               const std::string &context) {
  if (!src.valid() || !epsilon.valid())
    throw poputil::poplibs_error(context + ": src and epsilon must be valid tensors");
  if (dstType != widerType && dstType != src.elementType())
    throw poputil::poplibs_error(context + ": dstType " + dstType.toString() + " must be " +
                                 widerType.toString() + " or the type of src " +
                                 poputil::describe(src) + " (" + src.elementType().toString() +
                                 ")");
  if (epsilon.numElements() != 1 || epsilon.elementType() != src.elementType())
    throw poputil::poplibs_error(context + ": epsilon " + poputil::describe(epsilon) +
                                 " must be one element of " + src.elementType().toString() +
                                 ", the type of src");
  const expr::BinaryOp e(op, expr::_1, expr::_2);
  if (dstType == src.elementType())
    return mapImpl(graph, e, {src, epsilon}, std::nullopt, Mode::New, prog, dc, {}, nullptr,
                   context);
  return mapImpl(graph, expr::Cast(e, dstType), {src, epsilon}, std::nullopt, Mode::New, prog, dc,
                 {}, nullptr, context);
}

poplar::Tensor epsilonConstant(poplar::Graph &graph, const poplar::Tensor &src, float epsilon,
                               const poplar::DebugContext &dc) {
  poplar::Tensor t = graph.addConstant(src.elementType(), {}, epsilon, {dc, "epsilon"});
  graph.setTileMapping(t, 0);
  return t;
}

} // namespace

poplar::Tensor varianceToInvStdDev(poplar::Graph &graph, const poplar::Tensor &src,
                                   const poplar::Tensor &epsilon, poplar::program::Sequence &prog,
                                   const poplar::Type dstType,
                                   const poplar::DebugContext &debugContext) {
  return convertVariance(graph, src, epsilon, prog, dstType, debugContext,
                         expr::BinaryOpType::VARIANCE_TO_INV_STD_DEV, poplar::HALF,
                         "popops::varianceToInvStdDev");
}

poplar::Tensor varianceToInvStdDev(poplar::Graph &graph, const poplar::Tensor &src,
                                   const float epsilon, poplar::program::Sequence &prog,
                                   const poplar::Type dstType,
                                   const poplar::DebugContext &debugContext) {
  if (!src.valid())
    throw poputil::poplibs_error("popops::varianceToInvStdDev: src must be a valid tensor");
  return varianceToInvStdDev(graph, src, epsilonConstant(graph, src, epsilon, debugContext), prog,
                             dstType, debugContext);
}

poplar::Tensor invStdDevToVariance(poplar::Graph &graph, const poplar::Tensor &src,
                                   const poplar::Tensor &epsilon, poplar::program::Sequence &prog,
                                   const poplar::Type dstType,
                                   const poplar::DebugContext &debugContext) {
  return convertVariance(graph, src, epsilon, prog, dstType, debugContext,
                         expr::BinaryOpType::INV_STD_DEV_TO_VARIANCE, poplar::FLOAT,
                         "popops::invStdDevToVariance");
}

poplar::Tensor invStdDevToVariance(poplar::Graph &graph, const poplar::Tensor &src,
                                   const float epsilon, poplar::program::Sequence &prog,
                                   const poplar::Type dstType,
                                   const poplar::DebugContext &debugContext) {
  if (!src.valid())
    throw poputil::poplibs_error("popops::invStdDevToVariance: src must be a valid tensor");
  return invStdDevToVariance(graph, src, epsilonConstant(graph, src, epsilon, debugContext), prog,
                             dstType, debugContext);
}

} // namespace popops
