// A tiny graph for optimiser tests: an IPUModel with a few tiles, a BuildContext, parameters
// with host-writable gradients, and float-valued host access to FLOAT and HALF tensors.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Half.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/codelets.hpp>
#include <poprand/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps::test {

/// x rounded to the nearest HALF value.
inline double roundToHalf(double x) {
  return poplar::halfBitsToFloat(poplar::floatToHalfBits(static_cast<float>(x)));
}

class OptimiserRig {
public:
  explicit OptimiserRig(unsigned tiles = 4) {
    poplar::IPUModel ipu;
    ipu.tilesPerIPU = tiles;
    device_.emplace(ipu.createDevice());
    graph_.emplace(device_->getTarget());
    popops::addCodelets(*graph_);
    poprand::addCodelets(*graph_);
    ctx_.emplace(*graph_, poplar::FLOAT, 1);
  }

  poplar::Graph &graph() { return *graph_; }
  BuildContext &ctx() { return *ctx_; }

  /// A parameter of `n` elements of `type` spread over the tiles, with a gradient of the same
  /// type; host handles "<name>" (read, write) and "<name>/grad" (write).
  Parameter &addParameter(const std::string &name, std::size_t n, poplar::Type type, bool decay) {
    poplar::Graph &g = *graph_;
    poplar::Tensor w = g.addVariable(type, {n}, name);
    poputil::mapTensorLinearly(g, w, 1, 1);
    Parameter &p = ctx_->addParameter(name, w, decay);
    p.gradient = g.clone(w, name + "/grad");
    g.createHostWrite(name, w);
    g.createHostRead(name, w);
    g.createHostWrite(name + "/grad", p.gradient);
    types_.emplace_back(name, type);
    types_.emplace_back(name + "/grad", type);
    return p;
  }

  /// A FLOAT [1] tensor on tile 0 with host handle `name` (write and read).
  poplar::Tensor addScalar(const std::string &name) {
    poplar::Tensor t = graph_->addVariable(poplar::FLOAT, {1}, name);
    graph_->setTileMapping(t, 0);
    graph_->createHostWrite(name, t);
    graph_->createHostRead(name, t);
    return t;
  }

  /// Compiles and loads `programs`, then runs program 0 (the initialisation, by convention).
  void load(const std::vector<poplar::program::Program> &programs) {
    engine_ = std::make_unique<poplar::Engine>(*graph_, programs);
    engine_->load(*device_);
    engine_->run(0);
  }
  poplar::Engine &engine() { return *engine_; }

  void write(const std::string &handle, const std::vector<float> &values) {
    if (typeOf(handle) == poplar::HALF) {
      std::vector<std::uint16_t> bits(values.size());
      for (std::size_t i = 0; i < bits.size(); ++i)
        bits[i] = poplar::floatToHalfBits(values[i]);
      engine_->writeTensor(handle, bits.data(), bits.data() + bits.size());
    } else {
      engine_->writeTensor(handle, values.data(), values.data() + values.size());
    }
  }
  void writeScalar(const std::string &handle, float value) { write(handle, {value}); }

  std::vector<float> read(const std::string &handle, std::size_t n) {
    std::vector<float> out(n);
    if (typeOf(handle) == poplar::HALF) {
      std::vector<std::uint16_t> bits(n);
      engine_->readTensor(handle, bits.data(), bits.data() + n);
      for (std::size_t i = 0; i < n; ++i)
        out[i] = poplar::halfBitsToFloat(bits[i]);
    } else {
      engine_->readTensor(handle, out.data(), out.data() + n);
    }
    return out;
  }
  float readScalar(const std::string &handle) { return read(handle, 1).at(0); }

private:
  poplar::Type typeOf(const std::string &handle) const {
    for (const auto &[name, type] : types_)
      if (name == handle)
        return type;
    return poplar::FLOAT;
  }

  std::optional<poplar::Device> device_;
  std::optional<poplar::Graph> graph_;
  std::optional<BuildContext> ctx_;
  std::unique_ptr<poplar::Engine> engine_;
  std::vector<std::pair<std::string, poplar::Type>> types_;
};

} // namespace tessera::apps::test
