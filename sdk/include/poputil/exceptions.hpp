#pragma once

#include <string>

#include <poplar/exceptions.hpp>

namespace poputil {

/// Errors raised by the libraries (popops, poplin, popnn) about their arguments.
struct poplibs_error : poplar::poplar_error {
  explicit poplibs_error(const std::string &message)
      : poplar::poplar_error(message, "poplibs_error") {}
};

} // namespace poputil
