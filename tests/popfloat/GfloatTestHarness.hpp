// Shared by the gfloat suites: a small IPU model graph with popfloat's codelets, tensors laid out
// on one tile or spread linearly over 16, host data in and out as doubles (FLOAT/HALF values) or
// integers (CHAR/SHORT codes), and helpers turning a reference format into GfloatCast configs.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <popfloat/experimental/CastToGfloat.hpp>
#include <popfloat/experimental/codelets.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Half.hpp>
#include <poplar/IPUModel.hpp>
#include <poputil/TileMapping.hpp>
#include <reference/Gfloat.hpp>

namespace gfloat_test {

using popfloat::experimental::GfloatCast;
using popfloat::experimental::RoundType;

enum class Layout { SINGLE_TILE, MULTI_TILE };

class Harness {
public:
  explicit Harness(Layout layout)
      : layout_(layout), device_(makeDevice()), graph_(device_.getTarget()) {
    popfloat::experimental::addCodelets(graph_);
  }
  poplar::Graph &graph() { return graph_; }
  poplar::program::Sequence &prog() { return prog_; }

  /// A new variable of `type` holding `values` (numbers for FLOAT/HALF, codes for CHAR/SHORT).
  poplar::Tensor input(const poplar::Type &type, const std::vector<double> &values,
                       const std::string &name) {
    poplar::Tensor t = graph_.addVariable(type, {values.size()}, name);
    if (layout_ == Layout::SINGLE_TILE)
      graph_.setTileMapping(t, 0);
    else
      poputil::mapTensorLinearly(graph_, t, 1, 1);
    graph_.createHostWrite(name, t);
    inputs_.push_back({name, type, values});
    return t;
  }
  void output(const std::string &name, const poplar::Tensor &t) {
    graph_.createHostRead(name, t);
    outputs_.push_back({name, t.elementType(), std::vector<double>(t.numElements())});
  }
  std::map<std::string, std::vector<double>> run(unsigned hostThreads = 1, unsigned times = 1) {
    poplar::OptionFlags options;
    options.set("target.hostThreads", std::to_string(hostThreads));
    poplar::Engine engine(graph_, prog_, options);
    engine.load(device_);
    for (auto &in : inputs_) {
      auto bytes = toBytes(in.type, in.values);
      engine.writeTensor(in.name, bytes.data(), bytes.data() + bytes.size());
    }
    for (unsigned i = 0; i < times; ++i)
      engine.run(0);
    std::map<std::string, std::vector<double>> result;
    for (auto &out : outputs_) {
      std::vector<unsigned char> bytes(out.values.size() * size(out.type));
      engine.readTensor(out.name, bytes.data(), bytes.data() + bytes.size());
      result[out.name] = fromBytes(out.type, bytes);
    }
    return result;
  }

