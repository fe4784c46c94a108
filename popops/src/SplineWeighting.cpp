// popops::splineWeighting: check the operands, create the output mapped linearly, then one
// popops::SplineWeighting<T> vertex per run of it on each tile, reading the input, basis and
// weight-index rows of the edges that run covers and the whole weight tensor.
#include <popops/SplineWeighting.hpp>

#include <string>

#include <poputil/Describe.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "TileRegions.hpp"

namespace popops {

namespace {

const char *const kWhat = "popops::splineWeighting";

[[noreturn]] void fail(const std::string &role, const poplar::Tensor &t,
                       const std::string &expected) {
  throw poputil::poplibs_error(std::string(kWhat) + ": the " + role + " tensor " +
                               poputil::describe(t) + " " + expected);
}

void checkOperands(const poplar::Tensor &input, const poplar::Tensor &weight,
                   const poplar::Tensor &basis, const poplar::Tensor &weightIndex) {
  if (input.rank() != 2)
    fail("input", input, "must be 2-dimensional (numEdges x numInputChannels)");
  const poplar::Type type = input.elementType();
  if (type != poplar::FLOAT && type != poplar::HALF)
    fail("input", input, "must hold float or half");
  if (weight.rank() != 3)
    fail("weight", weight,
         "must be 3-dimensional (numKernelPoints x numInputChannels x numOutputChannels)");
  if (weight.elementType() != type)
    fail("weight", weight, "must hold " + type.toString() + " as the input does");
  if (basis.rank() != 2)
    fail("basis", basis, "must be 2-dimensional (numEdges x numSplines)");
  if (basis.elementType() != type)
    fail("basis", basis, "must hold " + type.toString() + " as the input does");
  if (weightIndex.rank() != 2)
    fail("weightIndex", weightIndex, "must be 2-dimensional (numEdges x numSplines)");
  if (weightIndex.elementType() != poplar::INT)
    fail("weightIndex", weightIndex, "must hold int");
  const std::string edges = " rows, one per edge of the input " + poputil::describe(input);
  if (basis.dim(0) != input.dim(0))
    fail("basis", basis, "must have " + std::to_string(input.dim(0)) + edges);
  if (weightIndex.dim(0) != input.dim(0))
    fail("weightIndex", weightIndex, "must have " + std::to_string(input.dim(0)) + edges);
  if (weightIndex.dim(1) != basis.dim(1))
    fail("weightIndex", weightIndex,
         "must have one column per spline of the basis " + poputil::describe(basis));
  if (weight.dim(1) != input.dim(1))
    fail("weight", weight,
         "must have dimension 1 equal to the input channels of " + poputil::describe(input));
}

} // namespace

poplar::Tensor splineWeighting(poplar::Graph &graph, const poplar::Tensor &input,
                               const poplar::Tensor &weight, const poplar::Tensor &basis,
                               const poplar::Tensor &weightIndex, poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext) {
  checkOperands(input, weight, basis, weightIndex);
  const std::size_t numEdges = input.dim(0), numInCh = input.dim(1);
  const std::size_t numOutCh = weight.dim(2), numSplines = basis.dim(1);
  poplar::Tensor output =
      graph.addVariable(input.elementType(), {numEdges, numOutCh},
                        poplar::VariableMappingMethod::LINEAR, {debugContext, "output"});
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "SplineWeighting"});
  const std::string vertexType =
      poputil::templateVertex("popops::SplineWeighting", input.elementType());
  const poplar::Tensor outFlat = output.flatten(), weightFlat = weight.flatten();
  const auto runs = detail::contiguousRunsPerTile(graph, output);
  for (unsigned tile = 0; tile < runs.size(); ++tile)
    for (const auto &run : runs[tile]) {
      // The edges whose output channels this run holds.
      const std::size_t firstEdge = run.begin() / numOutCh;
      const std::size_t endEdge = (run.end() + numOutCh - 1) / numOutCh;
      auto v = graph.addVertex(cs, vertexType);
      graph.connect(v["input"], input.slice(firstEdge, endEdge, 0).flatten());
      graph.connect(v["weight"], weightFlat);
      graph.connect(v["basis"], basis.slice(firstEdge, endEdge, 0).flatten());
      graph.connect(v["weightIndex"], weightIndex.slice(firstEdge, endEdge, 0).flatten());
      graph.connect(v["output"], outFlat.slice(run));
      graph.setInitialValue(v["numInCh"], static_cast<unsigned>(numInCh));
      graph.setInitialValue(v["numOutCh"], static_cast<unsigned>(numOutCh));
      graph.setInitialValue(v["numSplines"], static_cast<unsigned>(numSplines));
      graph.setInitialValue(v["offset"], static_cast<unsigned>(run.begin() - firstEdge * numOutCh));
      graph.setTileMapping(v, tile);
    }
  prog.add(poplar::program::Execute(cs, {debugContext, "SplineWeighting"}));
  return output;
}

} // namespace popops
