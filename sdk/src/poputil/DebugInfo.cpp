// poputil::toProfileValue, OpDebugInfo and PoplibsOpDebugInfo.
#include <poputil/DebugInfo.hpp>

#include "core/GraphData.hpp"
#include "core/TensorData.hpp"

namespace poputil {

using poplar::ProfileValue;

template <> ProfileValue toProfileValue(const bool &t) { return ProfileValue(t); }
template <> ProfileValue toProfileValue(const int &t) { return ProfileValue(t); }
template <> ProfileValue toProfileValue(const unsigned &t) { return ProfileValue(t); }
template <> ProfileValue toProfileValue(const long &t) { return ProfileValue(t); }
template <> ProfileValue toProfileValue(const unsigned long &t) { return ProfileValue(t); }
template <> ProfileValue toProfileValue(const long long &t) { return ProfileValue(t); }
template <> ProfileValue toProfileValue(const unsigned long long &t) { return ProfileValue(t); }
template <> ProfileValue toProfileValue(const float &t) { return ProfileValue(t); }
template <> ProfileValue toProfileValue(const double &t) { return ProfileValue(t); }
template <> ProfileValue toProfileValue(const std::string &t) { return ProfileValue(t); }
template <> ProfileValue toProfileValue(const ProfileValue &t) { return t; }

template <> ProfileValue toProfileValue(const poplar::Tensor &t) {
  if (!t.valid())
    return ProfileValue("<invalid tensor>");
  ProfileValue::Vector shape;
  for (auto d : t.shape())
    shape.emplace_back(d);
  ProfileValue::Map m{{"shape", std::move(shape)}, {"type", t.elementType().toString()}};
  const auto &d = t.data();
  if (d.graph && !d.regions.empty() && d.regions.front().var < d.graph->variables.size())
    m.emplace("name", d.graph->variables[d.regions.front().var].name);
  return m;
}
template <> ProfileValue toProfileValue(const poplar::Type &t) { return t.toString(); }
template <> ProfileValue toProfileValue(const poplar::ComputeSet &t) {
  return ProfileValue::Map{{"id", t.getId()}};
}
template <> ProfileValue toProfileValue(const poplar::OptionFlags &t) {
  ProfileValue::Map m;
  for (const auto &[k, v] : t)
    m.emplace(k, v);
  return m;
}
template <> ProfileValue toProfileValue(const poplar::Interval &t) {
  return ProfileValue::Vector{ProfileValue(t.begin()), ProfileValue(t.end())};
}

OpDebugInfo::OpDebugInfo(const poplar::DebugContext &debugContext, std::string api)
    : poplar::DebugInfo(debugContext, "poplibs") {
  setValue("api", std::move(api));
}

OpDebugInfo::~OpDebugInfo() {
  if (!outputs_.empty())
    setValue("outputs", std::move(outputs_));
}

void OpDebugInfo::add(std::string name, const std::vector<ArgType> &args) {
  ProfileValue::Map m;
  for (const auto &[k, v] : args)
    m.emplace(k, v);
  setValue(std::move(name), std::move(m));
}
void OpDebugInfo::add(std::string name, ProfileValue pv) {
  setValue(std::move(name), std::move(pv));
}
void OpDebugInfo::addOutputs(const std::map<std::string, ProfileValue> &outputs) {
  for (const auto &[k, v] : outputs)
    outputs_.insert_or_assign(k, v);
}
void OpDebugInfo::addOutput(const poplar::Tensor &output) {
  outputs_.insert_or_assign("output", toProfileValue(output));
}

PoplibsOpDebugInfo::PoplibsOpDebugInfo(const poplar::DebugContext &debugContext,
                                       const std::vector<ArgType> &args, const std::string &api)
    : OpDebugInfo(debugContext,
                  api.empty() ? std::string(debugContext.getSourceLocation().getFunctionName())
                              : api) {
  if (!args.empty())
    add("args", args);
}

} // namespace poputil
