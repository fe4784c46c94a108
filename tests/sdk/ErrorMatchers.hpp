// Checks that a call throws exactly the expected poplar exception type with a message that
// names the culprit. Used by the SDK error-path tests.
#pragma once

#include <exception>
#include <initializer_list>
#include <string>
#include <typeinfo>

#include <gtest/gtest.h>

namespace testerrors {

/// Runs `fn` and records a failure unless it throws an exception whose dynamic type is exactly
/// `E` (a subclass of `E` does not count) and whose what() contains every string of `needles`.
template <class E, class Fn>
::testing::AssertionResult throwsWithMessage(Fn &&fn, std::initializer_list<std::string> needles) {
  try {
    fn();
  } catch (const E &e) {
    if (typeid(e) != typeid(E))
      return ::testing::AssertionFailure()
             << "threw a subclass (" << typeid(e).name() << ") of the expected " << typeid(E).name()
             << ": " << e.what();
    const std::string message = e.what();
    for (const auto &needle : needles)
      if (message.find(needle) == std::string::npos)
        return ::testing::AssertionFailure()
               << "message \"" << message << "\" does not contain \"" << needle << "\"";
    return ::testing::AssertionSuccess();
  } catch (const std::exception &e) {
    return ::testing::AssertionFailure() << "threw " << typeid(e).name() << " instead of "
                                         << typeid(E).name() << ": " << e.what();
  } catch (...) {
    return ::testing::AssertionFailure() << "threw a non-std exception";
  }
  return ::testing::AssertionFailure() << "did not throw " << typeid(E).name();
}

} // namespace testerrors

/// EXPECT_THROW_MSG(poplar::index_error, t.slice(0, 9), {"slice", "'x'"});
#define EXPECT_THROW_MSG(E, stmt, ...)                                                             \
  EXPECT_TRUE(testerrors::throwsWithMessage<E>([&] { (void)(stmt); }, __VA_ARGS__))
