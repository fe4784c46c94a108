// popops::gather: the single-axis form as one multiSlice of unit slices; XLA's general form as
// a map computing each slice row's index, then one multiSlice.
#include <algorithm>
#include <numeric>

#include <popops/DynamicSlice.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>
#include <popops/Gather.hpp>

#include <poputil/Describe.hpp>
#include <poputil/exceptions.hpp>

#include "SliceCommon.hpp"

namespace popops {

poplar::Tensor createGatherInput(poplar::Graph &graph, const poplar::Type &type,
                                 const std::vector<std::size_t> &operandShape, unsigned axis,
                                 GatherParams, const poplar::DebugContext &debugContext) {
  return createSliceableTensor(graph, type, operandShape, {axis}, {1}, 0, debugContext);
}

poplar::Tensor gather(poplar::Graph &graph, const poplar::Tensor &input,
                      const poplar::Tensor &indices, unsigned axis, poplar::program::Sequence &prog,
                      const GatherParams &, const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &optionFlags) {
  const std::string fn = "popops::gather";
  if (axis >= input.rank())
    throw poputil::poplibs_error(fn + ": axis " + std::to_string(axis) + " is out of range for " +
                                 poputil::describe(input));
  if (indices.elementType() != poplar::UNSIGNED_INT && indices.elementType() != poplar::INT)
    throw poputil::poplibs_error(fn + ": indices " + poputil::describe(indices) +
                                 " must be UNSIGNED_INT or INT");
  const poplar::Tensor offsets = indices.elementType() == poplar::INT
                                     ? indices.flatten().reinterpret(poplar::UNSIGNED_INT)
                                     : indices.flatten();
  const poplar::Tensor slices = multiSlice(graph, input, offsets, {axis}, {1}, prog, SlicePlan(),
                                           optionFlags, {debugContext, "gather"});
  // [M][..., 1 (axis), ...] -> [indices.shape..., before..., after...] -> move indices dims.
  std::vector<std::size_t> shape = indices.shape();
  for (std::size_t d = 0; d < input.rank(); ++d)
    if (d != axis)
      shape.push_back(input.dim(d));
  const unsigned k = static_cast<unsigned>(indices.rank());
  std::vector<unsigned> perm;
  for (unsigned d = 0; d < axis; ++d)
    perm.push_back(k + d);
  for (unsigned d = 0; d < k; ++d)
    perm.push_back(d);
  for (unsigned d = k + axis; d < shape.size(); ++d)
    perm.push_back(d);
  return slices.reshape(shape).dimShuffle(perm);
}

} // namespace popops

// ---- XLA's general gather ------------------------------------------------------------------

namespace popops {

namespace {

std::string listString(const std::vector<std::size_t> &v) {
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i)
      s += ',';
    s += std::to_string(v[i]);
  }
  s += '}';
  return s;
}

/// Checks startIndexMap against an input of `rank` dims; throws naming it.
void checkStartIndexMap(const std::string &fn, const std::vector<unsigned> &startIndexMap,
                        std::size_t rank) {
  for (std::size_t i = 0; i < startIndexMap.size(); ++i) {
    if (startIndexMap[i] >= rank)
      throw poputil::poplibs_error(fn + ": startIndexMap[" + std::to_string(i) +
                                   "] = " + std::to_string(startIndexMap[i]) +
                                   " is out of range for an input of rank " + std::to_string(rank));
    for (std::size_t j = 0; j < i; ++j)
      if (startIndexMap[j] == startIndexMap[i])
        throw poputil::poplibs_error(fn + ": startIndexMap names input dimension " +
                                     std::to_string(startIndexMap[i]) + " twice");
  }
}

void checkSliceSizes(const std::string &fn, const std::vector<std::size_t> &shape,
                     const std::vector<std::size_t> &sliceSizes) {
  if (sliceSizes.size() != shape.size())
    throw poputil::poplibs_error(fn + ": sliceSizes " + listString(sliceSizes) + " must have " +
                                 std::to_string(shape.size()) +
                                 " entries, one per input dimension");
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (sliceSizes[d] > shape[d])
      throw poputil::poplibs_error(
          fn + ": sliceSizes[" + std::to_string(d) + "] = " + std::to_string(sliceSizes[d]) +
          " exceeds input dimension " + std::to_string(d) + " (" + std::to_string(shape[d]) + ")");
}

/// The permutation putting startIndexMap's dims first (in its order), then the others in order.
std::vector<unsigned> mappedFirst(const std::vector<unsigned> &startIndexMap, std::size_t rank) {
  std::vector<unsigned> perm(startIndexMap.begin(), startIndexMap.end());
  for (unsigned d = 0; d < rank; ++d)
    if (std::find(startIndexMap.begin(), startIndexMap.end(), d) == startIndexMap.end())
      perm.push_back(d);
  return perm;
}

