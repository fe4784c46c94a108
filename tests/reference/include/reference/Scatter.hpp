// Reference for popops/Scatter.hpp: XLA scatter over row-major arrays, window by window.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace reference {

struct ScatterDims {
  std::size_t indexVectorDim;
  std::vector<unsigned> updateWindowDims;
  std::vector<std::size_t> insertWindowDims;
  std::vector<unsigned> scatterDimsToOperandDims;
};

inline std::vector<std::size_t> stridesOf(const std::vector<std::size_t> &shape) {
  std::vector<std::size_t> s(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;)
    s[d - 1] = s[d] * shape[d];
  return s;
}

/// Windows are taken in row-major order over the update scatter dimensions (those of `updates`
/// not in updateWindowDims). Window w's index vector sits in `indices` at w's coordinates (in
/// the dimensions other than indexVectorDim) with component k along indexVectorDim (one
/// component when indexVectorDim == rank). Its start is index k in operand dimension
/// scatterDimsToOperandDims[k] and 0 elsewhere; window coordinates map in order to the operand
/// dimensions not in insertWindowDims (size 1 in those). A window not entirely inside the operand
/// is skipped. Each element becomes combine(current, update), or the update without `combine`.
inline std::vector<double>
scatter(std::vector<double> operand, const std::vector<std::size_t> &operandShape,
        const std::vector<std::int64_t> &indices, const std::vector<std::size_t> &indicesShape,
        const std::vector<double> &updates, const std::vector<std::size_t> &updatesShape,
        const ScatterDims &dims, const std::function<double(double, double)> &combine = {}) {
  const auto opStride = stridesOf(operandShape), idxStride = stridesOf(indicesShape),
             updStride = stridesOf(updatesShape);
  const auto &uwd = dims.updateWindowDims;
  std::vector<unsigned> scatterDims;
  for (unsigned d = 0; d < updatesShape.size(); ++d)
    if (std::find(uwd.begin(), uwd.end(), d) == uwd.end())
      scatterDims.push_back(d);
  std::vector<unsigned> batchDims; // of indices
  for (unsigned d = 0; d < indicesShape.size(); ++d)
    if (d != dims.indexVectorDim)
      batchDims.push_back(d);
  std::vector<std::size_t> windowOperandDims, windowSize(operandShape.size(), 1);
  for (unsigned d = 0; d < operandShape.size(); ++d)
    if (std::find(dims.insertWindowDims.begin(), dims.insertWindowDims.end(), d) ==
        dims.insertWindowDims.end())
      windowOperandDims.push_back(d);
  for (std::size_t i = 0; i < windowOperandDims.size(); ++i)
    windowSize[windowOperandDims[i]] = updatesShape[uwd[i]];
  std::size_t windows = 1, windowElems = 1;
  for (unsigned d : scatterDims)
    windows *= updatesShape[d];
  for (unsigned d : uwd)
    windowElems *= updatesShape[d];
  for (std::size_t w = 0; w < windows; ++w) {
    // w's coordinates over the scatter dimensions, row-major.
    std::vector<std::size_t> g(scatterDims.size());
    for (std::size_t i = scatterDims.size(), rest = w; i-- > 0;) {
      g[i] = rest % updatesShape[scatterDims[i]];
      rest /= updatesShape[scatterDims[i]];
    }
    std::vector<std::int64_t> start(operandShape.size(), 0);
    bool valid = true;
    for (std::size_t k = 0; k < dims.scatterDimsToOperandDims.size(); ++k) {
      std::size_t pos = 0;
      for (std::size_t i = 0; i < batchDims.size(); ++i)
        pos += g[i] * idxStride[batchDims[i]];
      if (dims.indexVectorDim < indicesShape.size())
        pos += k * idxStride[dims.indexVectorDim];
      const unsigned d = dims.scatterDimsToOperandDims[k];
      start[d] = indices[pos];
      if (start[d] < 0 ||
          start[d] > static_cast<std::int64_t>(operandShape[d]) - std::int64_t(windowSize[d]))
        valid = false;
    }
    if (!valid)
      continue;
    for (std::size_t j = 0; j < windowElems; ++j) {
      std::vector<std::size_t> wc(uwd.size());
      for (std::size_t i = uwd.size(), rest = j; i-- > 0;) {
        wc[i] = rest % updatesShape[uwd[i]];
        rest /= updatesShape[uwd[i]];
      }
      std::size_t opPos = 0, updPos = 0;
      for (std::size_t d = 0; d < operandShape.size(); ++d)
        opPos += static_cast<std::size_t>(start[d]) * opStride[d];
      for (std::size_t i = 0; i < windowOperandDims.size(); ++i)
        opPos += wc[i] * opStride[windowOperandDims[i]];
      for (std::size_t i = 0; i < scatterDims.size(); ++i)
        updPos += g[i] * updStride[scatterDims[i]];
      for (std::size_t i = 0; i < uwd.size(); ++i)
        updPos += wc[i] * updStride[uwd[i]];
      operand[opPos] = combine ? combine(operand[opPos], updates[updPos]) : updates[updPos];
    }
  }
  return operand;
}

} // namespace reference
