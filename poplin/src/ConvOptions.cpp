#include "ConvOptions.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>
#include <vector>

#include <poplar/exceptions.hpp>

namespace poplin::detail {
namespace {

constexpr std::array<std::string_view, 10> kOptionNames = {
    "availableMemoryProportion", "partialsType",           "pass",
    "use128BitConvUnitLoad",     "enableMultiStageReduce", "enableFastReduce",
    "planConstraints",           "remapOutputTensor",      "enableConvDithering",
    "disableSRForAMPConvs"};

constexpr std::array<std::string_view, 9> kPassNames = {
    "NONE",          "INFERENCE_FWD",    "TRAINING_FWD",    "TRAINING_BWD",
    "TRAINING_WU",   "FC_INFERENCE_FWD", "FC_TRAINING_FWD", "FC_TRAINING_BWD",
    "FC_TRAINING_WU"};

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1u : 0u)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

template <std::size_t N>
std::string suggestion(std::string_view name, const std::array<std::string_view, N> &names) {
  std::string_view best;
  std::size_t bestDistance = ~std::size_t(0);
  for (auto candidate : names) {
    const std::size_t d = editDistance(name, candidate);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return bestDistance <= std::max<std::size_t>(3, name.size() / 2)
             ? " (did you mean '" + std::string(best) + "'?)"
             : "";
}

} // namespace

std::string ConvOptions::key() const {
  return std::to_string(availableMemoryProportion) + "/" + partialsType.toString() + "/" + pass;
}

ConvOptions parseConvOptions(const poplar::OptionFlags &options) {
  ConvOptions result;
  for (const auto &[name, value] : options) {
    if (std::find(kOptionNames.begin(), kOptionNames.end(), name) == kOptionNames.end())
      throw poplar::invalid_option("unknown convolution option '" + name + "'" +
                                   suggestion(name, kOptionNames));
    if (name == "availableMemoryProportion") {
      char *end = nullptr;
      const double v = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0')
        throw poplar::invalid_option(
            "convolution option availableMemoryProportion must be a number, not '" + value + "'");
      if (!(v > 0.0 && v <= 1.0))
        throw poplar::invalid_option(
            "convolution option availableMemoryProportion must be in (0, 1], not " + value);
      result.availableMemoryProportion = v;
    } else if (name == "partialsType") {
      if (value == "float")
        result.partialsType = poplar::FLOAT;
      else if (value == "half")
        result.partialsType = poplar::HALF;
      else
        throw poplar::invalid_option(
            "convolution option partialsType must be 'float' or 'half', not '" + value + "'");
    } else if (name == "pass") {
      if (std::find(kPassNames.begin(), kPassNames.end(), value) == kPassNames.end())
        throw poplar::invalid_option("convolution option pass: unknown pass '" + value + "'" +
                                     suggestion(value, kPassNames));
      result.pass = value;
    }
  }
  return result;
}

} // namespace poplin::detail