std::vector<unsigned> inversePermutation(const std::vector<unsigned> &perm) {
  std::vector<unsigned> inv(perm.size());
  for (unsigned i = 0; i < perm.size(); ++i)
    inv[perm[i]] = i;
  return inv;
}

} // namespace

poplar::Tensor createGatherInput(poplar::Graph &graph, const poplar::Type &type,
                                 const std::vector<std::size_t> &inputShape,
                                 const std::vector<std::size_t> &sliceSizes,
                                 std::vector<unsigned> startIndexMap,
                                 const poplar::DebugContext &debugContext) {
  const std::string fn = "popops::createGatherInput";
  checkSliceSizes(fn, inputShape, sliceSizes);
  checkStartIndexMap(fn, startIndexMap, inputShape.size());
  const auto perm = mappedFirst(startIndexMap, inputShape.size());
  std::size_t rows = 1, columns = 1;
  std::vector<std::size_t> permuted;
  for (std::size_t i = 0; i < perm.size(); ++i) {
    permuted.push_back(inputShape[perm[i]]);
    (i < startIndexMap.size() ? rows : columns) *= inputShape[perm[i]];
  }
  poplar::Tensor rows2d =
      createSliceableTensor(graph, type, {rows, columns}, {0}, {1}, 0, debugContext);
  return rows2d.reshape(permuted).dimShuffle(inversePermutation(perm));
}

