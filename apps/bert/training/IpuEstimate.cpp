#include "training/IpuEstimate.hpp"

#include <malloc.h>

#include <ostream>
#include <sstream>

#include <tessera/apps/Errors.hpp>

#include "training/PretrainingSession.hpp"

namespace tessera::bert {

apps::ReplicaStepCycles pipelineStageCycles(const apps::IpuStepCycles &oneLayer,
                                            const apps::IpuStepCycles &twoLayers,
                                            const std::vector<unsigned> &layersPerStage) {
  if (twoLayers.forwardBackward <= oneLayer.forwardBackward ||
      twoLayers.parameterElements <= oneLayer.parameterElements)
    throw apps::app_error("IPU estimate: two encoder layers priced at " +
                          std::to_string(twoLayers.forwardBackward) + " cycles, one at " +
                          std::to_string(oneLayer.forwardBackward) +
                          ": a layer's price cannot be read from them");
  const std::uint64_t layerPass = twoLayers.forwardBackward - oneLayer.forwardBackward;
  const std::uint64_t layerUpdate =
      twoLayers.update > oneLayer.update ? twoLayers.update - oneLayer.update : 0;
  const std::size_t layerParameters = twoLayers.parameterElements - oneLayer.parameterElements;
  // What the one-layer session spends besides its layer: embeddings, heads, losses.
  const std::uint64_t sharedPass = oneLayer.forwardBackward - layerPass;
  const std::uint64_t sharedUpdate =
      oneLayer.update > layerUpdate ? oneLayer.update - layerUpdate : 0;
  const std::size_t sharedParameters = oneLayer.parameterElements - layerParameters;

  apps::ReplicaStepCycles stages;
  stages.parameterElements = sharedParameters;
  for (std::size_t s = 0; s < layersPerStage.size(); ++s) {
    const std::uint64_t n = layersPerStage[s];
    stages.stagePass.push_back(n * layerPass + (s == 0 ? sharedPass : 0));
    stages.stageUpdate.push_back(n * layerUpdate + (s == 0 ? sharedUpdate : 0));
    stages.parameterElements += n * layerParameters;
  }
  return stages;
}

void runIpuEstimate(const BertCommandLine &o, std::ostream &out) {
  SessionOptions session = sessionOptionsOf(o);
  session.planForIpu = true;
  session.replicas = 1;
  session.stepsPerRun = 1;
  // Accumulating, as the POD does: each micro-batch also adds its gradients to the sums.
  session.gradientAccumulation = 2;
  if (session.optimiser == OptimiserKind::Sgd)
    session.optimiser = OptimiserKind::Lamb;
  apps::IpuStepCycles priced[2];
  for (unsigned layers : {1u, 2u}) {
    session.config.layers = layers;
    out << "compiling " << layers << " encoder layer" << (layers > 1 ? "s" : "")
        << " planned for the IPU" << std::endl;
    {
      PretrainingSession s(session, out);
      priced[layers - 1] = s.estimateIpuStepCycles();
    }
    // Hand the first session's freed heap back to the system before the second (larger) one is
    // built: glibc keeps it otherwise, and a full-size session needs most of a small host.
    malloc_trim(0);
  }
  const apps::ReplicaStepCycles cycles =
      pipelineStageCycles(priced[0], priced[1], o.pipelineLayers);

  const apps::PodConfig pod =
      apps::podConfigFor(o.podReplicas, o.batchSize, o.podAccumulation, o.precision);
  const BertConfig config = modelConfigOf(o);
  std::ostringstream name;
  name << "bert-" << o.config;
  if (config.layers != 24 || config.hidden != 1024)
    name << "-" << config.layers << "x" << config.hidden;
  // The figure the issue names: Graphcore's BERT-Large phase 1 (sequence length 128, packed
  // sequences) on a Bow-POD16 with Poplar SDK 3.1.
  const apps::PublishedFigure published{
      6044, "seq/s", "Graphcore, BERT-Large phase 1 SL128 packed, Bow-POD16, SDK 3.1"};
  apps::printPodEstimate(out, name.str(), pod, cycles, apps::estimatePod(cycles, pod), published);
}

} // namespace tessera::bert
