#include "SliceChecks.hpp"

#include <limits>

#include <poplar/exceptions.hpp>
#include <poputil/Describe.hpp>
#include <poputil/OptionParsing.hpp>
#include <poputil/exceptions.hpp>

#include "SliceCommon.hpp"

namespace popops::detail {

void checkShapeDimsSizes(const std::string &fn, const std::vector<std::size_t> &shape,
                         const std::vector<std::size_t> &dims,
                         const std::vector<std::size_t> &sizes, const std::string &tensor) {
  const std::string what = tensor.empty() ? "shape " + poputil::shapeString(shape) : tensor;
  if (dims.size() != sizes.size())
    throw poputil::poplibs_error(fn + ": dims (" + std::to_string(dims.size()) +
                                 " entries) and sizes (" + std::to_string(sizes.size()) +
                                 " entries) differ in length, slicing " + what);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] >= shape.size())
      throw poputil::poplibs_error(fn + ": dims[" + std::to_string(i) +
                                   "] = " + std::to_string(dims[i]) + " is out of range for " +
                                   what + " of rank " + std::to_string(shape.size()));
    for (std::size_t j = 0; j < i; ++j)
      if (dims[j] == dims[i])
        throw poputil::poplibs_error(fn + ": dim " + std::to_string(dims[i]) +
                                     " appears twice in dims, slicing " + what);
    if (sizes[i] > shape[dims[i]])
      throw poputil::poplibs_error(fn + ": sizes[" + std::to_string(i) +
                                   "] = " + std::to_string(sizes[i]) + " exceeds dimension " +
                                   std::to_string(dims[i]) + " (" + std::to_string(shape[dims[i]]) +
                                   ") of " + what);
  }
}

void checkDimsSizes(const std::string &fn, const poplar::Tensor &t,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes) {
  checkShapeDimsSizes(fn, t.shape(), dims, sizes, poputil::describe(t));
}

void checkOffsetType(const std::string &fn, const poplar::Tensor &offsets) {
  if (offsets.elementType() != poplar::UNSIGNED_INT)
    throw poputil::poplibs_error(fn + ": offsets " + poputil::describe(offsets) +
                                 " must be UNSIGNED_INT, not " + offsets.elementType().toString());
}

namespace {

struct ParsedSliceOptions {
  bool usedForSlice = true, usedForUpdate = true;
  bool remapOutOfBoundIndices = false, paddingIndexUsed = false, validateIndices = false;
};

ParsedSliceOptions parseSliceOptions(const std::string &fn, const poplar::OptionFlags &options) {
  using H = poputil::OptionHandler;
  ParsedSliceOptions o;
  bool &usedForSlice = o.usedForSlice, &usedForUpdate = o.usedForUpdate;
  bool indicesAreSorted = false;
  double availableMemoryProportion = 0.6;
  std::string operationForUpdate = "add", indicesDistribution = "uniform", target = "memory";
  std::string partialType = "float";
  poputil::OptionSpec(
      fn,
      {{"usedForSlice", H::createWithBool(usedForSlice)},
       {"usedForUpdate", H::createWithBool(usedForUpdate)},
       {"operationForUpdate",
        H::createWithChoice(operationForUpdate, {"none", "add", "max", "mul"})},
       {"availableMemoryProportion",
        H::createWithDouble(availableMemoryProportion, 0.0, std::numeric_limits<double>::max())},
       {"indicesDistribution", H::createWithChoice(indicesDistribution, {"uniform", "onePoint"})},
       {"planMinimisationTarget", H::createWithChoice(target, {"memory", "cycles"})},
       {"indicesAreSorted", H::createWithBool(indicesAreSorted)},
       {"partialType", H::createWithChoice(partialType, {"half", "float"})},
       {"remapOutOfBoundIndices", H::createWithBool(o.remapOutOfBoundIndices)},
       {"paddingIndexUsed", H::createWithBool(o.paddingIndexUsed)},
       {"validateIndices", H::createWithBool(o.validateIndices)}})
      .parse(options);
  return o;
}

} // namespace

bool checkSliceOptions(const std::string &fn, const poplar::OptionFlags &options) {
  const auto o = parseSliceOptions(fn, options);
  return o.usedForSlice || o.usedForUpdate;
}

unsigned indexModeFromOptions(const std::string &fn, const poplar::OptionFlags &options) {
  const auto o = parseSliceOptions(fn, options);
  unsigned mode = 0;
  if (o.remapOutOfBoundIndices)
    mode |= kIndexRemap;
  if (o.paddingIndexUsed)
    mode |= kIndexPadding;
  if (o.validateIndices && !o.remapOutOfBoundIndices)
    mode |= kIndexValidate;
  return mode;
}

void checkSliceShape(const std::string &fn, const poplar::Tensor &t, const poplar::Tensor &s,
                     const std::vector<std::size_t> &expected) {
  if (s.shape() != expected)
    throw poputil::poplibs_error(fn + ": slice tensor " + poputil::describe(s) +
                                 " should have shape " + poputil::shapeString(expected) +
                                 " to update " + poputil::describe(t));
  if (s.elementType() != t.elementType())
    throw poputil::poplibs_error(fn + ": slice tensor " + poputil::describe(s) +
                                 " has element type " + s.elementType().toString() + " but " +
                                 poputil::describe(t) + " has " + t.elementType().toString());
}

} // namespace popops::detail