  static std::size_t size(const poplar::Type &t) {
    return t == poplar::CHAR ? 1 : (t == poplar::HALF || t == poplar::SHORT) ? 2 : 4;
  }

private:
  struct Buffer {
    std::string name;
    poplar::Type type;
    std::vector<double> values;
  };
  poplar::Device makeDevice() const {
    poplar::IPUModel m;
    m.tilesPerIPU = layout_ == Layout::SINGLE_TILE ? 4 : 16;
    return m.createDevice();
  }
  static std::vector<unsigned char> toBytes(const poplar::Type &type,
                                            const std::vector<double> &v) {
    std::vector<unsigned char> bytes(v.size() * size(type));
    for (std::size_t i = 0; i < v.size(); ++i) {
      unsigned char *p = bytes.data() + i * size(type);
      if (type == poplar::FLOAT) {
        const float f = static_cast<float>(v[i]);
        std::memcpy(p, &f, 4);
      } else if (type == poplar::HALF) {
        const std::uint16_t h = poplar::floatToHalfBits(static_cast<float>(v[i]));
        std::memcpy(p, &h, 2);
      } else if (type == poplar::CHAR) {
        p[0] = static_cast<unsigned char>(static_cast<unsigned>(v[i]));
      } else if (type == poplar::SHORT) {
        const std::uint16_t s = static_cast<std::uint16_t>(static_cast<unsigned>(v[i]));
        std::memcpy(p, &s, 2);
      } else {
        const std::int32_t x = static_cast<std::int32_t>(v[i]);
        std::memcpy(p, &x, 4);
      }
    }
    return bytes;
  }
  /// FLOAT/HALF as their values; CHAR/SHORT as unsigned codes; INT as integers.
  static std::vector<double> fromBytes(const poplar::Type &type,
                                       const std::vector<unsigned char> &bytes) {
    const std::size_t n = bytes.size() / size(type);
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned char *p = bytes.data() + i * size(type);
      if (type == poplar::FLOAT) {
        float f;
        std::memcpy(&f, p, 4);
        v[i] = f;
      } else if (type == poplar::HALF) {
        std::uint16_t h;
        std::memcpy(&h, p, 2);
        v[i] = poplar::halfBitsToFloat(h);
      } else if (type == poplar::CHAR) {
        v[i] = p[0];
      } else if (type == poplar::SHORT) {
        std::uint16_t s;
        std::memcpy(&s, p, 2);
        v[i] = s;
      } else {
        std::int32_t x;
        std::memcpy(&x, p, 4);
        v[i] = x;
      }
    }
    return v;
  }

  Layout layout_;
  poplar::Device device_;
  poplar::Graph graph_;
  poplar::program::Sequence prog_;
  std::vector<Buffer> inputs_, outputs_;
};

inline reference::GfloatRound toReference(RoundType r) {
  switch (r) {
  case RoundType::RZ:
    return reference::GfloatRound::RZ;
  case RoundType::RN:
    return reference::GfloatRound::RN;
  case RoundType::RA:
    return reference::GfloatRound::RA;
  case RoundType::RU:
    return reference::GfloatRound::RU;
  case RoundType::RD:
    return reference::GfloatRound::RD;
  case RoundType::SR:
    return reference::GfloatRound::SR;
  default:
    return reference::GfloatRound::SX;
  }
}

inline GfloatCast::FormatConfig formatConfig(const reference::GfloatFormat &f,
                                             poplar::Type calculationType) {
  return GfloatCast::FormatConfig(f.man, f.exp, f.bias, f.denorms, f.infsAndNans, calculationType);
}

/// `v` as a FLOAT tensor on a tile holds it: tiles keep no float subnormals (flushed to signed
/// zeros, as on the IPU).
inline double tileFloat(double v) {
  return v != 0.0 && std::fabs(v) < 0x1p-126 ? std::copysign(0.0, v) : v;
}

/// Equal as numbers, with NaN equal to NaN and -0 distinct from +0.
inline bool sameValue(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

/// Inputs probing every rounding decision of a small format: each value, the midpoint and the
/// quarter points between neighbours, values past the largest, both signs, zero, inf and NaN.
inline std::vector<double> probeValues(const reference::GfloatFormat &f) {
  std::vector<double> v;
  const auto values = reference::gfloatPositiveValues(f);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double y = values[i].first;
    v.push_back(y);
    if (i + 1 < values.size()) {
      const double y2 = values[i + 1].first;
      for (double t : {0.25, 0.5, 0.75})
        v.push_back(y + (y2 - y) * t);
    }
  }
  const double top = values.back().first;
  for (double s : {1.0001, 1.5, 4.0})
    v.push_back(top * s);
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i)
    v.push_back(-v[i]);
  v.push_back(std::numeric_limits<double>::infinity());
  v.push_back(-std::numeric_limits<double>::infinity());
  v.push_back(std::numeric_limits<double>::quiet_NaN());
  return v;
}

} // namespace gfloat_test
