// bert --estimate-ipu: what a POD of pipelined BERT replicas would pre-train at, priced by the IPU
// cost model. Two sessions planned for the IPU are compiled — with one and with two encoder
// layers — and their difference is one layer's price (forward + backward of a micro-batch, and
// its share of the update); what is left of the one-layer session is the embeddings, the heads
// and the losses, which stage 0 holds beside its layers (the masked-LM head shares the
// embedding table, as in Graphcore's layout). Each stage then costs its layers, and the POD
// model (apps IpuPodEstimate) does the rest.
#pragma once

#include <iosfwd>

#include <tessera/apps/IpuPodEstimate.hpp>

#include "training/CommandLine.hpp"

namespace tessera::bert {

/// One replica's stages from the one- and two-layer sessions' prices; throws app_error when the
/// second is not dearer than the first (a layer cannot cost nothing).
apps::ReplicaStepCycles pipelineStageCycles(const apps::IpuStepCycles &oneLayer,
                                            const apps::IpuStepCycles &twoLayers,
                                            const std::vector<unsigned> &layersPerStage);

/// Compiles the two sessions the flags describe (with planForIpu) and prints the estimate
/// beside Graphcore's published BERT-Large phase 1 figure.
void runIpuEstimate(const BertCommandLine &o, std::ostream &out);

} // namespace tessera::bert
