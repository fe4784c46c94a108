// Names of the non-linearities (popnn/NonLinearityDef.hpp) as PopLibs spells them, for printing
// and for reading them back from text (command-line tools, config files).
//
// asString / operator<< give "relu", "sigmoid", "tanh", "gelu", "softmax", "softmax (stable)",
// "softmax (scaled, stable)", and for the types PopLibs' table leaves out "hard_sigmoid",
// "gelu_erf", "swish" and (a Tessera extension) "log_softmax". operator>> reads one
// whitespace-delimited token: the single-word names above, "softmax_stable" and
// "softmax_scaled"; anything else throws poputil::poplibs_error naming the token.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include <popnn/NonLinearityDef.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

namespace popnn {

inline const char *asString(const popnn::NonLinearityType &type) {
  switch (type) {
  case popnn::NonLinearityType::RELU:
    return "relu";
  case popnn::NonLinearityType::SIGMOID:
    return "sigmoid";
  case popnn::NonLinearityType::HARD_SIGMOID:
    return "hard_sigmoid";
  case popnn::NonLinearityType::TANH:
    return "tanh";
  case popnn::NonLinearityType::GELU:
    return "gelu";
  case popnn::NonLinearityType::GELU_ERF:
    return "gelu_erf";
  case popnn::NonLinearityType::SWISH:
    return "swish";
  case popnn::NonLinearityType::SOFTMAX:
    return "softmax";
  case popnn::NonLinearityType::SOFTMAX_STABLE:
    return "softmax (stable)";
  case popnn::NonLinearityType::SOFTMAX_SCALED:
    return "softmax (scaled, stable)";
  case popnn::NonLinearityType::LOG_SOFTMAX:
    return "log_softmax";
  }
  throw poputil::poplibs_error("Unsupported non-linearity type " +
                               std::to_string(static_cast<int>(type)));
}

inline std::ostream &operator<<(std::ostream &os, const popnn::NonLinearityType &type) {
  return os << asString(type);
}

inline std::istream &operator>>(std::istream &in, popnn::NonLinearityType &type) {
  std::string token;
  in >> token;
  if (token == "relu")
    type = popnn::NonLinearityType::RELU;
  else if (token == "sigmoid")
    type = popnn::NonLinearityType::SIGMOID;
  else if (token == "hard_sigmoid")
    type = popnn::NonLinearityType::HARD_SIGMOID;
  else if (token == "tanh")
    type = popnn::NonLinearityType::TANH;
  else if (token == "gelu")
    type = popnn::NonLinearityType::GELU;
  else if (token == "gelu_erf")
    type = popnn::NonLinearityType::GELU_ERF;
  else if (token == "swish")
    type = popnn::NonLinearityType::SWISH;
  else if (token == "softmax")
    type = popnn::NonLinearityType::SOFTMAX;
  else if (token == "softmax_stable")
    type = popnn::NonLinearityType::SOFTMAX_STABLE;
  else if (token == "softmax_scaled")
    type = popnn::NonLinearityType::SOFTMAX_SCALED;
  else if (token == "log_softmax")
    type = popnn::NonLinearityType::LOG_SOFTMAX;
  else
    throw poputil::poplibs_error("Unsupported non-linearity type '" + token + "'");
  return in;
}

} // namespace popnn

namespace poputil {

/// Vertex names spell a non-linearity argument as its qualified enumerator,
/// e.g. templateVertex("NonLinearity", FLOAT, RELU) == "NonLinearity<float,popnn::NonLinearityType::RELU>".
template <> struct VertexTemplateToString<popnn::NonLinearityType> {
  static std::string to_string(const popnn::NonLinearityType &type) {
    switch (type) {
    case popnn::NonLinearityType::SIGMOID:
      return "popnn::NonLinearityType::SIGMOID";
    case popnn::NonLinearityType::HARD_SIGMOID:
      return "popnn::NonLinearityType::HARD_SIGMOID";
    case popnn::NonLinearityType::RELU:
      return "popnn::NonLinearityType::RELU";
    case popnn::NonLinearityType::TANH:
      return "popnn::NonLinearityType::TANH";
    case popnn::NonLinearityType::GELU:
      return "popnn::NonLinearityType::GELU";
    case popnn::NonLinearityType::GELU_ERF:
      return "popnn::NonLinearityType::GELU_ERF";
    case popnn::NonLinearityType::SWISH:
      return "popnn::NonLinearityType::SWISH";
    case popnn::NonLinearityType::SOFTMAX:
      return "popnn::NonLinearityType::SOFTMAX";
    case popnn::NonLinearityType::SOFTMAX_STABLE:
      return "popnn::NonLinearityType::SOFTMAX_STABLE";
    case popnn::NonLinearityType::SOFTMAX_SCALED:
      return "popnn::NonLinearityType::SOFTMAX_SCALED";
    case popnn::NonLinearityType::LOG_SOFTMAX:
      return "popnn::NonLinearityType::LOG_SOFTMAX";
    }
    throw poplibs_error("VertexTemplateToString: NonLinearityType value " +
                        std::to_string(static_cast<int>(type)) + " is not a non-linearity");
  }
};

} // namespace poputil
