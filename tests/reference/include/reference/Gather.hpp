// Golden reference for popops/Gather.hpp: the single-axis gather (numpy.take) and XLA's
// general gather, on flat row-major tensors.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include <reference/Common.hpp>

namespace reference {

/// out[a…][j…][b…] = input[a…][indices[j…]][b…] for `axis`; shape
/// input.shape[:axis] + indices.shape + input.shape[axis+1:]. An index outside
/// [0, input.dim(axis)) (a negative INT too) gives zeros.
inline std::vector<double> gather(const std::vector<double> &input,
                                  const std::vector<std::size_t> &shape,
                                  const std::vector<long long> &indices, std::size_t axis) {
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (std::size_t d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  const long long rows = static_cast<long long>(shape[axis]);
  std::vector<double> out(outer * indices.size() * inner, 0.0);
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t j = 0; j < indices.size(); ++j)
      if (indices[j] >= 0 && indices[j] < rows)
        for (std::size_t c = 0; c < inner; ++c)
          out[(o * indices.size() + j) * inner + c] = input[(o * rows + indices[j]) * inner + c];
  return out;
}

/// XLA gather (operation_semantics#gather), written as its specification reads: for each
/// output index Out, the batch index G is Out at the dimensions not in offsetDims; the start
/// vector S is indices at G (with the index-vector dimension spanning it; a scalar per position
/// when indexVectorDim == indices' rank); S[i] is the start along input dim startIndexMap[i]
/// (other dims start at 0), clamped to [0, dim - sliceSize]; the in-slice offset takes
/// Out[offsetDims[i]] for the i-th non-collapsed input dim (0 for collapsed ones); the value
/// is input[start + offset]. Returns the output and writes its shape to `outShape`.
inline std::vector<double>
xlaGather(const std::vector<double> &input, const std::vector<std::size_t> &inShape,
          const std::vector<long long> &indices, const std::vector<std::size_t> &idxShape,
          std::size_t indexVectorDim, const std::vector<std::size_t> &offsetDims,
          const std::vector<std::size_t> &sliceSizes,
          const std::vector<std::size_t> &collapsedSliceDims,
          const std::vector<unsigned> &startIndexMap, std::vector<std::size_t> &outShape) {
  const std::size_t rank = inShape.size();
  std::vector<std::size_t> batchShape;
  for (std::size_t d = 0; d < idxShape.size(); ++d)
    if (d != indexVectorDim)
      batchShape.push_back(idxShape[d]);
  std::vector<std::size_t> keptDims;
  for (std::size_t d = 0; d < rank; ++d)
    if (std::find(collapsedSliceDims.begin(), collapsedSliceDims.end(), d) ==
        collapsedSliceDims.end())
      keptDims.push_back(d);
  const std::size_t outRank = batchShape.size() + keptDims.size();
  outShape.assign(outRank, 0);
  std::vector<bool> isOffset(outRank, false);
  for (std::size_t i = 0; i < offsetDims.size(); ++i) {
    isOffset[offsetDims[i]] = true;
    outShape[offsetDims[i]] = sliceSizes[keptDims[i]];
  }
  for (std::size_t o = 0, b = 0; o < outRank; ++o)
    if (!isOffset[o])
      outShape[o] = batchShape[b++];
  std::vector<double> out(numElements(outShape));
  std::vector<std::size_t> outIdx(outRank, 0);
  for (std::size_t e = 0; e < out.size(); ++e) {
    std::vector<std::size_t> g;
    std::vector<std::size_t> offsetIdx;
    for (std::size_t o = 0; o < outRank; ++o)
      (isOffset[o] ? offsetIdx : g).push_back(outIdx[o]);
    std::vector<long long> start(rank, 0);
    for (std::size_t i = 0; i < startIndexMap.size(); ++i) {
      // Position in indices: G with i inserted at indexVectorDim.
      std::size_t flat = 0;
      for (std::size_t d = 0, b = 0; d < idxShape.size(); ++d)
        flat = flat * idxShape[d] + (d == indexVectorDim ? i : g[b++]);
      start[startIndexMap[i]] = indices[flat];
    }
    std::size_t inFlat = 0;
    for (std::size_t d = 0, kept = 0; d < rank; ++d) {
      const long long hi = static_cast<long long>(inShape[d] - sliceSizes[d]);
      const long long s = std::min(std::max(start[d], 0LL), hi);
      std::size_t offset = 0;
      if (kept < keptDims.size() && keptDims[kept] == d)
        offset = offsetIdx[kept++];
      inFlat = inFlat * inShape[d] + static_cast<std::size_t>(s) + offset;
    }
    out[e] = input[inFlat];
    for (std::size_t o = outRank; o-- > 0;) {
      if (++outIdx[o] < outShape[o])
        break;
      outIdx[o] = 0;
    }
  }
  return out;
}

} // namespace reference
