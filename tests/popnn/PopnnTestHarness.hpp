// Shared by the popnn tests: build a graph on a small IPU model, feed host data (double, converted
// to the tensor's type), run once, read results back as double; random data and a central finite
// difference helper.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Half.hpp>
#include <poplar/IPUModel.hpp>
#include <popnn/codelets.hpp>
#include <reference/Common.hpp>
#include <reference/DeviceValues.hpp>
#include <poputil/TileMapping.hpp>

namespace popnn_test {

/// How test inputs are laid out: all on tile 0 of a 4-tile model, or spread over 16 tiles.
enum class Layout { SINGLE_TILE, MULTI_TILE };

inline const char *layoutName(Layout l) { return l == Layout::SINGLE_TILE ? "1tile" : "16tiles"; }

inline poplar::Device makeDevice(Layout l) {
  poplar::IPUModel m;
  m.tilesPerIPU = l == Layout::SINGLE_TILE ? 4 : 16;
  return m.createDevice();
}

using ::reference::numElements;
using ::reference::roundTo;

inline std::vector<double> randomValues(std::size_t n, unsigned seed, double lo = -2.0,
                                        double hi = 2.0) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (auto &x : v)
    x = dist(gen);
  return v;
}

class Harness {
public:
  explicit Harness(Layout layout)
      : layout_(layout), device_(makeDevice(layout)), graph_(device_.getTarget()) {
    popnn::addCodelets(graph_);
  }

  poplar::Graph &graph() { return graph_; }
  poplar::program::Sequence &prog() { return prog_; }

  /// A new variable holding `values`, laid out per the harness's Layout.
  poplar::Tensor input(const poplar::Type &type, const std::vector<std::size_t> &shape,
                       const std::vector<double> &values, const std::string &name) {
    poplar::Tensor t = graph_.addVariable(type, shape, name);
    if (layout_ == Layout::SINGLE_TILE)
      graph_.setTileMapping(t, 0);
    else
      poputil::mapTensorLinearly(graph_, t, 1, 1);
    graph_.createHostWrite(name, t);
    inputs_.push_back({name, type, values});
    return t;
  }

  /// Registers `t`, a tensor (or view) the caller created and laid out, as an input holding
  /// `values` in t's own element order.
  void input(const poplar::Tensor &t, const std::vector<double> &values, const std::string &name) {
    graph_.createHostWrite(name, t);
    inputs_.push_back({name, t.elementType(), values});
  }

  /// Marks `t` to be read back after run() under `name`.
  void output(const std::string &name, const poplar::Tensor &t) {
    graph_.createHostRead(name, t);
    outputs_.push_back({name, t.elementType(), std::vector<double>(t.numElements())});
  }

  /// Compiles, writes inputs, runs `prog()` `times` times, reads every output.
  std::map<std::string, std::vector<double>> run(unsigned times = 1,
                                                 const poplar::OptionFlags &options = {}) {
    poplar::Engine engine(graph_, prog_, options);
    engine.load(device_);
    for (auto &in : inputs_) {
      auto bytes = reference::toDeviceBytes(in.type, in.values);
      engine.writeTensor(in.name, bytes.data(), bytes.data() + bytes.size());
    }
    for (unsigned i = 0; i < times; ++i)
      engine.run(0);
    std::map<std::string, std::vector<double>> result;
    for (auto &out : outputs_) {
      std::vector<unsigned char> bytes(out.values.size() * typeBytes(out.type));
      engine.readTensor(out.name, bytes.data(), bytes.data() + bytes.size());
      result[out.name] = reference::fromDeviceBytes(out.type, bytes, out.values.size());
    }
    return result;
  }

  static std::size_t typeBytes(const poplar::Type &t) { return reference::deviceBytes(t); }

private:
  struct Buffer {
    std::string name;
    poplar::Type type;
    std::vector<double> values;
  };

  Layout layout_;
  poplar::Device device_;
  poplar::Graph graph_;
  poplar::program::Sequence prog_;
  std::vector<Buffer> inputs_, outputs_;
};

using ::reference::dot;
using ::reference::finiteDifference;

/// |got - want| <= atol + rtol * |want| element by element.
inline void expectClose(const std::vector<double> &got, const std::vector<double> &want,
                        double atol, double rtol, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], atol + rtol * std::abs(want[i])) << what << " element " << i;
}

} // namespace popnn_test
