// Filling a vector with consecutive integers: popops::iota, declared by <popops/Encoding.hpp>
// as in PopLibs. Kept so that code including this header keeps compiling.
#pragma once

#include "Encoding.hpp"
