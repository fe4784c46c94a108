// <poplar/CSRFunctions.hpp>: FloatMode program nodes; the engine's step loop keeps the mode and
// checks the host's floating-point flags after each vertex while a trap is on.
#include <poplar/CSRFunctions.hpp>

#include <memory>

#include <poplar/exceptions.hpp>

#include "core/FloatModeBits.hpp"
#include "core/GraphData.hpp"
#include "core/ProgramNode.hpp"

namespace poplar {

namespace {

using core::ProgramNode;

std::uint32_t bitsOf(const FloatingPointBehaviour &b) {
  return (b.inv ? core::kFloatInv : 0) | (b.div0 ? core::kFloatDiv0 : 0) |
         (b.oflo ? core::kFloatOflo : 0) | (b.esr ? core::kFloatEsr : 0) |
         (b.nanoo ? core::kFloatNanoo : 0);
}

std::shared_ptr<ProgramNode> modeNode(const DebugContext &dc, const char *name, std::uint32_t clear,
                                      std::uint32_t set) {
  auto n = std::make_shared<ProgramNode>();
  n->kind = ProgramNode::Kind::FloatMode;
  n->name = DebugContext(dc, name).getPathName();
  n->count = clear | (set << 8);
  return n;
}

} // namespace

void setFloatingPointBehaviour(Graph &, program::Sequence &prog,
                               const FloatingPointBehaviour &behaviour,
                               const DebugContext &debugContext) {
  prog.add(program::Program(
      modeNode(debugContext, "setFloatingPointBehaviour", core::kFloatAll, bitsOf(behaviour))));
}

void setStochasticRounding(Graph &, program::Sequence &prog, bool behaviour,
                           const DebugContext &debugContext) {
  prog.add(program::Program(modeNode(debugContext, "setStochasticRounding", core::kFloatEsr,
                                     behaviour ? core::kFloatEsr : 0)));
}

Tensor getAndModifyFloatingPointBehaviour(Graph &graph, program::Sequence &prog,
                                          const FloatingPointBehaviour &clear,
                                          const FloatingPointBehaviour &set,
                                          const DebugContext &debugContext) {
  const unsigned tiles = graph.getTarget().getNumTiles();
  Tensor saved = graph.addVariable(UNSIGNED_INT, {tiles},
                                   {debugContext, "getAndModifyFloatingPointBehaviour/saved"});
  for (unsigned t = 0; t < tiles; ++t)
    graph.setTileMapping(saved[t], t);
  auto n = modeNode(debugContext, "getAndModifyFloatingPointBehaviour", bitsOf(clear), bitsOf(set));
  n->dst = saved;
  prog.add(program::Program(std::move(n)));
  return saved;
}

void setFloatingPointBehaviour(Graph &, program::Sequence &prog, const Tensor &behaviour,
                               const DebugContext &debugContext) {
  if (!behaviour.valid() || behaviour.elementType() != UNSIGNED_INT || behaviour.numElements() == 0)
    throw type_error("setFloatingPointBehaviour: the saved state " +
                     (behaviour.valid() ? core::describe(behaviour) : std::string("(invalid)")) +
                     " must be a non-empty UNSIGNED_INT tensor, as "
                     "getAndModifyFloatingPointBehaviour returns");
  auto n = modeNode(debugContext, "setFloatingPointBehaviour", 0, 0);
  n->src = behaviour;
  prog.add(program::Program(std::move(n)));
}

} // namespace poplar