poplar::Tensor gather(poplar::Graph &graph, const poplar::Tensor &input,
                      const poplar::Tensor &indices, std::size_t indexVectorDim,
                      const std::vector<std::size_t> &offsetDims,
                      const std::vector<std::size_t> &sliceSizes,
                      const std::vector<std::size_t> &collapsedSliceDims,
                      const std::vector<unsigned> &startIndexMap, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &optionFlags) {
  const std::string fn = "popops::gather";
  const std::size_t rank = input.rank();
  if (indices.elementType() != poplar::UNSIGNED_INT && indices.elementType() != poplar::INT)
    throw poputil::poplibs_error(fn + ": indices " + poputil::describe(indices) +
                                 " must be UNSIGNED_INT or INT");
  if (indexVectorDim > indices.rank())
    throw poputil::poplibs_error(fn + ": indexVectorDim " + std::to_string(indexVectorDim) +
                                 " is out of range for indices " + poputil::describe(indices));
  // Indices as [batch…][k], k start coordinates per batch position.
  poplar::Tensor idx = indexVectorDim == indices.rank()
                           ? indices.expand({indices.rank()})
                           : indices.dimRoll(static_cast<unsigned>(indexVectorDim),
                                             static_cast<unsigned>(indices.rank() - 1));
  const std::size_t k = idx.dim(idx.rank() - 1);
  if (k != startIndexMap.size())
    throw poputil::poplibs_error(fn + ": indices " + poputil::describe(indices) + " hold " +
                                 std::to_string(k) + " start coordinates along indexVectorDim " +
                                 std::to_string(indexVectorDim) + " but startIndexMap has " +
                                 std::to_string(startIndexMap.size()) + " entries");
  checkSliceSizes(fn, input.shape(), sliceSizes);
  checkStartIndexMap(fn, startIndexMap, rank);
  std::vector<bool> collapsed(rank, false);
  for (std::size_t i = 0; i < collapsedSliceDims.size(); ++i) {
    const auto d = collapsedSliceDims[i];
    if (d >= rank || sliceSizes[d] != 1 || collapsed[d])
      throw poputil::poplibs_error(fn + ": collapsedSliceDims[" + std::to_string(i) +
                                   "] = " + std::to_string(d) +
                                   " must be a distinct input dimension whose slice size is 1");
    collapsed[d] = true;
  }
  const std::vector<std::size_t> batchShape(idx.shape().begin(), idx.shape().end() - 1);
  const std::size_t outRank = batchShape.size() + rank - collapsedSliceDims.size();
  if (offsetDims.size() != rank - collapsedSliceDims.size() ||
      !std::is_sorted(offsetDims.begin(), offsetDims.end()) ||
      std::adjacent_find(offsetDims.begin(), offsetDims.end()) != offsetDims.end() ||
      (!offsetDims.empty() && offsetDims.back() >= outRank))
    throw poputil::poplibs_error(fn + ": offsetDims " + listString(offsetDims) + " must be " +
                                 std::to_string(rank - collapsedSliceDims.size()) +
                                 " increasing output dimensions below " + std::to_string(outRank));
  const std::size_t batch = std::accumulate(batchShape.begin(), batchShape.end(), std::size_t(1),
                                            std::multiplies<std::size_t>());
  const poplar::Tensor idx2d = idx.reshape({batch, k});

  // The input cut to sliceSizes along the dims no index selects (they start at 0), with the
  // selected dims first and flattened into rows.
  poplar::Tensor cut = input;
  for (unsigned d = 0; d < rank; ++d)
    if (std::find(startIndexMap.begin(), startIndexMap.end(), d) == startIndexMap.end())
      cut = cut.slice(0, sliceSizes[d], d);
  const auto perm = mappedFirst(startIndexMap, rank);
  poplar::Tensor rolled = cut.dimShuffle(perm);
  std::size_t rows = 1, sliceRows = 1;
  std::vector<std::size_t> strides(k, 1);
  for (std::size_t i = k; i-- > 0;) {
    strides[i] = rows;
    rows *= input.dim(startIndexMap[i]);
    sliceRows *= sliceSizes[startIndexMap[i]];
  }
  std::vector<std::size_t> restShape(rolled.shape().begin() + k, rolled.shape().end());
  std::vector<std::size_t> tableShape{rows};
  tableShape.insert(tableShape.end(), restShape.begin(), restShape.end());
  const poplar::Tensor table = rolled.reshape(tableShape);

  // Row of slice position j of batch b: sum_i (clamp(start_i) + j_i) * stride_i, as one map.
  std::vector<unsigned> relative(sliceRows, 0);
  for (std::size_t j = 0; j < sliceRows; ++j) {
    std::size_t rest = j, rel = 0;
    for (std::size_t i = k; i-- > 0;) {
      const std::size_t s = sliceSizes[startIndexMap[i]];
      rel += (rest % s) * strides[i];
      rest /= s;
    }
    relative[j] = static_cast<unsigned>(rel);
  }
  poplar::Tensor rowIndices;
  if (batch * sliceRows > 0) {
    poplar::Tensor rel =
        graph.addConstant(poplar::UNSIGNED_INT, {1, sliceRows},
                          poplar::ArrayRef<unsigned>(relative), {debugContext, "sliceRowOffsets"});
    graph.setTileMapping(rel, 0);
    std::vector<poplar::Tensor> operands;
    std::unique_ptr<expr::Expr> sum = expr::PlaceHolder(static_cast<unsigned>(k + 1)).clone();
    for (std::size_t i = 0; i < k; ++i) {
      operands.push_back(idx2d.slice(i, i + 1, 1).broadcast(static_cast<unsigned>(sliceRows), 1));
      const unsigned maxStart =
          static_cast<unsigned>(input.dim(startIndexMap[i]) - sliceSizes[startIndexMap[i]]);
      const expr::PlaceHolder start(static_cast<unsigned>(i + 1));
      const std::unique_ptr<expr::Expr> clamped =
          indices.elementType() == poplar::INT
              ? expr::Cast(expr::Clamp(start, expr::Const(0), expr::Const(int(maxStart))),
                           poplar::UNSIGNED_INT)
                    .clone()
              : expr::Min(start, expr::Const(maxStart)).clone();
      sum = expr::Add(*sum, expr::Mul(*clamped, expr::Const(unsigned(strides[i])))).clone();
    }
    operands.push_back(rel.broadcast(static_cast<unsigned>(batch), 0));
    rowIndices = popops::map(graph, *sum, operands, prog, {debugContext, "gatherRows"});
  } else {
    rowIndices = graph.addVariable(poplar::UNSIGNED_INT, {batch, sliceRows}, debugContext);
    graph.setTileMapping(rowIndices, 0);
  }

  // [batch * sliceRows][1][rest…] -> [batch…][mapped slice dims…][rest…] -> input order.
  poplar::Tensor slices = multiSlice(graph, table, rowIndices.flatten(), {0}, {1}, prog,
                                     SlicePlan(), optionFlags, {debugContext, "gather"});
  std::vector<std::size_t> shape = batchShape;
  for (std::size_t i = 0; i < k; ++i)
    shape.push_back(sliceSizes[startIndexMap[i]]);
  shape.insert(shape.end(), restShape.begin(), restShape.end());
  const unsigned nb = static_cast<unsigned>(batchShape.size());
  std::vector<unsigned> toInputOrder;
  for (unsigned b = 0; b < nb; ++b)
    toInputOrder.push_back(b);
  for (unsigned d : inversePermutation(perm))
    toInputOrder.push_back(nb + d);
  poplar::Tensor sliced = slices.reshape(shape).dimShuffle(toInputOrder);
  // Drop the collapsed dims, then place the slice dims at offsetDims and the batch dims in the
  // remaining output positions.
  std::vector<std::size_t> kept = batchShape;
  for (std::size_t d = 0; d < rank; ++d)
    if (!collapsed[d])
      kept.push_back(sliceSizes[d]);
  sliced = sliced.reshape(kept);
  std::vector<unsigned> outPerm(outRank);
  std::vector<bool> isOffset(outRank, false);
  for (std::size_t i = 0; i < offsetDims.size(); ++i) {
    isOffset[offsetDims[i]] = true;
    outPerm[offsetDims[i]] = static_cast<unsigned>(nb + i);
  }
  unsigned nextBatch = 0;
  for (std::size_t o = 0; o < outRank; ++o)
    if (!isOffset[o])
      outPerm[o] = nextBatch++;
  return sliced.dimShuffle(outPerm);
}

} // namespace popops
