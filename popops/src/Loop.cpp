// countedLoop: Repeat of (body; counter += step) with the counter initialised by a Copy.
// countedForLoop: RepeatWhileTrue whose condition program advances the counter and compares it
// with the limit, the counter starting one step before initialCount.
#include <popops/Loop.hpp>

#include <limits>
#include <string>

#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

namespace popops {

poplar::program::Sequence countedLoop(poplar::Graph &graph, std::size_t begin, std::size_t end,
                                      size_t step, const CountedLoopBodyType &body,
                                      const poplar::DebugContext &debugContext) {
  if (step == 0)
    throw poputil::poplibs_error("popops::countedLoop: step must be greater than zero");
  if (begin >= end)
    throw poputil::poplibs_error("popops::countedLoop: begin (" + std::to_string(begin) +
                                 ") must be less than end (" + std::to_string(end) + ")");
  const std::size_t passes = (end - begin + step - 1) / step;
  if (end > std::numeric_limits<unsigned>::max() || passes > std::numeric_limits<unsigned>::max())
    throw poputil::poplibs_error("popops::countedLoop: end (" + std::to_string(end) +
                                 ") does not fit the UNSIGNED_INT counter");
  poplar::Tensor counter = graph.addVariable(poplar::UNSIGNED_INT, {1}, {debugContext, "counter"});
  graph.setTileMapping(counter, 0);
  poplar::Tensor first = graph.addConstant(poplar::UNSIGNED_INT, {1}, static_cast<unsigned>(begin),
                                           {debugContext, "begin"});
  graph.setTileMapping(first, 0);

  poplar::program::Sequence prog({}, debugContext);
  prog.add(poplar::program::Copy(first, counter, false, {debugContext, "initCounter"}));

  poplar::program::Sequence pass;
  pass.add(body(counter));
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "stepCounter"});
  auto v = graph.addVertex(cs, "popops::LoopCounterStep", {{"count", counter.reshape({})}});
  graph.setInitialValue(v["increment"], static_cast<unsigned>(step));
  graph.setTileMapping(v, 0);
  pass.add(poplar::program::Execute(cs, {debugContext, "stepCounter"}));

  prog.add(poplar::program::Repeat(static_cast<unsigned>(passes), pass, {debugContext, "loop"}));
  return prog;
}

poplar::program::Sequence countedLoop(poplar::Graph &graph, std::size_t count,
                                      const CountedLoopBodyType &body,
                                      const poplar::DebugContext &debugContext) {
  return countedLoop(graph, 0, count, 1, body, debugContext);
}

poplar::Tensor addForLoopCounterVertex(poplar::Graph &graph, const poplar::Tensor &count,
                                       const poplar::Tensor &countLimit, int countStep,
                                       unsigned tile, poplar::program::Sequence &prog,
                                       const poplar::DebugContext &di) {
  poplar::Tensor predicate = graph.addVariable(poplar::UNSIGNED_INT, {}, {di, "predicate"});
  graph.setTileMapping(predicate, tile);
  poplar::ComputeSet cs = graph.addComputeSet({di, "forLoopCounter"});
  auto v =
      graph.addVertex(cs, poputil::templateVertex("popops::ForLoopCounter", count.elementType()),
                      {{"count", count.reshape({})},
                       {"limit", countLimit.reshape({})},
                       {"comparisonResult", predicate}});
  graph.setInitialValue(v["increment"], countStep);
  graph.setTileMapping(v, tile);
  prog.add(poplar::program::Execute(cs, {di, "forLoopCounter"}));
  return predicate;
}

poplar::program::Sequence countedForLoop(poplar::Graph &graph, const poplar::Tensor &count,
                                         int initialCount, const poplar::Tensor &countLimit,
                                         int countStep, const poplar::program::Program &body,
                                         const poplar::DebugContext &debugContext) {
  const poplar::Type type = count.elementType();
  if (type != poplar::INT && type != poplar::UNSIGNED_INT)
    throw poputil::poplibs_error("popops::countedForLoop: count must be INT or UNSIGNED_INT, got " +
                                 count.shortString());
  if (countLimit.elementType() != type)
    throw poputil::poplibs_error("popops::countedForLoop: countLimit " + countLimit.shortString() +
                                 " must have count's type " + type.toString());
  if (count.numElements() != 1)
    throw poputil::poplibs_error("popops::countedForLoop: count must have one element, got " +
                                 count.shortString());
  if (countLimit.numElements() != 1)
    throw poputil::poplibs_error("popops::countedForLoop: countLimit must have one element, got " +
                                 countLimit.shortString());
  poplar::program::Sequence prog({}, debugContext);
  // The condition steps before it compares, so start one step early: the body then sees
  // initialCount, initialCount + countStep, …
  const unsigned start = static_cast<unsigned>(initialCount) - static_cast<unsigned>(countStep);
  poplar::Tensor initial = graph.addConstant(type, {}, start, {debugContext, "initialCount"});
  graph.setTileMapping(initial, 0);
  prog.add(poplar::program::Copy(initial, count.reshape({}), false, {debugContext, "initCount"}));
  poplar::program::Sequence condition;
  poplar::Tensor predicate =
      addForLoopCounterVertex(graph, count, countLimit, countStep, 0, condition, debugContext);
  prog.add(poplar::program::RepeatWhileTrue(condition, predicate, body, {debugContext, "loop"}));
  return prog;
}

poplar::program::Sequence countedForLoop(poplar::Graph &graph, int initialCount,
                                         const poplar::Tensor &countLimit, int countStep,
                                         const poplar::program::Program &body,
                                         const poplar::DebugContext &debugContext) {
  if (countLimit.elementType() != poplar::INT && countLimit.elementType() != poplar::UNSIGNED_INT)
    throw poputil::poplibs_error(
        "popops::countedForLoop: countLimit must be INT or UNSIGNED_INT, got " +
        countLimit.shortString());
  poplar::Tensor count = graph.addVariable(countLimit.elementType(), {}, {debugContext, "count"});
  graph.setTileMapping(count, 0);
  return countedForLoop(graph, count, initialCount, countLimit, countStep, body, debugContext);
}

} // namespace popops
