// A small batch-normalised MLP trained for a few steps on deterministic synthetic batches, for
// the replicated-training checks (one process and tessera-run instances must agree bit for bit).
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <tessera/apps/ClassifierTrainer.hpp>
#include <tessera/apps/layers/BatchNorm.hpp>
#include <tessera/apps/layers/Dense.hpp>
#include <tessera/apps/layers/Sequential.hpp>
#include <tessera/apps/layers/Simple.hpp>

namespace tessera::apps::testing {

inline LayerPtr replicatedMlp(bool batchNorm) {
  auto net = std::make_unique<Sequential>("mlp");
  net->add(std::make_unique<Flatten>("flatten"));
  net->add(std::make_unique<Dense>("fc1", 28 * 28, 32));
  if (batchNorm)
    net->add(std::make_unique<BatchNorm>("bn1", 32));
  net->add(std::make_unique<ReLU>("relu1"));
  net->add(std::make_unique<Dense>("fc2", 32, 10));
  return net;
}

/// Step `step`'s batch of `size` images: the same for every replica layout.
inline Batch syntheticBatch(std::size_t size, unsigned step) {
  Batch b;
  b.size = b.validImages = size;
  b.imageSize = 28;
  std::mt19937 gen(77 + step);
  std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
  b.images.resize(size * 28 * 28);
  for (auto &x : b.images)
    x = pixel(gen);
  for (std::size_t i = 0; i < size; ++i)
    b.labels.push_back(static_cast<std::uint32_t>(gen() % 10));
  return b;
}

/// Every parameter after `steps` steps of `replicas` × `microBatch` (state included).
struct TrainedModel {
  std::vector<std::vector<float>> parameters;
  std::vector<double> losses;
};

inline TrainedModel trainReplicated(unsigned replicas, std::size_t microBatch, unsigned steps,
                                    bool batchNorm, unsigned hostThreads = 1) {
  ClassifierSpec spec;
  spec.modelName = "mlp";
  spec.tiles = 16;
  spec.replicas = replicas;
  TrainingOptions o;
  o.batchSize = microBatch;
  o.learningRate = 0.05;
  o.momentum = 0.9;
  o.weightDecay = 1e-4;
  o.lrSchedule = LrSchedule::Constant;
  o.hostThreads = hostThreads;
  std::ostringstream log;
  ClassifierTrainer trainer(replicatedMlp(batchNorm), spec, o, log);
  trainer.initialise();
  TrainedModel m;
  for (unsigned s = 0; s < steps; ++s)
    m.losses.push_back(trainer.trainStep(syntheticBatch(trainer.batchSize(), s), 0.05).loss);
  for (const auto &name : trainer.parameterNames())
    m.parameters.push_back(trainer.readParameter(name));
  const auto state = trainer.snapshot(steps, {});
  for (const auto &t : state.optimiserState)
    m.parameters.push_back(t.data);
  return m;
}

/// FNV-1a over the bits of every value, printed by the layout checks.
inline std::uint64_t fingerprint(const TrainedModel &m) {
  std::uint64_t h = 1469598103934665603ull;
  for (const auto &p : m.parameters)
    for (float v : p) {
      std::uint32_t bits;
      std::memcpy(&bits, &v, 4);
      for (int k = 0; k < 4; ++k) {
        h ^= (bits >> (8 * k)) & 0xffu;
        h *= 1099511628211ull;
      }
    }
  return h;
}

} // namespace tessera::apps::testing
