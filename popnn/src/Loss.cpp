// popnn losses, accuracy and arg max/min/top-k, composed from popops maps, reductions and topK.
#include <popnn/Loss.hpp>

#include <algorithm>
#include <vector>

#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <popops/TopK.hpp>
#include <poputil/TileMapping.hpp>

#include "NnChecks.hpp"
#include "RowBlocks.hpp"

namespace popnn {
namespace {

using namespace popops::expr;
using poplar::Tensor;

void checkLabels(const std::string &fn, const Tensor &modelOutputs, const Tensor &expected) {
  detail::requireFloatType(fn, "modelOutputs", modelOutputs);
  if (modelOutputs.rank() != 2)
    detail::fail(fn, "modelOutputs", modelOutputs, "must be 2-D [batch][classes]");
  if (expected.elementType() != poplar::UNSIGNED_INT && expected.elementType() != poplar::INT)
    detail::fail(fn, "expected", expected, "must be UNSIGNED_INT or INT labels");
  detail::requireShape(fn, "expected", expected, {modelOutputs.dim(0)});
}

/// [classes] constant 0, 1, … of the labels' type, spread over tiles.
Tensor classIndices(poplar::Graph &graph, const Tensor &expected, std::size_t classes,
                    const poplar::DebugContext &dc) {
  std::vector<unsigned> iota(classes);
  for (std::size_t i = 0; i < classes; ++i)
    iota[i] = static_cast<unsigned>(i);
  Tensor t = graph.addConstant<unsigned>(expected.elementType(), {classes}, iota, {dc, "classes"});
  poputil::mapTensorLinearly(graph, t);
  return t;
}

Const maskedCode(const Tensor &expected) {
  if (expected.elementType() == poplar::INT)
    return Const(-1);
  return Const(MASKED_LABEL_CODE);
}

Tensor scalarOne(poplar::Graph &graph, const poplar::Type &type, const poplar::DebugContext &dc) {
  Tensor t = graph.addConstant<float>(type, {1}, 1.0f, dc);
  graph.setTileMapping(t, 0);
  return t;
}

/// FLOAT: one popnn::LossRows vertex per block of rows (see rowBlocks). With `correct` (INT
/// [rows], mapped here), LossRowsWithAccuracy vertices also write whether each row's label is its
/// argmax (1 or 0).
void lossRowsVertices(poplar::Graph &graph, const Tensor &modelOutputs, const Tensor &expected,
                      const Tensor &loss, const Tensor &deltas, const Tensor &deltasScale,
                      const Tensor &modelOutputScaling, bool crossEntropy, const Tensor *correct,
                      poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const std::size_t classes = modelOutputs.dim(1);
  // INT labels: -1 reinterprets as MASKED_LABEL_CODE, any other negative as out of range.
  const Tensor labels =
      expected.elementType() == poplar::INT ? expected.reinterpret(poplar::UNSIGNED_INT) : expected;
  poplar::ComputeSet cs = graph.addComputeSet({dc, "lossRows"});
  for (const detail::RowBlock &block : detail::rowBlocks(graph, modelOutputs)) {
    const std::size_t first = block.first, last = block.last;
    auto v = graph.addVertex(
        cs, correct ? "popnn::LossRowsWithAccuracy<float>" : "popnn::LossRows<float>",
        {{"modelOutputs", modelOutputs.slice(first, last).flatten()},
         {"labels", labels.slice(first, last)},
         {"deltasScale", deltasScale.flatten()[0]},
         {"modelOutputScaling", modelOutputScaling.flatten()[0]},
         {"deltas", deltas.slice(first, last).flatten()},
         {"loss", loss.slice(first, last)}});
    graph.setInitialValue(v["rowLength"], static_cast<unsigned>(classes));
    graph.setInitialValue(v["crossEntropy"], crossEntropy);
    graph.setTileMapping(v, block.tile);
    if (correct) {
      graph.setTileMapping(correct->slice(first, last), block.tile);
      graph.connect(v["correct"], correct->slice(first, last));
    }
  }
  prog.add(poplar::program::Execute(cs, {dc, "lossRows"}));
}

} // namespace

namespace {

void checkNumCorrect(const std::string &fn, const Tensor &numCorrect) {
  if (numCorrect.numElements() != 1 || numCorrect.elementType() != poplar::UNSIGNED_INT)
    detail::fail(fn, "numCorrect", numCorrect, "must be one UNSIGNED_INT element");
}

/// numCorrect += the batch's count of correct rows (PopLibs' accuracy vertex reads numCorrect and
/// adds the count, so a program that zeroes it once can accumulate over many batches).
void addCount(poplar::Graph &graph, const Tensor &correct, const Tensor &numCorrect,
              poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const Tensor count =
      popops::reduce(graph, correct, {0}, popops::Operation::ADD, prog, {dc, "count"});
  popops::mapInPlace(graph, _1 + Cast(_2, poplar::UNSIGNED_INT),
                     {numCorrect.reshape({1}), count.reshape({1})}, prog, {dc, "numCorrect"});
}

/// calcLoss, and with `numCorrect` the accuracy too: FLOAT outputs count correct rows in the loss
/// vertices' pass over each row; other types run calcAccuracy after the loss.
poplar::program::Program calcLossImpl(poplar::Graph &graph, const Tensor &modelOutputs,
                                      const Tensor &expected, const Tensor &loss,
                                      const Tensor &deltas, const Tensor &deltasScale,
                                      const Tensor &modelOutputScaling, const Tensor *numCorrect,
                                      LossType lossType, const poplar::DebugContext &debugContext) {
  const std::string fn = "popnn::calcLoss";
  checkLabels(fn, modelOutputs, expected);
  const poplar::Type type = modelOutputs.elementType();
  const std::size_t batch = modelOutputs.dim(0), classes = modelOutputs.dim(1);
  detail::requireShape(fn, "loss", loss, {batch});
  detail::requireShape(fn, "deltas", deltas, modelOutputs.shape());
  detail::requireSameType(fn, "deltas", deltas, type);
  detail::requireFloatType(fn, "loss", loss);
  if (deltasScale.numElements() != 1)
    detail::fail(fn, "deltasScale", deltasScale, "must have one element");
  if (modelOutputScaling.numElements() != 1)
    detail::fail(fn, "modelOutputScaling", modelOutputScaling, "must have one element");
  if (numCorrect)
    checkNumCorrect(fn, *numCorrect);
  const poplar::DebugContext dc(debugContext, "calcLoss");
  poplar::program::Sequence prog;
  if (lossType != SUM_SQUARED_LOSS && lossType != CROSS_ENTROPY_LOSS)
    throw poputil::poplibs_error(detail::cat(fn, ": unknown lossType ", int(lossType)));
  if (lossType == CROSS_ENTROPY_LOSS) {
    detail::requireSameType(fn, "deltasScale", deltasScale, type);
    detail::requireSameType(fn, "modelOutputScaling", modelOutputScaling, type);
  }
  if (type == poplar::FLOAT && loss.elementType() == poplar::FLOAT &&
      deltasScale.elementType() == poplar::FLOAT &&
      modelOutputScaling.elementType() == poplar::FLOAT) {
    if (!numCorrect) {
      lossRowsVertices(graph, modelOutputs, expected, loss, deltas, deltasScale, modelOutputScaling,
                       lossType == CROSS_ENTROPY_LOSS, nullptr, prog, dc);
      return prog;
    }
    const Tensor correct = graph.addVariable(poplar::INT, {batch}, {dc, "correct"});
    lossRowsVertices(graph, modelOutputs, expected, loss, deltas, deltasScale, modelOutputScaling,
                     lossType == CROSS_ENTROPY_LOSS, &correct, prog, dc);
    addCount(graph, correct, *numCorrect, prog, {debugContext, "calcAccuracy"});
    return prog;
  }
  if (numCorrect) {
    prog.add(calcLossImpl(graph, modelOutputs, expected, loss, deltas, deltasScale,
                          modelOutputScaling, nullptr, lossType, debugContext));
    prog.add(calcAccuracy(graph, modelOutputs, expected, *numCorrect, debugContext));
    return prog;
  }
  // HALF: composed from popops maps and a reduction.
  const Tensor labels = expected.reshape({batch, 1});
  const Tensor iota = classIndices(graph, expected, classes, dc);
  // _1 x, _2 labels, _3 class index; onehot = label == class, valid = label != MASKED.
  const auto onehot = Cast(_2 == _3, type);
  const auto valid = Cast(_2 != maskedCode(expected), type);
  if (lossType == SUM_SQUARED_LOSS) {
    popops::mapWithOutput(graph, (_1 - onehot) * valid, {modelOutputs, labels, iota}, deltas, prog,
                          {dc, "deltas"});
    const Tensor sq = popops::reduce(graph, deltas, loss.elementType(), {1},
                                     popops::Operation::SQUARE_ADD, prog, {dc, "sumSquares"});
    popops::mapWithOutput(graph, _1 * 0.5f, {sq}, loss, prog, {dc, "loss"});
    return prog;
  }
  const Tensor ds = deltasScale.reshape({1}), mos = modelOutputScaling.reshape({1});
  // p = x / modelOutputScaling; deltas = (p - onehot) * deltasScale * valid.
  popops::mapWithOutput(graph, (_1 / _4 - onehot) * _5 * valid,
                        {modelOutputs, labels, iota, mos, ds}, deltas, prog, {dc, "deltas"});
  // -log(max(p_label, tiny)) picked by the one-hot mask, 0 for masked rows.
  const Tensor picked =
      popops::map(graph, Select(-Log(Max(_1 / _4, Const(1.17549435e-38f))), Const(0.0f), _2 == _3),
                  {modelOutputs, labels, iota, mos}, prog, {dc, "negLogProb"});
  popops::reduceWithOutput(graph, picked, loss, {1}, popops::Operation::ADD, prog, {dc, "loss"});
  return prog;
}

} // namespace

poplar::program::Program calcLoss(poplar::Graph &graph, const Tensor &modelOutputs,
                                  const Tensor &expected, const Tensor &loss, const Tensor &deltas,
                                  const Tensor &deltasScale, const Tensor &modelOutputScaling,
                                  LossType lossType, const poplar::DebugContext &debugContext) {
  return calcLossImpl(graph, modelOutputs, expected, loss, deltas, deltasScale, modelOutputScaling,
                      nullptr, lossType, debugContext);
}

poplar::program::Program calcLoss(poplar::Graph &graph, const Tensor &modelOutputs,
                                  const Tensor &expected, const Tensor &loss, const Tensor &deltas,
                                  LossType lossType, const poplar::DebugContext &debugContext) {
  const poplar::Type type =
      modelOutputs.valid() ? modelOutputs.elementType() : poplar::Type(poplar::FLOAT);
  const Tensor one = scalarOne(graph, type, {debugContext, "one"});
  return calcLoss(graph, modelOutputs, expected, loss, deltas, one, one, lossType, debugContext);
}

poplar::program::Program calcLoss(poplar::Graph &graph, const Tensor &modelOutputs,
                                  const Tensor &expected, const Tensor &loss, const Tensor &deltas,
                                  const Tensor &deltasScale, const Tensor &modelOutputScaling,
                                  const Tensor &numCorrect, LossType lossType,
                                  const poplar::DebugContext &debugContext) {
  return calcLossImpl(graph, modelOutputs, expected, loss, deltas, deltasScale, modelOutputScaling,
                      &numCorrect, lossType, debugContext);
}

poplar::program::Program calcLoss(poplar::Graph &graph, const Tensor &modelOutputs,
                                  const Tensor &expected, const Tensor &loss, const Tensor &deltas,
                                  const Tensor &numCorrect, LossType lossType,
                                  const poplar::DebugContext &debugContext) {
  const poplar::Type type =
      modelOutputs.valid() ? modelOutputs.elementType() : poplar::Type(poplar::FLOAT);
  const Tensor one = scalarOne(graph, type, {debugContext, "one"});
  return calcLossImpl(graph, modelOutputs, expected, loss, deltas, one, one, &numCorrect, lossType,
                      debugContext);
}

poplar::program::Program calcAccuracy(poplar::Graph &graph, const Tensor &modelOutputs,
                                      const Tensor &expected, const Tensor &numCorrect,
                                      const poplar::DebugContext &debugContext) {
  const std::string fn = "popnn::calcAccuracy";
  checkLabels(fn, modelOutputs, expected);
  checkNumCorrect(fn, numCorrect);
  const poplar::DebugContext dc(debugContext, "calcAccuracy");
  poplar::program::Sequence prog;
  const Tensor best = argMax(graph, modelOutputs, prog, dc);
  const Tensor correct = popops::map(graph, Cast(Cast(_1, poplar::UNSIGNED_INT) == _2, poplar::INT),
                                     {expected, best}, prog, {dc, "correct"});
  addCount(graph, correct, numCorrect, prog, dc);
  return prog;
}

namespace {
/// (value, index) of the largest (or smallest) element of each row; the lowest index wins ties.
std::pair<Tensor, Tensor> best(poplar::Graph &graph, const Tensor &input, bool largest,
                               poplar::program::Sequence &prog, const poplar::DebugContext &dc,
                               const std::string &fn) {
  if (input.rank() != 2)
    detail::fail(fn, "input", input, "must be 2-D [rows][values]");
  const auto [values, indices] = popops::topKWithPermutation(
      graph, prog, input, popops::TopKParams(1, largest, popops::SortOrder::NONE), dc);
  return {values.reshape({input.dim(0)}), indices.reshape({input.dim(0)})};
}
} // namespace

Tensor argMax(poplar::Graph &graph, const Tensor &input, poplar::program::Sequence &prog,
              const poplar::DebugContext &debugContext) {
  return best(graph, input, true, prog, {debugContext, "argMax"}, "popnn::argMax").second;
}

Tensor argMin(poplar::Graph &graph, const Tensor &input, poplar::program::Sequence &prog,
              const poplar::DebugContext &debugContext) {
  return best(graph, input, false, prog, {debugContext, "argMin"}, "popnn::argMin").second;
}

std::pair<Tensor, Tensor> maxAndArgMax(poplar::Graph &graph, const Tensor &input,
                                       poplar::program::Sequence &prog,
                                       const poplar::DebugContext &debugContext) {
  return best(graph, input, true, prog, {debugContext, "maxAndArgMax"}, "popnn::maxAndArgMax");
}

std::pair<Tensor, Tensor> minAndArgMin(poplar::Graph &graph, const Tensor &input,
                                       poplar::program::Sequence &prog,
                                       const poplar::DebugContext &debugContext) {
  return best(graph, input, false, prog, {debugContext, "minAndArgMin"}, "popnn::minAndArgMin");
}

Tensor topK(poplar::Graph &graph, const Tensor &input, Tensor &indices, unsigned K, bool sort,
            poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  if (input.rank() != 2)
    detail::fail("popnn::topK", "input", input, "must be 2-D [rows][values]");
  auto [values, idx] = popops::topKWithPermutation(
      graph, prog, input,
      popops::TopKParams(K, true, sort ? popops::SortOrder::DESCENDING : popops::SortOrder::NONE),
      {debugContext, "topK"});
  indices = idx;
  return values;
}

} // namespace popnn
