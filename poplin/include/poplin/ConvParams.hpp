// The description of one convolution: shapes, groups and the transforms applied to the input,
// the kernel and the output, as Poplar's poplin::ConvParams.
//
// Per spatial dimension d the convolution is computed as:
//   input : truncate (truncationLower/Upper), dilate (insert dilation-1 zeros between elements),
//           pad with zeros (paddingLower/Upper), optionally flip;
//   kernel: the same four transforms with kernelTransform;
//   then a "valid" cross-correlation of the transformed input with the transformed kernel;
//   output: truncate (truncationLower/Upper), keep every stride-th element, pad with zeros.
// Layouts (logical shapes; the memory layout is free): input [B][G*ICperG][fields…],
// weights [G][OCperG][ICperG][kernel…], output [B][G*OCperG][output fields…].
#pragma once

#include <cstddef>
#include <iosfwd>
#include <vector>

#include <poplar/Type.hpp>

namespace poplin {

struct ConvParams {
  /// Transform applied to the input or to the kernel, one entry per spatial dimension.
  struct InputTransform {
    std::vector<unsigned> truncationLower;
    std::vector<unsigned> truncationUpper;
    std::vector<unsigned> dilation;
    std::vector<unsigned> paddingLower;
    std::vector<unsigned> paddingUpper;
    std::vector<bool> flip;
    InputTransform() = default;
    /// The identity transform for `numFieldDims` dimensions.
    explicit InputTransform(std::size_t numFieldDims);
    InputTransform(std::vector<unsigned> truncationLower, std::vector<unsigned> truncationUpper,
                   std::vector<unsigned> dilation, std::vector<unsigned> paddingLower,
                   std::vector<unsigned> paddingUpper, std::vector<bool> flip);
    friend bool operator==(const InputTransform &a, const InputTransform &b) {
      return a.truncationLower == b.truncationLower && a.truncationUpper == b.truncationUpper &&
             a.dilation == b.dilation && a.paddingLower == b.paddingLower &&
             a.paddingUpper == b.paddingUpper && a.flip == b.flip;
    }
    friend bool operator!=(const InputTransform &a, const InputTransform &b) { return !(a == b); }
  };
  /// Transform applied to the output, one entry per spatial dimension.
  struct OutputTransform {
    std::vector<unsigned> truncationLower;
    std::vector<unsigned> truncationUpper;
    std::vector<unsigned> stride;
    std::vector<unsigned> paddingLower;
    std::vector<unsigned> paddingUpper;
    OutputTransform() = default;
    explicit OutputTransform(std::size_t numFieldDims);
    OutputTransform(std::vector<unsigned> truncationLower, std::vector<unsigned> truncationUpper,
                    std::vector<unsigned> stride, std::vector<unsigned> paddingLower,
                    std::vector<unsigned> paddingUpper);
    friend bool operator==(const OutputTransform &a, const OutputTransform &b) {
      return a.truncationLower == b.truncationLower && a.truncationUpper == b.truncationUpper &&
             a.stride == b.stride && a.paddingLower == b.paddingLower &&
             a.paddingUpper == b.paddingUpper;
    }
    friend bool operator!=(const OutputTransform &a, const OutputTransform &b) { return !(a == b); }
  };

  poplar::Type inputType = poplar::FLOAT;
  poplar::Type outputType = poplar::FLOAT;
  std::size_t batchSize = 0;
  std::vector<std::size_t> inputFieldShape;
  std::vector<std::size_t> kernelShape;
  std::size_t inputChannelsPerConvGroup = 0;
  std::size_t outputChannelsPerConvGroup = 0;
  std::size_t numConvGroups = 1;
  InputTransform inputTransform;
  InputTransform kernelTransform;
  OutputTransform outputTransform;

  ConvParams() = default;
  /// Identity transforms; inputType = outputType = dataType.
  ConvParams(poplar::Type dataType, std::size_t batchSize, std::vector<std::size_t> inputFieldShape,
             std::vector<std::size_t> kernelShape, std::size_t inputChannelsPerConvGroup,
             std::size_t outputChannelsPerConvGroup, std::size_t numConvGroups);
  ConvParams(poplar::Type inputType, poplar::Type outputType, std::size_t batchSize,
             std::vector<std::size_t> inputFieldShape, std::vector<std::size_t> kernelShape,
             std::size_t inputChannelsPerConvGroup, std::size_t outputChannelsPerConvGroup,
             std::size_t numConvGroups);
  ConvParams(poplar::Type inputType, poplar::Type outputType, std::size_t batchSize,
             std::vector<std::size_t> inputFieldShape, std::vector<std::size_t> kernelShape,
             std::size_t inputChannelsPerConvGroup, std::size_t outputChannelsPerConvGroup,
             std::size_t numConvGroups, InputTransform inputTransform,
             InputTransform kernelTransform, OutputTransform outputTransform);

  std::size_t getNumFieldDims() const { return inputFieldShape.size(); }
  std::size_t getBatchSize() const { return batchSize; }
  std::size_t getNumConvGroups() const { return numConvGroups; }
  std::size_t getNumInputChansPerConvGroup() const { return inputChannelsPerConvGroup; }
  std::size_t getNumOutputChansPerConvGroup() const { return outputChannelsPerConvGroup; }
  std::size_t getNumInputChans() const { return inputChannelsPerConvGroup * numConvGroups; }
  std::size_t getNumOutputChans() const { return outputChannelsPerConvGroup * numConvGroups; }
  std::vector<std::size_t> getInputFieldShape() const { return inputFieldShape; }
  std::vector<std::size_t> getKernelShape() const { return kernelShape; }
  std::size_t getInputSize(unsigned dim) const { return inputFieldShape.at(dim); }
  std::size_t getKernelSize(unsigned dim) const { return kernelShape.at(dim); }
  /// Size of dimension `dim` after the input (kernel) transform.
  std::size_t getTransformedInputSize(unsigned dim) const;
  std::size_t getTransformedKernelSize(unsigned dim) const;
  /// Size of output dimension `dim` after the output transform.
  std::size_t getOutputSize(unsigned dim) const;
  std::vector<std::size_t> getOutputFieldShape() const;

  /// Throws poputil::poplibs_error naming the offending field when the parameters are
  /// inconsistent (transform vectors of the wrong rank, zero dilation or stride, a kernel larger
  /// than the padded input so no output remains, …).
  void validate() const;

  // Member by member, in declaration order (spelled out: C++11 has no defaulted operator==).
  friend bool operator==(const ConvParams &a, const ConvParams &b) {
    return a.inputType == b.inputType && a.outputType == b.outputType &&
           a.batchSize == b.batchSize && a.inputFieldShape == b.inputFieldShape &&
           a.kernelShape == b.kernelShape &&
           a.inputChannelsPerConvGroup == b.inputChannelsPerConvGroup &&
           a.outputChannelsPerConvGroup == b.outputChannelsPerConvGroup &&
           a.numConvGroups == b.numConvGroups && a.inputTransform == b.inputTransform &&
           a.kernelTransform == b.kernelTransform && a.outputTransform == b.outputTransform;
  }
  friend bool operator!=(const ConvParams &a, const ConvParams &b) { return !(a == b); }
  /// A strict order (member by member) so parameters can key a std::set (ConvPlanParams).
  friend bool operator<(const ConvParams &a, const ConvParams &b);
};

std::ostream &operator<<(std::ostream &os, const ConvParams &params);

} // namespace poplin
