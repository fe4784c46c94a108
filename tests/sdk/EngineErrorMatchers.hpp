// Helpers for Engine, program and vertex tests: exact-type exception checks and small devices.
#pragma once

#include <functional>
#include <source_location>
#include <string>
#include <typeinfo>
#include <vector>

#include <gtest/gtest.h>

#include <poplar/Device.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>

namespace enginetest {

/// Runs `fn` and checks that it throws exactly `E` (not a base or another subclass) and that
/// the message contains every string of `parts`. Failures are reported at the caller's line.
template <class E, class Fn>
void expectThrowWithMessage(Fn &&fn, const std::vector<std::string> &parts,
                            std::source_location where = std::source_location::current()) {
  try {
    fn();
  } catch (const E &e) {
    if (typeid(e) != typeid(E)) {
      ADD_FAILURE_AT(where.file_name(), where.line())
          << "expected exactly " << typeid(E).name() << " but got the subclass " << typeid(e).name()
          << ": " << e.what();
      return;
    }
    const std::string message = e.what();
    for (const auto &p : parts)
      if (message.find(p) == std::string::npos)
        ADD_FAILURE_AT(where.file_name(), where.line())
            << "the message does not mention \"" << p << "\"; it is: " << message;
    return;
  } catch (const std::exception &e) {
    ADD_FAILURE_AT(where.file_name(), where.line())
        << "expected " << typeid(E).name() << " but got " << typeid(e).name() << ": " << e.what();
    return;
  } catch (...) {
    ADD_FAILURE_AT(where.file_name(), where.line())
        << "expected " << typeid(E).name() << " but got a non-standard exception";
    return;
  }
  ADD_FAILURE_AT(where.file_name(), where.line())
      << "expected " << typeid(E).name() << " but nothing was thrown";
}

/// A small IPU Model device: `tiles` tiles, `workers` worker contexts per tile.
inline poplar::Device smallDevice(unsigned tiles = 4, unsigned workers = 6) {
  poplar::IPUModel model;
  model.tilesPerIPU = tiles;
  model.numWorkerContexts = workers;
  return model.createDevice();
}

} // namespace enginetest
