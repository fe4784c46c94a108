// Poplar's header for the device `half` type, included by codelets and host code alike. In
// Tessera `half` and its conversions live in <poplar/Half.hpp>; this name brings them in.
#pragma once

#include <poplar/Half.hpp>
