#include "ConvOptions.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include <poplar/exceptions.hpp>

#include "OptionSuggestion.hpp"

namespace poplin::detail {
namespace {

constexpr std::array<std::string_view, 13> kOptionNames = {"availableMemoryProportion",
                                                           "partialsType",
                                                           "pass",
                                                           "use128BitConvUnitLoad",
                                                           "enableMultiStageReduce",
                                                           "enableFastReduce",
                                                           "planConstraints",
                                                           "remapOutputTensor",
                                                           "enableConvDithering",
                                                           "disableSRForAMPConvs",
                                                           "pointwiseAsMatMul",
                                                           "useWinograd",
                                                           "im2colMatMul"};

constexpr std::array<std::string_view, 9> kPassNames = {
    "NONE",          "INFERENCE_FWD",    "TRAINING_FWD",    "TRAINING_BWD",
    "TRAINING_WU",   "FC_INFERENCE_FWD", "FC_TRAINING_FWD", "FC_TRAINING_BWD",
    "FC_TRAINING_WU"};

/// The value of a Tessera method option: "auto", "true" or "false".
const std::string &methodChoice(const std::string &name, const std::string &value) {
  if (value != "auto" && value != "true" && value != "false")
    throw poplar::invalid_option("convolution option " + name +
                                 " must be 'auto', 'true' or 'false', not '" + value + "'");
  return value;
}

} // namespace

std::string ConvOptions::key() const {
  return std::to_string(availableMemoryProportion) + "/" + partialsType.toString() + "/" + pass +
         "/" + pointwiseAsMatMul + "/" + useWinograd + "/" + im2colMatMul;
}

ConvOptions parseConvOptions(const poplar::OptionFlags &options) {
  ConvOptions result;
  for (const auto &[name, value] : options) {
    if (std::find(kOptionNames.begin(), kOptionNames.end(), name) == kOptionNames.end())
      throw poplar::invalid_option("unknown convolution option '" + name + "'" +
                                   didYouMean(name, kOptionNames));
    if (name == "availableMemoryProportion") {
      result.availableMemoryProportion = parseMemoryProportion("convolution", value);
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
                                     didYouMean(value, kPassNames));
      result.pass = value;
    } else if (name == "pointwiseAsMatMul") {
      result.pointwiseAsMatMul = methodChoice(name, value);
    } else if (name == "useWinograd") {
      result.useWinograd = methodChoice(name, value);
    } else if (name == "im2colMatMul") {
      result.im2colMatMul = methodChoice(name, value);
    }
  }
  return result;
}

} // namespace poplin::detail
