// How error messages of the SDK and the libraries print shapes and name tensors.
#pragma once

#include <cstddef>
#include <string>

#include <poplar/ArrayRef.hpp>
#include <poplar/Tensor.hpp>

namespace poputil {

/// "[2,3]" ("[]" for a scalar).
std::string shapeString(poplar::ArrayRef<std::size_t> shape);

/// "'weights' (float[3,4])": the debug name of the tensor's first variable ("… and other
/// variables" when it spans several) and its type and shape; "<invalid tensor>" for a
/// default-constructed one.
std::string describe(const poplar::Tensor &t);

} // namespace poputil
