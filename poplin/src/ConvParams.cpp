// poplin::ConvParams: constructors, derived sizes, validation and printing.
#include <poplin/ConvParams.hpp>

#include <ostream>
#include <string>
#include <tuple>

#include <poputil/exceptions.hpp>

namespace poplin {
namespace {

std::size_t transformedSize(std::size_t size, const ConvParams::InputTransform &t, unsigned dim) {
  const std::size_t truncated = size - t.truncationLower[dim] - t.truncationUpper[dim];
  const std::size_t dilated = truncated == 0 ? 0 : (truncated - 1) * t.dilation[dim] + 1;
  return dilated + t.paddingLower[dim] + t.paddingUpper[dim];
}

template <class T> std::string list(const std::vector<T> &v) {
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i)
      s += ',';
    s += std::to_string(v[i]);
  }
  return s + "}";
}

void checkRank(std::size_t got, std::size_t want, const std::string &what) {
  if (got != want)
    throw poputil::poplibs_error("ConvParams: " + what + " has " + std::to_string(got) +
                                 " entries but the input field has " + std::to_string(want) +
                                 " dimensions");
}

void checkTransform(const ConvParams::InputTransform &t, std::size_t dims,
                    const std::vector<std::size_t> &shape, const std::string &name) {
  checkRank(t.truncationLower.size(), dims, name + ".truncationLower");
  checkRank(t.truncationUpper.size(), dims, name + ".truncationUpper");
  checkRank(t.dilation.size(), dims, name + ".dilation");
  checkRank(t.paddingLower.size(), dims, name + ".paddingLower");
  checkRank(t.paddingUpper.size(), dims, name + ".paddingUpper");
  checkRank(t.flip.size(), dims, name + ".flip");
  for (std::size_t d = 0; d < dims; ++d) {
    if (t.dilation[d] == 0)
      throw poputil::poplibs_error("ConvParams: " + name + ".dilation[" + std::to_string(d) +
                                   "] is 0 (must be at least 1)");
    if (std::size_t(t.truncationLower[d]) + t.truncationUpper[d] > shape[d])
      throw poputil::poplibs_error("ConvParams: " + name + " truncation in dimension " +
                                   std::to_string(d) + " (" + std::to_string(t.truncationLower[d]) +
                                   " + " + std::to_string(t.truncationUpper[d]) +
                                   ") exceeds its size " + std::to_string(shape[d]));
  }
}

} // namespace

ConvParams::InputTransform::InputTransform(std::size_t n)
    : truncationLower(n, 0), truncationUpper(n, 0), dilation(n, 1), paddingLower(n, 0),
      paddingUpper(n, 0), flip(n, false) {}

ConvParams::InputTransform::InputTransform(std::vector<unsigned> tl, std::vector<unsigned> tu,
                                           std::vector<unsigned> dil, std::vector<unsigned> pl,
                                           std::vector<unsigned> pu, std::vector<bool> f)
    : truncationLower(std::move(tl)), truncationUpper(std::move(tu)), dilation(std::move(dil)),
      paddingLower(std::move(pl)), paddingUpper(std::move(pu)), flip(std::move(f)) {}

ConvParams::OutputTransform::OutputTransform(std::size_t n)
    : truncationLower(n, 0), truncationUpper(n, 0), stride(n, 1), paddingLower(n, 0),
      paddingUpper(n, 0) {}

ConvParams::OutputTransform::OutputTransform(std::vector<unsigned> tl, std::vector<unsigned> tu,
                                             std::vector<unsigned> s, std::vector<unsigned> pl,
                                             std::vector<unsigned> pu)
    : truncationLower(std::move(tl)), truncationUpper(std::move(tu)), stride(std::move(s)),
      paddingLower(std::move(pl)), paddingUpper(std::move(pu)) {}

ConvParams::ConvParams(poplar::Type dataType, std::size_t batch, std::vector<std::size_t> field,
                       std::vector<std::size_t> kernel, std::size_t icPerG, std::size_t ocPerG,
                       std::size_t groups)
    : ConvParams(dataType, dataType, batch, std::move(field), std::move(kernel), icPerG, ocPerG,
                 groups) {}

