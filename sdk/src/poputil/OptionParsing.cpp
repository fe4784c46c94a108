#include <poputil/OptionParsing.hpp>

#include <cstdlib>
#include <limits>
#include <sstream>

#include <poplar/exceptions.hpp>
#include <poputil/Suggest.hpp>

namespace poputil {

namespace {

/// "'a' or 'b'", "one of 'a', 'b', 'c'".
std::string choiceText(const std::vector<std::string> &names) {
  if (names.size() == 2)
    return "'" + names[0] + "' or '" + names[1] + "'";
  std::string out = "one of ";
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i ? ", '" : "'") + names[i] + "'";
  return out;
}

std::string numberText(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

} // namespace

OptionHandler::OptionHandler(std::vector<std::string> choices, Setter set)
    : expected_(choiceText(choices)), choices_(std::move(choices)), set_(std::move(set)) {}

OptionHandler OptionHandler::createWithBool(bool &output) {
  return OptionHandler(std::vector<std::string>{"true", "false"},
                       [&output](const std::string &value) {
                         if (value != "true" && value != "false")
                           return false;
                         output = value == "true";
                         return true;
                       });
}

OptionHandler OptionHandler::createWithUnsigned(unsigned &output, unsigned lowest) {
  std::string expected = "a non-negative integer";
  if (lowest > 0)
    expected += " (at least " + std::to_string(lowest) + ")";
  return OptionHandler(expected, [&output, lowest](const std::string &value) {
    if (value.empty() || value.size() > 10 ||
        value.find_first_not_of("0123456789") != std::string::npos)
      return false;
    const unsigned long long v = std::stoull(value);
    if (v > std::numeric_limits<unsigned>::max() || v < lowest)
      return false;
    output = static_cast<unsigned>(v);
    return true;
  });
}

OptionHandler OptionHandler::createWithDouble(double &output, double lower, double upper,
                                              bool lowerOpen, bool upperOpen) {
  const std::string expected = "a number in " + std::string(lowerOpen ? "(" : "[") +
                               numberText(lower) + ", " + numberText(upper) +
                               (upperOpen ? ")" : "]");
  return OptionHandler(expected, [=, &output](const std::string &value) {
    char *end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0')
      return false;
    const bool aboveLower = lowerOpen ? v > lower : v >= lower;
    const bool belowUpper = upperOpen ? v < upper : v <= upper;
    if (!(aboveLower && belowUpper)) // also rejects NaN
      return false;
    output = v;
    return true;
  });
}

OptionHandler OptionHandler::createWithString(std::string &output) {
  return OptionHandler("a string", [&output](const std::string &value) {
    output = value;
    return true;
  });
}

OptionHandler OptionHandler::createWithChoice(std::string &output, std::vector<std::string> names) {
  return OptionHandler(names, [&output, names](const std::string &value) {
    for (const auto &name : names)
      if (value == name) {
        output = value;
        return true;
      }
    return false;
  });
}

OptionSpec::OptionSpec(std::string context, std::vector<value_type> handlers)
    : context_(std::move(context)), handlers_(handlers.begin(), handlers.end()) {}

void OptionSpec::parse(const std::string &name, const std::string &value) const {
  const auto it = handlers_.find(name);
  if (it == handlers_.end())
    throw poplar::invalid_option(
        context_ + ": unknown option '" + name + "'" +
        (handlers_.empty() ? std::string(" (it takes no options)") : didYouMean(name, names())));
  const OptionHandler &handler = it->second;
  if (!handler.apply(value))
    throw poplar::invalid_option(context_ + ": option '" + name + "' has value '" + value +
                                 "'; expected " + handler.expected() +
                                 didYouMean(value, handler.choices()));
}

void OptionSpec::parse(const poplar::OptionFlags &options) const {
  for (const auto &[name, value] : options)
    parse(name, value);
}

std::vector<std::string> OptionSpec::names() const {
  std::vector<std::string> out;
  for (const auto &entry : handlers_)
    out.push_back(entry.first);
  return out;
}

} // namespace poputil
