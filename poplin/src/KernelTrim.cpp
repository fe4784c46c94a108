#include "KernelTrim.hpp"

#include <algorithm>

#include <popops/Fill.hpp>
#include <poputil/TileMapping.hpp>

namespace poplin::detail {
namespace {

bool onlyPadsTheInput(const ConvParams &p) {
  const auto &in = p.inputTransform, &k = p.kernelTransform;
  for (std::size_t d = 0; d < p.getNumFieldDims(); ++d)
    if (in.truncationLower[d] || in.truncationUpper[d] || in.dilation[d] != 1 || in.flip[d] ||
        k.truncationLower[d] || k.truncationUpper[d] || k.dilation[d] != 1 || k.paddingLower[d] ||
        k.paddingUpper[d] || k.flip[d])
      return false;
  return true;
}

} // namespace

std::optional<KernelTrim> trimUnusedKernelTaps(const ConvParams &p) {
  if (!onlyPadsTheInput(p))
    return std::nullopt;
  const std::size_t dims = p.getNumFieldDims();
  KernelTrim trim{std::vector<unsigned>(dims, 0), std::vector<unsigned>(dims, 0), p};
  bool any = false;
  for (std::size_t d = 0; d < dims; ++d) {
    const long input = long(p.inputFieldShape[d]), kernel = long(p.kernelShape[d]);
    const long padLower = p.inputTransform.paddingLower[d];
    const long padUpper = p.inputTransform.paddingUpper[d];
    const auto &out = p.outputTransform;
    // Raw (valid-correlation) positions r in [0, raw); the output keeps r = truncLower + j·stride.
    const long raw = input + padLower + padUpper - kernel + 1;
    const long first = out.truncationLower[d], end = raw - long(out.truncationUpper[d]);
    long lowest = kernel, highest = -1; // taps that meet a real element at some kept r
    for (long k = 0; k < kernel; ++k)
      for (long r = first; r < end; r += out.stride[d])
        if (const long i = r + k - padLower; i >= 0 && i < input) {
          lowest = std::min(lowest, k);
          highest = std::max(highest, k);
          break;
        }
    if (highest < 0)
      return std::nullopt; // nothing meets the input at all: leave such a pass alone
    // A dropped tap takes its padding with it; never more than there is.
    trim.lower[d] = unsigned(std::min(lowest, padLower));
    trim.upper[d] = unsigned(std::min(kernel - 1 - highest, padUpper));
    any = any || trim.lower[d] || trim.upper[d];
    trim.params.kernelShape[d] -= trim.lower[d] + trim.upper[d];
    trim.params.inputTransform.paddingLower[d] -= trim.lower[d];
    trim.params.inputTransform.paddingUpper[d] -= trim.upper[d];
  }
  if (!any)
    return std::nullopt;
  return trim;
}

poplar::Tensor keptTaps(const poplar::Tensor &weights, const KernelTrim &trim) {
  poplar::Tensor w = weights;
  for (unsigned d = 0; d < trim.lower.size(); ++d)
    w = w.slice(trim.lower[d], w.dim(3 + d) - trim.upper[d], 3 + d);
  return w;
}

poplar::Tensor withDroppedTapsZero(poplar::Graph &graph, const poplar::Tensor &kept,
                                   const KernelTrim &trim, poplar::program::Sequence &prog,
                                   const std::string &name) {
  poplar::Tensor full = kept;
  std::vector<poplar::Tensor> zeros;
  auto zeroPiece = [&](unsigned dim, unsigned taps) {
    std::vector<std::size_t> shape = full.shape();
    shape[dim] = taps;
    poplar::Tensor z = graph.addVariable(kept.elementType(), shape, name + "/droppedTaps");
    poputil::mapTensorLinearly(graph, z);
    zeros.push_back(z);
    return z;
  };
  for (unsigned d = 0; d < trim.lower.size(); ++d) {
    const unsigned dim = 3 + d;
    if (trim.lower[d])
      full = poplar::concat(zeroPiece(dim, trim.lower[d]), full, dim);
    if (trim.upper[d])
      full = poplar::concat(full, zeroPiece(dim, trim.upper[d]), dim);
  }
  std::vector<poplar::Tensor> flat;
  for (const auto &z : zeros)
    flat.push_back(z.flatten());
  popops::zero(graph, poplar::concat(flat), prog, name + "/droppedTaps");
  return full;
}

} // namespace poplin::detail
