// Layers build both passes of a network on a poplar::Graph: forward() appends the forward
// computation to a program and remembers what the backward pass needs; backward() appends the
// gradient computation (parameter gradients into each Parameter, and the gradient with respect
// to the layer's input). Layers own their parameters; an Optimiser updates them.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/MatMul.hpp>

namespace tessera::apps {

/// Training builds batch statistics and saves activations; Inference uses running statistics.
enum class Mode { Training, Inference };

/// A trainable tensor, its gradient (filled by the backward pass) and whether weight decay
/// applies (convolution and dense weights: yes; norms and biases: no).
struct Parameter {
  std::string name;
  poplar::Tensor value;
  poplar::Tensor gradient;
  bool decay = true;
};

/// A non-trainable tensor that belongs in checkpoints (batch-norm running statistics).
struct StateTensor {
  std::string name;
  poplar::Tensor value;
  /// A statistic each replica estimates from its own micro-batch (batch-norm running
  /// statistics): data-parallel trainers average it across replicas every step, so every
  /// replica keeps the same model.
  bool perReplicaStatistic = false;
};

/// What every layer builds with: the graph, the element type, the initialisation program
/// (parameters get their initial values there, from the seed tensor) and shared planning.
class BuildContext {
public:
  BuildContext(poplar::Graph &graph, poplar::Type dataType, std::uint64_t seed);

  poplar::Graph &graph;
  poplar::Type dataType;
  /// Type of what sums many products before it is normalised — attention scores (precision
  /// 16.16 makes them HALF; else FLOAT) — and the options every matMul gets (16.16 adds
  /// partialsType "half").
  poplar::Type partialsType = poplar::FLOAT;
  poplar::OptionFlags matMulOptions;
  /// Plans every convolution and matMul for a real IPU's cycles (poplin planObjective
  /// "ipuCycles", matMulOptions included) and builds every layer on the whole IPU — what
  /// --estimate-ipu compiles — instead of the plans this host runs fastest, in per-layer tile
  /// windows (placementGraph). Call it before the first layer is built.
  void planForIpu();
  bool plansForIpu() const { return plansForIpu_; }
  /// Runs once before training: fills every parameter and state tensor.
  poplar::program::Sequence initialise;
  /// Seed of the initialisers: two UNSIGNED_INT words written from `seed` at initialisation.
  poplar::Tensor seedTensor;
  poplin::PlanningCache planningCache;

  /// A unique modifier per initialiser so no two parameters share random numbers.
  std::uint32_t nextSeedModifier() { return seedModifier_++; }
  /// Seed of the layers that draw new random numbers every training step (Dropout,
  /// StochasticDepth): UNSIGNED_INT [2] on tile 0, created on first use, set from `seedTensor` by
  /// `initialise` and registered as the state "stepSeed", so a checkpoint keeps it and a resumed
  /// run draws the masks the uninterrupted one would have. A step's forward and backward read
  /// the same value and so regenerate the same masks; the trainer moves it on after each step.
  const poplar::Tensor &stepSeed();
  /// Appends "move stepSeed to the next step's value" to `prog` (adds 1 to its second word, as
  /// BERT's dropout seed does); appends nothing when no layer asked for stepSeed(), so models
  /// without such layers keep their programs and checkpoints unchanged.
  void advanceStepSeed(poplar::program::Sequence &prog);
  /// Registers a parameter or state tensor (names must be unique; checkpoints use them).
  Parameter &addParameter(const std::string &name, const poplar::Tensor &value, bool decay);
  void addState(const std::string &name, const poplar::Tensor &value,
                bool perReplicaStatistic = false);
  const std::vector<std::unique_ptr<Parameter>> &parameters() const { return parameters_; }
  const std::vector<StateTensor> &states() const { return states_; }

  /// A virtual graph over a window of tiles for one layer whose working set is about `bytes`:
  /// windows move over the IPU in build order, so small layers (whose plans use few tiles)
  /// do not all pile onto the first tiles. The window has room for kFootprintFactor × `bytes` (a
  /// layer's norm, activation and gradient tensors all inherit its mapping) and at least
  /// kMinWindowTiles tiles (an eighth of a smaller IPU). Deterministic: the same network gets the
  /// same placement. When planning for an IPU, the whole graph.
  poplar::Graph &placementGraph(std::size_t bytes);
  static constexpr unsigned kMinWindowTiles = 64;
  static constexpr std::size_t kFootprintFactor = 16;
  /// The graph to build an operation on `t` in: the newest placement window that holds all of
  /// `t` (so the small tensors it creates land in that window, not on tile 0), else the whole
  /// graph.
  poplar::Graph &graphHolding(const poplar::Tensor &t);

private:
  bool plansForIpu_ = false;
  unsigned nextWindowTile_ = 0; // advanced before first use, so tile 0 (where the whole
                                // graph's small tensors land) starts no window
  std::deque<poplar::Graph> windows_;
  std::uint32_t seedModifier_ = 1;
  poplar::Tensor stepSeed_;
  std::vector<std::unique_ptr<Parameter>> parameters_;
  std::vector<StateTensor> states_;
};

class Layer {
public:
  explicit Layer(std::string name) : name_(std::move(name)) {}
  virtual ~Layer() = default;
  Layer(const Layer &) = delete;
  Layer &operator=(const Layer &) = delete;

  const std::string &name() const { return name_; }

  /// Appends the forward pass of `x` to `prog` and returns the output. The first call creates
  /// the parameters (shapes follow `x`); a later call (e.g. an Inference pass for validation)
  /// reuses them. In Training mode the layer remembers what backward() needs.
  virtual poplar::Tensor forward(BuildContext &ctx, const poplar::Tensor &x, Mode mode,
                                 poplar::program::Sequence &prog) = 0;

  /// Appends the backward pass to `prog` given dL/d(output) of the last Training forward:
  /// fills the parameters' gradients and returns dL/d(input), or an empty tensor when
  /// `needInputGradient` is false (the first layer).
  virtual poplar::Tensor backward(BuildContext &ctx, const poplar::Tensor &gradOut,
                                  bool needInputGradient, poplar::program::Sequence &prog) = 0;

protected:
  std::string name_;
};

using LayerPtr = std::unique_ptr<Layer>;

/// Maps a new tensor shaped like [B][C][fields…] so that each tile holds whole channels-rows:
/// spread linearly over the tiles with a grain of the innermost field size.
void mapActivationLinearly(poplar::Graph &graph, const poplar::Tensor &t);

} // namespace tessera::apps
