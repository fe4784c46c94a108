// The one options layer of the SDK and the libraries: a table of typed options that reads an
// OptionFlags, rejecting unknown names and malformed values with poplar::invalid_option.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <poplar/OptionFlags.hpp>

namespace poputil {

/// How one option's value string is checked and stored. Each factory binds `output`, which must
/// outlive the handler; the stored value changes only when a value is accepted.
class OptionHandler {
public:
  /// "true" or "false".
  static OptionHandler createWithBool(bool &output);
  /// A decimal integer that fits in `unsigned` and is at least `lowest`.
  static OptionHandler createWithUnsigned(unsigned &output, unsigned lowest = 0);
  /// A number between `lower` and `upper`; an open bound is excluded ((0, 1] is
  /// `lowerOpen = true`).
  static OptionHandler createWithDouble(double &output, double lower, double upper,
                                        bool lowerOpen = false, bool upperOpen = false);
  /// Any string.
  static OptionHandler createWithString(std::string &output);
  /// One of `names`, kept as the string itself.
  static OptionHandler createWithChoice(std::string &output, std::vector<std::string> names);
  /// One of `values`' names; stores the value it maps to.
  template <class T>
  static OptionHandler createWithEnum(T &output, std::map<std::string, T> values) {
    std::vector<std::string> names;
    for (const auto &entry : values)
      names.push_back(entry.first);
    return OptionHandler(std::move(names), [&output, values](const std::string &value) {
      const auto it = values.find(value);
      if (it == values.end())
        return false;
      output = it->second;
      return true;
    });
  }

  /// Stores `value` if this option takes it; false (storing nothing) if not.
  bool apply(const std::string &value) const { return set_(value); }
  /// What the option takes, as error messages say it: "'true' or 'false'", "a number in (0, 1]".
  const std::string &expected() const { return expected_; }
  /// The accepted values of a choice or enum (nearest-value suggestions come from these).
  const std::vector<std::string> &choices() const { return choices_; }

private:
  using Setter = std::function<bool(const std::string &)>;
  OptionHandler(std::string expected, Setter set) : expected_(std::move(expected)), set_(set) {}
  OptionHandler(std::vector<std::string> choices, Setter set);

  std::string expected_;
  std::vector<std::string> choices_;
  Setter set_;
};

/// A table of the options one reader takes (an Engine, popops::reduce, poplin's matMul, …).
/// `context` names that reader in messages: "<context>: unknown option 'x' (did you mean 'y'?)".
class OptionSpec {
public:
  using value_type = std::pair<std::string, OptionHandler>;

  /// A braced list of {name, handler} (a vector lets readers that share options build theirs).
  OptionSpec(std::string context, std::vector<value_type> handlers);

  /// Applies one option. Throws poplar::invalid_option naming the context and the option: for an
  /// unknown name, suggesting the nearest known one; for a value the option does not take,
  /// naming the value, what was expected and the nearest accepted value of a choice.
  void parse(const std::string &name, const std::string &value) const;
  /// Applies every option of `options` in turn.
  void parse(const poplar::OptionFlags &options) const;
  /// The option names, sorted.
  std::vector<std::string> names() const;

private:
  std::string context_;
  std::map<std::string, OptionHandler> handlers_;
};

} // namespace poputil
