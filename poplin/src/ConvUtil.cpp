// getGradientParams: the input-gradient pass expressed as another convolution.
//
// Per dimension the forward pass is: transformed input TI -> valid correlation with the
// transformed kernel TK (size R = TI - TK + 1) -> truncate -> stride -> pad. Going back, the
// output gradient is un-padded (truncated), un-strided (dilated by the stride), re-padded to R
// (the forward truncation plus the positions the stride skipped at the end), and fully
// correlated with the flipped kernel (TK - 1 more padding on each side) to give TI; the output
// transform then undoes the forward input transform (drop its padding, keep every dilation-th
// element, zero-pad where the forward input was truncated).
#include <poplin/ConvUtil.hpp>

namespace poplin {

ConvParams getGradientParams(const ConvParams &p) {
  p.validate();
  const std::size_t dims = p.getNumFieldDims();
  ConvParams::InputTransform in(dims), kernel(dims);
  ConvParams::OutputTransform out(dims);
  const auto &fi = p.inputTransform, &fk = p.kernelTransform;
  const auto &fo = p.outputTransform;
  for (unsigned d = 0; d < dims; ++d) {
    const std::size_t tk = p.getTransformedKernelSize(d);
    const std::size_t raw = p.getTransformedInputSize(d) - tk + 1;
    const std::size_t truncated = raw - fo.truncationLower[d] - fo.truncationUpper[d];
    const std::size_t strided = (truncated + fo.stride[d] - 1) / fo.stride[d];
    const std::size_t skipped = truncated - 1 - (strided - 1) * fo.stride[d];
    in.truncationLower[d] = fo.paddingLower[d];
    in.truncationUpper[d] = fo.paddingUpper[d];
    in.dilation[d] = fo.stride[d];
    in.paddingLower[d] = static_cast<unsigned>(fo.truncationLower[d] + tk - 1);
    in.paddingUpper[d] = static_cast<unsigned>(fo.truncationUpper[d] + skipped + tk - 1);
    in.flip[d] = fi.flip[d];
    // The caller's weights are flipped; truncation and padding of the kernel flip with them.
    kernel.truncationLower[d] = fk.truncationUpper[d];
    kernel.truncationUpper[d] = fk.truncationLower[d];
    kernel.dilation[d] = fk.dilation[d];
    kernel.paddingLower[d] = fk.paddingUpper[d];
    kernel.paddingUpper[d] = fk.paddingLower[d];
    // A flipped forward input flips the gradient too: flip the input and (again) the kernel.
    kernel.flip[d] = fk.flip[d] != fi.flip[d];
    out.truncationLower[d] = fi.paddingLower[d];
    out.truncationUpper[d] = fi.paddingUpper[d];
    out.stride[d] = fi.dilation[d];
    out.paddingLower[d] = fi.truncationLower[d];
    out.paddingUpper[d] = fi.truncationUpper[d];
  }
  return ConvParams(p.outputType, p.inputType, p.batchSize, p.getOutputFieldShape(), p.kernelShape,
                    p.outputChannelsPerConvGroup, p.inputChannelsPerConvGroup, p.numConvGroups, in,
                    kernel, out);
}

} // namespace poplin
