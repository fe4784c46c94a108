// Errors thrown by the application layer (data sets, checkpoints, command lines, benchmark
// records). Every one is a poplar::poplar_error so a trainer's top-level handler catches SDK and
// application failures alike; the message names the file, flag or value at fault and says what
// to do about it.
#pragma once

#include <poplar/exceptions.hpp>

#include <string>

namespace tessera::apps {

/// Base of every application-layer error.
struct app_error : poplar::poplar_error {
  explicit app_error(const std::string &message, std::string typeName = "app_error")
      : poplar::poplar_error(message, std::move(typeName)) {}
};

/// A data set file is missing, truncated or malformed.
struct dataset_error : app_error {
  explicit dataset_error(const std::string &message) : app_error(message, "dataset_error") {}
};

/// A checkpoint cannot be written, read, or does not match the model being restored.
struct checkpoint_error : app_error {
  explicit checkpoint_error(const std::string &message) : app_error(message, "checkpoint_error") {}
};

/// A benchmark record file cannot be written or parsed.
struct record_error : app_error {
  explicit record_error(const std::string &message) : app_error(message, "record_error") {}
};

/// A command-line flag is unknown or its value is out of range.
struct cli_error : app_error {
  explicit cli_error(const std::string &message) : app_error(message, "cli_error") {}
};

} // namespace tessera::apps
