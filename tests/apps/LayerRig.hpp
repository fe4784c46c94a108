// A small device for testing one layer at a time: an IPUModel with a few tiles and every
// library's codelets, a FLOAT BuildContext, host-writable inputs, readable outputs, parameter
// values and gradients, and double-valued host access (the references the tests compare with
// are computed in double).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/codelets.hpp>
#include <popnn/codelets.hpp>
#include <popops/codelets.hpp>
#include <poprand/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps::test {

class LayerRig {
public:
  explicit LayerRig(unsigned tiles = 8, std::uint64_t seed = 1) {
    poplar::IPUModel ipu;
    ipu.tilesPerIPU = tiles;
    device_.emplace(ipu.createDevice());
    graph_.emplace(device_->getTarget());
    popops::addCodelets(*graph_);
    poprand::addCodelets(*graph_);
    poplin::addCodelets(*graph_);
    popnn::addCodelets(*graph_);
    ctx_.emplace(*graph_, poplar::FLOAT, seed);
  }

  poplar::Graph &graph() { return *graph_; }
  BuildContext &ctx() { return *ctx_; }

  /// A FLOAT tensor spread over the tiles, written from the host as `name`.
  poplar::Tensor input(const std::string &name, const std::vector<std::size_t> &shape) {
    poplar::Tensor t = graph_->addVariable(poplar::FLOAT, shape, name);
    poputil::mapTensorLinearly(*graph_, t);
    graph_->createHostWrite(name, t);
    sizes_[name] = t.numElements();
    return t;
  }

  /// Makes `t` readable from the host as `name`.
  void output(const std::string &name, const poplar::Tensor &t) {
    graph_->createHostRead(name, t);
    sizes_[name] = t.numElements();
  }

  /// Every parameter readable and writable as "<name>", its gradient (once backward has set
  /// it) readable as "<name>/grad". Call after building the passes.
  void exposeParameters() {
    for (const auto &p : ctx_->parameters()) {
      graph_->createHostWrite(p->name, p->value);
      output(p->name, p->value);
      if (p->gradient.valid())
        output(p->name + "/grad", p->gradient);
    }
  }

  /// The usual single-layer rig: input "x" and gradient "gradOut" of `shape`; program 1 runs
  /// `layer`'s Training forward ("y") and backward ("gradIn"), program 2 its Inference forward
  /// ("yInference"); parameters exposed and everything loaded.
  void buildTrainingAndInference(Layer &layer, const std::vector<std::size_t> &shape) {
    poplar::Tensor x = input("x", shape), gradOut = input("gradOut", shape);
    poplar::program::Sequence training, inference;
    output("y", layer.forward(*ctx_, x, Mode::Training, training));
    output("gradIn", layer.backward(*ctx_, gradOut, true, training));
    output("yInference", layer.forward(*ctx_, x, Mode::Inference, inference));
    exposeParameters();
    load({training, inference});
  }

  /// Compiles {ctx.initialise, programs…} and runs the initialisation: programs[i] is then
  /// run(i + 1).
  void load(const std::vector<poplar::program::Program> &programs) {
    std::vector<poplar::program::Program> all{ctx_->initialise};
    all.insert(all.end(), programs.begin(), programs.end());
    engine_ = std::make_unique<poplar::Engine>(*graph_, all,
                                               poplar::OptionFlags{{"target.hostThreads", "2"}});
    engine_->load(*device_);
    engine_->run(0);
  }
  void run(unsigned program) { engine_->run(program); }
  /// The loaded engine, for handles of other types than FLOAT.
  poplar::Engine &engine() { return *engine_; }

  void write(const std::string &name, const std::vector<double> &values) {
    std::vector<float> v(values.begin(), values.end());
    engine_->writeTensor(name, v.data(), v.data() + v.size());
  }
  /// Values as the device holds them (rounded to float), so host references see the same.
  std::vector<double> read(const std::string &name) {
    std::vector<float> v(sizes_.at(name));
    engine_->readTensor(name, v.data(), v.data() + v.size());
    return {v.begin(), v.end()};
  }

private:
  std::optional<poplar::Device> device_;
  std::optional<poplar::Graph> graph_;
  std::optional<BuildContext> ctx_;
  std::unique_ptr<poplar::Engine> engine_;
  std::map<std::string, std::size_t> sizes_;
};

} // namespace tessera::apps::test
