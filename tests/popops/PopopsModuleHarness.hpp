// Shared by the tests of the smaller popops modules (Pad, Encoding, NaN, AllTrue, Loop, …):
// build a graph on an IPU model laid out on one tile or spread over 16, feed host data given as
// double (converted to the tensor's type), run, and read results back as double.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Half.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/codelets.hpp>
#include <reference/DeviceValues.hpp>
#include <poputil/TileMapping.hpp>

namespace popops_test {

/// How inputs are laid out: all on tile 0 of a 4-tile model, or linearly over 16 tiles.
enum class Layout { SINGLE_TILE, MULTI_TILE };

inline const char *layoutName(Layout l) { return l == Layout::SINGLE_TILE ? "1tile" : "16tiles"; }

class Harness {
public:
  explicit Harness(Layout layout = Layout::MULTI_TILE)
      : layout_(layout), device_(makeDevice(layout)), graph_(device_.getTarget()) {
    popops::addCodelets(graph_);
  }

  poplar::Graph &graph() { return graph_; }
  poplar::program::Sequence &prog() { return prog_; }

  /// Lays `t` out per the harness's Layout.
  void map(const poplar::Tensor &t) {
    if (layout_ == Layout::SINGLE_TILE)
      graph_.setTileMapping(t, 0);
    else
      poputil::mapTensorLinearly(graph_, t, 1, 1);
  }

  /// A new variable laid out per the Layout, written with `values` before the program runs.
  poplar::Tensor input(const poplar::Type &type, const std::vector<std::size_t> &shape,
                       const std::vector<double> &values, const std::string &name) {
    poplar::Tensor t = graph_.addVariable(type, shape, name);
    map(t);
    input(t, values, name);
    return t;
  }

  /// Registers a tensor the caller created and mapped as an input holding `values`.
  void input(const poplar::Tensor &t, const std::vector<double> &values, const std::string &name) {
    graph_.createHostWrite(name, t);
    inputs_.push_back({name, t.elementType(), values});
  }

  /// Marks `t` to be read back after run() under `name`.
  void output(const std::string &name, const poplar::Tensor &t) {
    graph_.createHostRead(name, t);
    outputs_.push_back({name, t.elementType(), t.numElements()});
  }

  /// Compiles (with `hostThreads` worker threads), writes the inputs, runs the program once and
  /// reads every output.
  std::map<std::string, std::vector<double>> run(unsigned hostThreads = 1) {
    poplar::OptionFlags options;
    options.set("target.hostThreads", std::to_string(hostThreads));
    poplar::Engine engine(graph_, prog_, options);
    engine.load(device_);
    for (auto &in : inputs_) {
      auto bytes = reference::toDeviceBytes(in.type, in.values);
      engine.writeTensor(in.name, bytes.data(), bytes.data() + bytes.size());
    }
    engine.run(0);
    std::map<std::string, std::vector<double>> result;
    for (auto &out : outputs_) {
      std::vector<unsigned char> bytes(out.count * typeBytes(out.type));
      engine.readTensor(out.name, bytes.data(), bytes.data() + bytes.size());
      result[out.name] = reference::fromDeviceBytes(out.type, bytes, out.count);
    }
    return result;
  }

  static std::size_t typeBytes(const poplar::Type &t) { return reference::deviceBytes(t); }

private:
  static poplar::Device makeDevice(Layout l) {
    poplar::IPUModel m;
    m.tilesPerIPU = l == Layout::SINGLE_TILE ? 4 : 16;
    return m.createDevice();
  }

  struct Input {
    std::string name;
    poplar::Type type;
    std::vector<double> values;
  };
  struct Output {
    std::string name;
    poplar::Type type;
    std::size_t count;
  };

  Layout layout_;
  poplar::Device device_;
  poplar::Graph graph_;
  poplar::program::Sequence prog_;
  std::vector<Input> inputs_;
  std::vector<Output> outputs_;
};

} // namespace popops_test
