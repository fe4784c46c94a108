// What a data-parallel IPU-POD would train at, worked out from the IPU cost model's price of one
// replica's training step (Engine::estimateProgramCycles of a graph planned for the IPU), in the
// configuration Graphcore published a figure for: so many replicas, each a pipeline of one or
// more IPUs, a micro-batch per pass and gradient accumulation before each weight update.
//
// Per weight update, each replica runs `accumulation` micro-batches through its pipeline
// (filling and draining it once: accumulation + stages − 1 slots of the slowest stage), updates
// its weights once, and all replicas average their gradients over IPU-Links (a ring: each IPU
// sends and receives 2·(R−1)/R of its stage's gradients). What this does not capture: host
// I/O (Graphcore's figures feed real images; overlapped there, absent here), the IPU's
// instruction-level details the vertex estimates smooth over (README, "Simulated IPU-POD"),
// recomputation and stochastic rounding.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <tessera/apps/TrainingOptions.hpp>

namespace tessera::apps {

struct PodConfig {
  std::string system = "Bow-POD16";
  unsigned replicas = 16;
  std::size_t microBatch = 1;           ///< samples per replica per pass
  unsigned accumulation = 1;            ///< passes per weight update
  double clockHz = 1.85e9;              ///< Bow IPU tile clock (Mk2 GC200: 1.33 GHz)
  double linkBytesPerSecond = 32e9;     ///< one IPU-Link, one direction (Mk2: 10 links, 320 GB/s)
  std::size_t gradientElementBytes = 2; ///< 16.16 training sends HALF gradients
};

/// A Bow-POD's configuration for `replicas` replicas accumulating `accumulation` micro-batches of
/// `microBatch`, its gradients as wide as `precision` makes them (FLOAT for 32.32, else HALF).
PodConfig podConfigFor(unsigned replicas, std::size_t microBatch, unsigned accumulation,
                       Precision precision);

/// One replica's step as the cost model prices it, per pipeline stage (one IPU each).
struct ReplicaStepCycles {
  std::vector<std::uint64_t> stagePass;   ///< forward + backward of one micro-batch, per stage
  std::vector<std::uint64_t> stageUpdate; ///< the optimiser's update, per stage
  std::size_t parameterElements = 0;      ///< of the whole model (split over the stages)
};

struct PodEstimate {
  double passSeconds = 0;         ///< the slowest stage's pass
  double updateSeconds = 0;       ///< the slowest stage's update
  double allReduceSeconds = 0;    ///< the gradients' ring all-reduce, per weight update
  double weightUpdateSeconds = 0; ///< everything between two weight updates
  std::size_t globalBatch = 0;    ///< samples per weight update over the POD
  double samplesPerSecond = 0;
};

/// Throws app_error for an empty or mismatched stage list, or a zero count, clock or bandwidth.
PodEstimate estimatePod(const ReplicaStepCycles &cycles, const PodConfig &config);

/// A figure a vendor published, to hold the estimate against.
struct PublishedFigure {
  double samplesPerSecond = 0;
  std::string unit;   ///< "img/s", "seq/s"
  std::string source; ///< system, SDK, framework, batch, precision, where it was published
};

/// Prints the estimate, how it was reached and its ratio to `published`; the last line is
/// "ipu-estimate: <model> <system> <samples/s> <unit> published <figure> ratio <r>" ("-" for
/// both without a published figure: samplesPerSecond 0), the line scripts collect.
void printPodEstimate(std::ostream &out, const std::string &model, const PodConfig &config,
                      const ReplicaStepCycles &cycles, const PodEstimate &estimate,
                      const PublishedFigure &published);

} // namespace tessera::apps
