// Argument checks shared by the slicing functions; each throws poputil::poplibs_error whose
// message starts with the function name and names the tensor and the bad argument.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Tensor.hpp>

namespace popops::detail {

/// dims.size() == sizes.size(), each dim < rank and distinct, sizes[i] <= shape[dims[i]].
void checkShapeDimsSizes(const std::string &fn, const std::vector<std::size_t> &shape,
                         const std::vector<std::size_t> &dims,
                         const std::vector<std::size_t> &sizes, const std::string &tensor = "");
/// As above for tensor `t` (named in the message).
void checkDimsSizes(const std::string &fn, const poplar::Tensor &t,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes);
/// The offsets tensor is UNSIGNED_INT.
void checkOffsetType(const std::string &fn, const poplar::Tensor &offsets);
/// The slice and embedding-plan options PopLibs documents ("usedForSlice", "usedForUpdate",
/// "operationForUpdate", "availableMemoryProportion", "indicesDistribution",
/// "planMinimisationTarget", "indicesAreSorted"). Values are checked; none changes Tessera's
/// layout or results. Any other key or a bad value throws poplar::invalid_option naming it.
/// Returns false when both usedForSlice and usedForUpdate are "false".
bool checkSliceOptions(const std::string &fn, const poplar::OptionFlags &options);

/// The options that change how offsets are read (see DynamicSlice.hpp), as vertex index-mode
/// bits (SliceRows.hpp): remapOutOfBoundIndices, paddingIndexUsed, validateIndices.
unsigned indexModeFromOptions(const std::string &fn, const poplar::OptionFlags &options);
/// `s` has exactly `expected` as its shape and `t`'s element type.
void checkSliceShape(const std::string &fn, const poplar::Tensor &t, const poplar::Tensor &s,
                     const std::vector<std::size_t> &expected);

} // namespace popops::detail
