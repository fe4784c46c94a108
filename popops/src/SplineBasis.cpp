// popops::splineBasis: check the operands, then one popops::SplineBasis<T,degree> vertex per
// run of `basis` on each tile, reading the pseudo-coordinate rows of the edges that run covers.
#include <popops/SplineBasis.hpp>

#include <string>

#include <poputil/Describe.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "TileRegions.hpp"

namespace popops {

namespace {

const char *const kWhat = "popops::splineBasis";

[[noreturn]] void fail(const std::string &role, const poplar::Tensor &t,
                       const std::string &expected) {
  throw poputil::poplibs_error(std::string(kWhat) + ": the " + role + " tensor " +
                               poputil::describe(t) + " " + expected);
}

void checkOperands(const poplar::Tensor &pseudo, const poplar::Tensor &kernelSize,
                   const poplar::Tensor &isOpenSpline, const poplar::Tensor &basis,
                   const poplar::Tensor &weightIndex, unsigned degree) {
  if (pseudo.rank() != 2)
    fail("pseudo", pseudo, "must be 2-dimensional (numEdges x numDims)");
  if (pseudo.elementType() != poplar::FLOAT && pseudo.elementType() != poplar::HALF)
    fail("pseudo", pseudo, "must hold float or half");
  if (kernelSize.rank() != 1)
    fail("kernelSize", kernelSize, "must be 1-dimensional");
  if (kernelSize.elementType() != poplar::INT)
    fail("kernelSize", kernelSize, "must hold int");
  if (isOpenSpline.rank() != 1)
    fail("isOpenSpline", isOpenSpline, "must be 1-dimensional");
  if (isOpenSpline.elementType() != poplar::UNSIGNED_CHAR)
    fail("isOpenSpline", isOpenSpline, "must hold unsigned char");
  const std::size_t numDims = pseudo.dim(1);
  if (kernelSize.dim(0) != numDims)
    fail("kernelSize", kernelSize,
         "must have one element per column of the pseudo tensor " + poputil::describe(pseudo));
  if (isOpenSpline.dim(0) != numDims)
    fail("isOpenSpline", isOpenSpline,
         "must have one element per column of the pseudo tensor " + poputil::describe(pseudo));
  if (degree < 1 || degree > 3)
    throw poputil::poplibs_error(std::string(kWhat) + ": degree " + std::to_string(degree) +
                                 " is not 1, 2 or 3");
  std::size_t numSplines = 1;
  for (std::size_t d = 0; d < numDims; ++d)
    numSplines *= degree + 1;
  const std::vector<std::size_t> expected{pseudo.dim(0), numSplines};
  const std::string shape = poputil::shapeString(expected);
  if (basis.shape() != expected)
    fail("basis", basis, "must have shape " + shape + " (numEdges x (degree + 1)^numDims)");
  if (basis.elementType() != pseudo.elementType())
    fail("basis", basis,
         "must hold " + pseudo.elementType().toString() + " as the pseudo tensor does");
  if (weightIndex.shape() != expected)
    fail("weightIndex", weightIndex,
         "must have shape " + shape + " (numEdges x (degree + 1)^numDims)");
  if (weightIndex.elementType() != poplar::INT)
    fail("weightIndex", weightIndex, "must hold int");
}

} // namespace

void splineBasis(poplar::Graph &graph, const poplar::Tensor &pseudo,
                 const poplar::Tensor &kernelSize, const poplar::Tensor &isOpenSpline,
                 const poplar::Tensor &basis, const poplar::Tensor &weightIndex, unsigned degree,
                 poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  checkOperands(pseudo, kernelSize, isOpenSpline, basis, weightIndex, degree);
  const std::size_t numDims = pseudo.dim(1), numSplines = basis.dim(1);
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "SplineBasis"});
  const std::string vertexType =
      poputil::templateVertex("popops::SplineBasis", pseudo.elementType(), degree);
  const poplar::Tensor basisFlat = basis.flatten(), indexFlat = weightIndex.flatten();
  const auto runs = detail::contiguousRunsPerTile(graph, basis);
  for (unsigned tile = 0; tile < runs.size(); ++tile)
    for (const auto &run : runs[tile]) {
      // The edges (rows of pseudo) whose splines this run holds.
      const std::size_t firstEdge = run.begin() / numSplines;
      const std::size_t endEdge = (run.end() + numSplines - 1) / numSplines;
      auto v = graph.addVertex(cs, vertexType);
      graph.connect(v["pseudo"], pseudo.slice(firstEdge, endEdge, 0).flatten());
      graph.connect(v["kernelSize"], kernelSize);
      graph.connect(v["isOpenSpline"], isOpenSpline);
      graph.connect(v["basis"], basisFlat.slice(run));
      graph.connect(v["weightIndex"], indexFlat.slice(run));
      graph.setInitialValue(v["numDims"], static_cast<unsigned>(numDims));
      graph.setInitialValue(v["numSplines"], static_cast<unsigned>(numSplines));
      graph.setInitialValue(v["offset"],
                            static_cast<unsigned>(run.begin() - firstEdge * numSplines));
      graph.setTileMapping(v, tile);
    }
  prog.add(poplar::program::Execute(cs, {debugContext, "SplineBasis"}));
}

} // namespace popops