ConvParams::ConvParams(poplar::Type inType, poplar::Type outType, std::size_t batch,
                       std::vector<std::size_t> field, std::vector<std::size_t> kernel,
                       std::size_t icPerG, std::size_t ocPerG, std::size_t groups)
    : inputType(inType), outputType(outType), batchSize(batch), inputFieldShape(std::move(field)),
      kernelShape(std::move(kernel)), inputChannelsPerConvGroup(icPerG),
      outputChannelsPerConvGroup(ocPerG), numConvGroups(groups),
      inputTransform(inputFieldShape.size()), kernelTransform(inputFieldShape.size()),
      outputTransform(inputFieldShape.size()) {}

ConvParams::ConvParams(poplar::Type inType, poplar::Type outType, std::size_t batch,
                       std::vector<std::size_t> field, std::vector<std::size_t> kernel,
                       std::size_t icPerG, std::size_t ocPerG, std::size_t groups,
                       InputTransform inTransform, InputTransform kTransform,
                       OutputTransform outTransform)
    : inputType(inType), outputType(outType), batchSize(batch), inputFieldShape(std::move(field)),
      kernelShape(std::move(kernel)), inputChannelsPerConvGroup(icPerG),
      outputChannelsPerConvGroup(ocPerG), numConvGroups(groups),
      inputTransform(std::move(inTransform)), kernelTransform(std::move(kTransform)),
      outputTransform(std::move(outTransform)) {}

std::size_t ConvParams::getTransformedInputSize(unsigned dim) const {
  return transformedSize(inputFieldShape.at(dim), inputTransform, dim);
}

std::size_t ConvParams::getTransformedKernelSize(unsigned dim) const {
  return transformedSize(kernelShape.at(dim), kernelTransform, dim);
}

std::size_t ConvParams::getOutputSize(unsigned dim) const {
  const std::size_t in = getTransformedInputSize(dim), k = getTransformedKernelSize(dim);
  const std::size_t raw = in >= k ? in - k + 1 : 0;
  const std::size_t cut =
      std::size_t(outputTransform.truncationLower[dim]) + outputTransform.truncationUpper[dim];
  const std::size_t truncated = raw > cut ? raw - cut : 0;
  const std::size_t strided =
      (truncated + outputTransform.stride[dim] - 1) / outputTransform.stride[dim];
  return strided + outputTransform.paddingLower[dim] + outputTransform.paddingUpper[dim];
}

std::vector<std::size_t> ConvParams::getOutputFieldShape() const {
  std::vector<std::size_t> shape;
  for (unsigned d = 0; d < getNumFieldDims(); ++d)
    shape.push_back(getOutputSize(d));
  return shape;
}

