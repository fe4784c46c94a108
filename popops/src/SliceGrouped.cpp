// The grouped multi-slice family: groupedMultiSlice and groupedMultiUpdate/Add/Max/Mul run the
// ungrouped lowering once per group (group g of every tensor is its index g along dimension 0)
// with all groups' vertices in one compute set.
#include <popops/DynamicSlice.hpp>

#include <poputil/Describe.hpp>
#include <poputil/exceptions.hpp>

#include "SliceChecks.hpp"
#include "SliceCommon.hpp"
#include "SliceMulti.hpp"

namespace popops {

namespace {

/// Checks the group dimension of `t` and `offsets` (and of `s` when given), then each group as
/// the ungrouped function would.
std::vector<detail::MultiArgs> checkGrouped(const std::string &fn, const poplar::Tensor &t,
                                            const poplar::Tensor &offsets, const poplar::Tensor *s,
                                            const std::vector<std::size_t> &dims,
                                            const std::vector<std::size_t> &sizes,
                                            const poplar::OptionFlags &options) {
  if (t.rank() < 2)
    throw poputil::poplibs_error(fn + ": tensor " + poputil::describe(t) +
                                 " must have rank >= 2 (the group dimension first)");
  if (offsets.rank() < 2 || offsets.rank() > 3)
    throw poputil::poplibs_error(fn + ": offsets " + poputil::describe(offsets) +
                                 " must have shape [groupSize][numOffsets][1] or "
                                 "[groupSize][numOffsets]");
  const std::size_t groups = t.dim(0);
  if (offsets.dim(0) != groups)
    throw poputil::poplibs_error(fn + ": offsets " + poputil::describe(offsets) + " has " +
                                 std::to_string(offsets.dim(0)) + " groups but tensor " +
                                 poputil::describe(t) + " has " + std::to_string(groups));
  if (s && (s->rank() < 1 || s->dim(0) != groups))
    throw poputil::poplibs_error(fn + ": slices " + poputil::describe(*s) +
                                 " must have the group size " + std::to_string(groups) +
                                 " of tensor " + poputil::describe(t) + " as dimension 0");
  std::vector<detail::MultiArgs> args;
  for (std::size_t g = 0; g < groups; ++g) {
    args.push_back(detail::checkMultiArgs(fn, t[g], offsets[g], dims, sizes, options));
    if (s)
      detail::checkSliceShape(fn, t[g], (*s)[g], detail::multiSliceShape(t[g], args.back()));
  }
  if (groups == 0)
    detail::checkSliceOptions(fn, options);
  return args;
}

void groupedUpdate(const std::string &fn, detail::RowOp op, poplar::Graph &graph,
                   const poplar::Tensor &t, const poplar::Tensor &s, const poplar::Tensor &offsets,
                   const poplar::Tensor *scale, const std::vector<std::size_t> &dims,
                   const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                   const poplar::OptionFlags &options, const poplar::DebugContext &debugContext,
                   const char *csName) {
  const auto args = checkGrouped(fn, t, offsets, &s, dims, sizes, options);
  if (scale)
    detail::checkScale(fn, t, *scale);
  if (args.empty())
    return;
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, csName});
  for (std::size_t g = 0; g < args.size(); ++g)
    detail::addMultiUpdateVertices(graph, cs, op, t[g], s[g], args[g], scale);
  prog.add(poplar::program::Execute(cs, {debugContext, csName}));
}

} // namespace

poplar::Tensor
groupedMultiSlice(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &offsets,
                  const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                  poplar::program::Sequence &prog, const SlicePlan &,
                  const poplar::OptionFlags &options, const poplar::DebugContext &debugContext) {
  const std::string fn = "popops::groupedMultiSlice";
  const auto args = checkGrouped(fn, t, offsets, nullptr, dims, sizes, options);
  if (args.empty()) {
    std::vector<std::size_t> shape{0, offsets.dim(1)};
    for (std::size_t d = 1; d < t.rank(); ++d)
      shape.push_back(d - 1 == dims.at(0) ? sizes.at(0) : t.dim(d));
    return graph.addVariable(t.elementType(), shape, {debugContext, "slices"});
  }
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "GroupedMultiSlice"});
  std::vector<poplar::Tensor> results;
  for (std::size_t g = 0; g < args.size(); ++g) {
    const auto &a = args[g];
    const poplar::Tensor tg = t[g];
    const std::size_t n = a.offsets.numElements();
    const poplar::Tensor out2d = detail::createColumnGrouped(
        graph, t.elementType(), n * a.size,
        detail::columnGroupsOf(graph, detail::rowsView(tg, a.dim)), {debugContext, "slices"});
    detail::addMultiSliceVertices(graph, cs, tg, out2d, a);
    results.push_back(detail::sliceTensorFromRows(out2d, n, a.size, tg.shape(), a.dim).expand({0}));
  }
  prog.add(poplar::program::Execute(cs, {debugContext, "GroupedMultiSlice"}));
  return poplar::concat(results, 0);
}

void groupedMultiUpdate(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                        const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                        const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                        const SlicePlan &, const poplar::OptionFlags &options,
                        const poplar::DebugContext &debugContext) {
  groupedUpdate("popops::groupedMultiUpdate", detail::RowOp::Update, graph, t, s, offsets, nullptr,
                dims, sizes, prog, options, debugContext, "GroupedMultiUpdate");
}

void groupedMultiUpdateAdd(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                           const poplar::Tensor &offsets, const poplar::Tensor &scale,
                           const std::vector<std::size_t> &dims,
                           const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                           const SlicePlan &, const poplar::OptionFlags &options,
                           const poplar::DebugContext &debugContext) {
  groupedUpdate("popops::groupedMultiUpdateAdd", detail::RowOp::UpdateAdd, graph, t, s, offsets,
                &scale, dims, sizes, prog, options, debugContext, "GroupedMultiUpdateAdd");
}

void groupedMultiUpdateMax(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                           const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                           const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                           const SlicePlan &, const poplar::OptionFlags &options,
                           const poplar::DebugContext &debugContext) {
  groupedUpdate("popops::groupedMultiUpdateMax", detail::RowOp::UpdateMax, graph, t, s, offsets,
                nullptr, dims, sizes, prog, options, debugContext, "GroupedMultiUpdateMax");
}

void groupedMultiUpdateMul(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                           const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                           const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                           const SlicePlan &, const poplar::OptionFlags &options,
                           const poplar::DebugContext &debugContext) {
  groupedUpdate("popops::groupedMultiUpdateMul", detail::RowOp::UpdateMul, graph, t, s, offsets,
                nullptr, dims, sizes, prog, options, debugContext, "GroupedMultiUpdateMul");
}

} // namespace popops
