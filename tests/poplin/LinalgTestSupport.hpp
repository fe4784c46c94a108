// A small harness for the poplin linear-algebra suites: one IPU Model graph, host-writable
// inputs with a chosen tile mapping, and results read back as double.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Half.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/codelets.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

namespace poplin::testing {

/// Where a test input lives: all on tile 0, or spread linearly over the tiles.
enum class Mapping { OneTile, Linear };

class LinalgHarness {
public:
  explicit LinalgHarness(unsigned tiles = 16) : device_(makeDevice(tiles)) {
    graph_ = std::make_unique<poplar::Graph>(device_.getTarget());
    poplin::addCodelets(*graph_);
    popops::addCodelets(*graph_);
  }
  poplar::Graph &graph() { return *graph_; }
  poplar::program::Sequence &prog() { return prog_; }

  /// A new host-written input of `shape` holding `values` (rounded to `type` on write).
  poplar::Tensor input(const std::string &name, const poplar::Type &type,
                       const std::vector<std::size_t> &shape, const std::vector<double> &values,
                       Mapping mapping = Mapping::Linear) {
    poplar::Tensor t = graph_->addVariable(type, shape, name);
    if (mapping == Mapping::OneTile)
      graph_->setTileMapping(t, 0);
    else
      poputil::mapTensorLinearly(*graph_, t);
    return write(name, t, values);
  }
  /// Writes `values` into an existing tensor before the program runs.
  poplar::Tensor write(const std::string &name, const poplar::Tensor &t,
                       const std::vector<double> &values) {
    graph_->createHostWrite(name, t);
    writes_[name] = {t.elementType(), values};
    return t;
  }
  void output(const std::string &name, const poplar::Tensor &t) {
    graph_->createHostRead(name, t);
    reads_[name] = {t.elementType(), t.numElements()};
  }

  /// Compiles, runs once with `hostThreads` (0: default) and returns every output.
  std::map<std::string, std::vector<double>> run(unsigned hostThreads = 0) {
    poplar::OptionFlags opts;
    if (hostThreads)
      opts.set("target.hostThreads", std::to_string(hostThreads));
    poplar::Engine engine(*graph_, prog_, opts);
    engine.load(device_);
    for (const auto &[name, w] : writes_) {
      if (w.first == poplar::HALF) {
        std::vector<poplar::half> h(w.second.size());
        for (std::size_t i = 0; i < h.size(); ++i)
          h[i] = poplar::half(static_cast<float>(w.second[i]));
        engine.writeTensor(name, h.data(), h.data() + h.size());
      } else {
        std::vector<float> f(w.second.begin(), w.second.end());
        engine.writeTensor(name, f.data(), f.data() + f.size());
      }
    }
    engine.run();
    std::map<std::string, std::vector<double>> out;
    for (const auto &[name, r] : reads_) {
      std::vector<double> v(r.second);
      if (r.first == poplar::HALF) {
        std::vector<poplar::half> h(r.second);
        engine.readTensor(name, h.data(), h.data() + h.size());
        for (std::size_t i = 0; i < h.size(); ++i)
          v[i] = static_cast<float>(h[i]);
      } else {
        std::vector<float> f(r.second);
        engine.readTensor(name, f.data(), f.data() + f.size());
        for (std::size_t i = 0; i < f.size(); ++i)
          v[i] = f[i];
      }
      out[name] = v;
    }
    return out;
  }

private:
  static poplar::Device makeDevice(unsigned tiles) {
    poplar::IPUModel m;
    m.tilesPerIPU = tiles;
    return m.createDevice();
  }
  poplar::Device device_;
  std::unique_ptr<poplar::Graph> graph_;
  poplar::program::Sequence prog_;
  std::map<std::string, std::pair<poplar::Type, std::vector<double>>> writes_;
  std::map<std::string, std::pair<poplar::Type, std::size_t>> reads_;
};

/// Matrix `index` (n×m) of a batch stored flat.
inline std::vector<double> matrixOf(const std::vector<double> &all, std::size_t index,
                                    std::size_t rows, std::size_t cols) {
  return std::vector<double>(all.begin() + index * rows * cols,
                             all.begin() + (index + 1) * rows * cols);
}

} // namespace poplin::testing