void ConvParams::validate() const {
  const std::size_t dims = getNumFieldDims();
  if (dims == 0)
    throw poputil::poplibs_error("ConvParams: inputFieldShape is empty (need 1 or more spatial "
                                 "dimensions)");
  checkRank(kernelShape.size(), dims, "kernelShape");
  if (inputChannelsPerConvGroup == 0 || outputChannelsPerConvGroup == 0 || numConvGroups == 0)
    throw poputil::poplibs_error(
        "ConvParams: inputChannelsPerConvGroup (" + std::to_string(inputChannelsPerConvGroup) +
        "), outputChannelsPerConvGroup (" + std::to_string(outputChannelsPerConvGroup) +
        ") and numConvGroups (" + std::to_string(numConvGroups) + ") must all be at least 1");
  for (const auto &type : {inputType, outputType})
    if (type != poplar::FLOAT && type != poplar::HALF)
      throw poputil::poplibs_error("ConvParams: type " + type.toString() +
                                   " is not supported (FLOAT or HALF)");
  checkTransform(inputTransform, dims, inputFieldShape, "inputTransform");
  checkTransform(kernelTransform, dims, kernelShape, "kernelTransform");
  const auto &o = outputTransform;
  checkRank(o.truncationLower.size(), dims, "outputTransform.truncationLower");
  checkRank(o.truncationUpper.size(), dims, "outputTransform.truncationUpper");
  checkRank(o.stride.size(), dims, "outputTransform.stride");
  checkRank(o.paddingLower.size(), dims, "outputTransform.paddingLower");
  checkRank(o.paddingUpper.size(), dims, "outputTransform.paddingUpper");
  for (unsigned d = 0; d < dims; ++d) {
    if (o.stride[d] == 0)
      throw poputil::poplibs_error("ConvParams: outputTransform.stride[" + std::to_string(d) +
                                   "] is 0 (must be at least 1)");
    const std::size_t in = getTransformedInputSize(d), k = getTransformedKernelSize(d);
    if (k == 0 || in < k)
      throw poputil::poplibs_error(
          "ConvParams: in dimension " + std::to_string(d) + " the transformed kernel (" +
          std::to_string(k) + ") does not fit in the transformed input (" + std::to_string(in) +
          "): the padding/dilation/truncation leave no output");
    const std::size_t raw = in - k + 1;
    if (std::size_t(o.truncationLower[d]) + o.truncationUpper[d] >= raw)
      throw poputil::poplibs_error(
          "ConvParams: outputTransform truncation in dimension " + std::to_string(d) + " (" +
          std::to_string(o.truncationLower[d]) + " + " + std::to_string(o.truncationUpper[d]) +
          ") leaves no output of the " + std::to_string(raw) + " computed");
  }
}

std::ostream &operator<<(std::ostream &os, const ConvParams &p) {
  auto transform = [&](const char *name, const ConvParams::InputTransform &t) {
    std::vector<unsigned> flip(t.flip.begin(), t.flip.end());
    os << "  " << name << ": truncation " << list(t.truncationLower) << "/"
       << list(t.truncationUpper) << ", dilation " << list(t.dilation) << ", padding "
       << list(t.paddingLower) << "/" << list(t.paddingUpper) << ", flip " << list(flip) << "\n";
  };
  os << "ConvParams: " << p.inputType.toString() << " -> " << p.outputType.toString() << ", batch "
     << p.batchSize << ", field " << list(p.inputFieldShape) << ", kernel " << list(p.kernelShape)
     << ", channels per group " << p.inputChannelsPerConvGroup << " -> "
     << p.outputChannelsPerConvGroup << ", groups " << p.numConvGroups << "\n";
  transform("inputTransform", p.inputTransform);
  transform("kernelTransform", p.kernelTransform);
  const auto &o = p.outputTransform;
  os << "  outputTransform: truncation " << list(o.truncationLower) << "/"
     << list(o.truncationUpper) << ", stride " << list(o.stride) << ", padding "
     << list(o.paddingLower) << "/" << list(o.paddingUpper) << "\n";
  return os;
}

namespace {
auto transformKey(const ConvParams::InputTransform &t) {
  return std::tie(t.truncationLower, t.truncationUpper, t.dilation, t.paddingLower, t.paddingUpper,
                  t.flip);
}
auto transformKey(const ConvParams::OutputTransform &t) {
  return std::tie(t.truncationLower, t.truncationUpper, t.stride, t.paddingLower, t.paddingUpper);
}
} // namespace

bool operator<(const ConvParams &a, const ConvParams &b) {
  const auto key = [](const ConvParams &p) {
    return std::tie(p.inputType, p.outputType, p.batchSize, p.inputFieldShape, p.kernelShape,
                    p.inputChannelsPerConvGroup, p.outputChannelsPerConvGroup, p.numConvGroups);
  };
  const auto ka = key(a), kb = key(b);
  if (ka != kb)
    return ka < kb;
  if (transformKey(a.inputTransform) != transformKey(b.inputTransform))
    return transformKey(a.inputTransform) < transformKey(b.inputTransform);
  if (transformKey(a.kernelTransform) != transformKey(b.kernelTransform))
    return transformKey(a.kernelTransform) < transformKey(b.kernelTransform);
  return transformKey(a.outputTransform) < transformKey(b.outputTransform);
}

} // namespace poplin
