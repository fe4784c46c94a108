#include "SoftmaxRows.hpp"

#include <poplar/Program.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>

#include "RowBlocks.hpp"

namespace popnn::detail {
namespace {

/// [rows][innermost] view of any tensor of rank >= 1.
poplar::Tensor asRows(const poplar::Tensor &t) {
  const std::size_t cols = t.dim(t.rank() - 1);
  return t.reshape({t.numElements() / cols, cols});
}

/// FLOAT rows: one SoftmaxRows vertex per block of rows (see rowBlocks); a row straddling
/// tiles is brought to its vertex by the exchange. `out` must not alias `t`.
void softmaxRowsVertices(poplar::Graph &graph, const poplar::Tensor &x, const poplar::Tensor &out,
                         bool log, float scale, poplar::program::Sequence &prog,
                         const poplar::DebugContext &dc) {
  const std::size_t cols = x.dim(1);
  poplar::ComputeSet cs = graph.addComputeSet({dc, "softmaxRows"});
  for (const RowBlock &block : rowBlocks(graph, x)) {
    const std::size_t first = block.first, last = block.last;
    auto v = graph.addVertex(
        cs, "popnn::SoftmaxRows<float>",
        {{"in", x.slice(first, last).flatten()}, {"out", out.slice(first, last).flatten()}});
    graph.setInitialValue(v["rowLength"], static_cast<unsigned>(cols));
    graph.setInitialValue(v["scale"], scale);
    graph.setInitialValue(v["logSoftmax"], log);
    graph.setTileMapping(v, block.tile);
  }
  prog.add(poplar::program::Execute(cs, {dc, "softmaxRows"}));
}

} // namespace

void softmaxRows(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &out, bool log,
                 float scale, poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  using namespace popops::expr;
  const poplar::Tensor x = asRows(t);
  const std::size_t rows = x.dim(0);
  if (t.elementType() == poplar::FLOAT && x.numElements() != 0) {
    if (!out.intersectsWith(t)) {
      softmaxRowsVertices(graph, x, asRows(out), log, scale, prog, dc);
      return;
    }
    const poplar::Tensor tmp = graph.clone(out, {dc, "result"});
    softmaxRowsVertices(graph, x, asRows(tmp), log, scale, prog, dc);
    prog.add(poplar::program::Copy(tmp, out, false, {dc, "inPlace"}));
    return;
  }
  // HALF: composed from popops reductions and maps.
  // Max-subtracted: x - max is exact for the elements that matter, so no large logits lose
  // precision (exp(x - logSumExp) would round logSumExp at the logits' magnitude).
  const poplar::Tensor max =
      popops::reduce(graph, x, {1}, popops::Operation::MAX, prog, {dc, "max"}).reshape({rows, 1});
  const poplar::Tensor e = popops::map(graph, Exp(_1 - _2), {x, max}, prog, {dc, "exp"});
  const poplar::Tensor sum =
      popops::reduce(graph, e, {1}, popops::Operation::ADD, prog, {dc, "sum"}).reshape({rows, 1});
  if (log)
    popops::mapWithOutput(graph, _1 - _2 - Log(_3), {x, max, sum}, asRows(out), prog,
                          {dc, "logSoftmax"});
  else if (scale == 1.0f)
    popops::mapWithOutput(graph, _1 / _2, {e, sum}, asRows(out), prog, {dc, "softmax"});
  else
    popops::mapWithOutput(graph, _1 * (scale / _2), {e, sum}, asRows(out), prog,
                          {dc, "softmaxScaled"});
}

poplar::Tensor softmaxRowsGradient(poplar::Graph &graph, const poplar::Tensor &y,
                                   const poplar::Tensor &g, bool log,
                                   poplar::program::Sequence &prog,
                                   const poplar::DebugContext &dc) {
  using namespace popops::expr;
  const poplar::Tensor yr = asRows(y), gr = asRows(g);
  poplar::Tensor result;
  if (log) {
    // d/dx of log-softmax: g - softmax * sum(g).
    const poplar::Tensor sum =
        popops::reduce(graph, gr, {1}, popops::Operation::ADD, prog, {dc, "sumGrad"});
    result = popops::map(graph, _1 - Exp(_2) * _3, {gr, yr, sum.reshape({sum.numElements(), 1})},
                         prog, {dc, "logSoftmaxGrad"});
  } else {
    // d/dx of softmax: y * (g - sum(g * y)).
    const poplar::Tensor gy = popops::map(graph, _1 * _2, {gr, yr}, prog, {dc, "gradTimesOut"});
    const poplar::Tensor sum =
        popops::reduce(graph, gy, {1}, popops::Operation::ADD, prog, {dc, "sumGradTimesOut"});
    result = popops::map(graph, _1 * (_2 - _3), {yr, gr, sum.reshape({sum.numElements(), 1})}, prog,
                         {dc, "softmaxGrad"});
  }
  return result.reshape(y.shape());
}

} // namespace popnn::detail
