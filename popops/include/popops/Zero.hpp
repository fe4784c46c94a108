// Zeroing tensors (declared in Fill.hpp; this header exists where PopLibs users include it).
#pragma once

#include <popops/Fill.hpp>
