// Run under tessera-run: every instance builds the same replicated graph (its share of the
// replicas), runs gcl's collectives and checks each local replica's results bit for bit against
// a host reference computed from every global replica's data in replica order — the same
// reference the one-process tests use, so any process layout must give the same bits.
//
//   gcl_mpi_check collectives   all-reduce (ADD, MEAN, MAX), reduce-scatter, all-gather, index;
//                               grouped: all-reduce over ORTHOGONAL pairs {g, g + R/2} (which
//                               span instances), reduce-scatter over CONSECUTIVE pairs, and an
//                               all-to-all over every replica
//   gcl_mpi_check mismatch      instance 1 builds a bigger tensor: every instance must fail,
//                               naming the collective, not hang
//   gcl_mpi_check groups        instance 1 groups its pairs CONSECUTIVE where the others use
//                               ORTHOGONAL: every instance must fail, naming both groupings
//   gcl_mpi_check die           instance 1 exits before running: the others must not hang
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <gcl/Collectives.hpp>
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>
#include <poputil/TileMapping.hpp>
#include <tessera/Distributed.hpp>

using namespace poplar;
using namespace poplar::program;
namespace dist = tessera::distributed;

namespace {

/// Global replica g's data: fractional values, so the order of a sum shows in its bits.
std::vector<float> replicaData(unsigned g, std::size_t n) {
  std::mt19937 gen(500 + g);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (auto &x : v)
    x = u(gen);
  return v;
}

int failures = 0;
void expectSame(const char *what, unsigned replica, const std::vector<float> &got,
                const std::vector<float> &want) {
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      std::printf("instance %u replica %u: %s[%zu] = %.9g, expected %.9g\n", dist::instanceIndex(),
                  replica, what, i, got[i], want[i]);
      ++failures;
      return;
    }
}

int collectives(bool mismatch, bool otherGroups) {
  const unsigned local = dist::numLocalReplicas(), total = dist::numTotalReplicas();
  const unsigned offset = dist::replicaIndexOffset();
  std::size_t n = 1000;
  if (mismatch && dist::instanceIndex() == 1)
    n = 1001;
  IPUModel model;
  model.tilesPerIPU = 4 * local;
  Device device = model.createDevice();
  Graph graph(device.getTarget(), replication_factor(local));
  Tensor data = graph.addVariable(FLOAT, {n}, "data");
  poputil::mapTensorLinearly(graph, data);
  graph.createHostWrite("data", data);
  Tensor index = graph.addReplicationIndexConstant();
  graph.setTileMapping(index, 0);
  graph.createHostRead("index", index);
  Sequence prog;
  Tensor sum = gcl::allReduceCrossReplica(graph, data, gcl::CollectiveOperator::ADD, prog, "sum");
  Tensor mean = gcl::allReduceCrossReplica(graph, data, gcl::CollectiveOperator::MEAN, prog);
  Tensor max = gcl::allReduceCrossReplica(graph, data, gcl::CollectiveOperator::MAX, prog);
  Tensor slice =
      gcl::reduceScatterCrossReplica(graph, data, gcl::CollectiveOperator::ADD, prog, "slice");
  Tensor gathered = gcl::allGatherCrossReplica(graph, data, prog);
  const gcl::CommGroup pairsApart(gcl::CommGroupType::ORTHOGONAL, 2);
  const gcl::CommGroup neighbours(gcl::CommGroupType::CONSECUTIVE, 2);
  const bool swap = otherGroups && dist::instanceIndex() == 1;
  Tensor pairSum = gcl::allReduceCrossReplica(graph, data, gcl::CollectiveOperator::ADD, prog,
                                              swap ? neighbours : pairsApart, "pairSum");
  Tensor pairSlice = gcl::reduceScatterCrossReplica(graph, data, gcl::CollectiveOperator::MEAN,
                                                    prog, neighbours, "pairSlice");
  const std::size_t block = n / total; // all-to-all: the first total × block elements
  Tensor exchanged =
      gcl::allToAllCrossReplica(graph, data.slice(0, total * block).reshape({total, block}), prog);
  for (auto &[name, t] : {std::pair<const char *, Tensor>{"sum", sum},
                          {"mean", mean},
                          {"max", max},
                          {"slice", slice},
                          {"gathered", gathered},
                          {"pairSum", pairSum},
                          {"pairSlice", pairSlice},
                          {"exchanged", exchanged}})
    graph.createHostRead(name, t);
  Engine engine(graph, prog);
  engine.load(device);
  std::vector<std::vector<float>> all;
  for (unsigned g = 0; g < total; ++g)
    all.push_back(replicaData(g, n));
  for (unsigned r = 0; r < local; ++r)
    engine.writeTensor("data", r, all[offset + r].data(), all[offset + r].data() + n);
  engine.run();

  std::vector<float> wantSum(n), wantMean(n), wantMax(n), wantGathered;
  for (std::size_t i = 0; i < n; ++i) {
    float s = all[0][i], m = all[0][i];
    for (unsigned g = 1; g < total; ++g) {
      s += all[g][i];
      m = std::max(m, all[g][i]);
    }
    wantSum[i] = s;
    wantMean[i] = s / float(total);
    wantMax[i] = m;
  }
  for (const auto &v : all)
    wantGathered.insert(wantGathered.end(), v.begin(), v.end());
  const std::size_t sliceSize = (n + total - 1) / total;
  for (unsigned r = 0; r < local; ++r) {
    const unsigned g = offset + r;
    std::vector<float> got(n), gotSlice(sliceSize), gotGathered(total * n);
    unsigned gotIndex = 0;
    engine.readTensor("index", r, &gotIndex, &gotIndex + 1);
    if (gotIndex != g) {
      std::printf("instance %u replica %u: index %u, expected %u\n", dist::instanceIndex(), r,
                  gotIndex, g);
      ++failures;
    }
    engine.readTensor("sum", r, got.data(), got.data() + n);
    expectSame("sum", r, got, wantSum);
    engine.readTensor("mean", r, got.data(), got.data() + n);
    expectSame("mean", r, got, wantMean);
    engine.readTensor("max", r, got.data(), got.data() + n);
    expectSame("max", r, got, wantMax);
    engine.readTensor("slice", r, gotSlice.data(), gotSlice.data() + sliceSize);
    std::vector<float> wantSlice(sliceSize, 0.0f);
    for (std::size_t k = 0; k < sliceSize && g * sliceSize + k < n; ++k)
      wantSlice[k] = wantSum[g * sliceSize + k];
    expectSame("slice", r, gotSlice, wantSlice);
    engine.readTensor("gathered", r, gotGathered.data(), gotGathered.data() + gotGathered.size());
    expectSame("gathered", r, gotGathered, wantGathered);

    // Grouped: the reference lists the members from GCL's definitions, ascending.
    const unsigned partner = (g + total / 2) % total; // ORTHOGONAL 2: {g, g + R/2}
    const unsigned first = std::min(g, partner), second = std::max(g, partner);
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i)
      want[i] = all[first][i] + all[second][i];
    engine.readTensor("pairSum", r, got.data(), got.data() + n);
    expectSame("pairSum", r, got, want);
    const unsigned pair = g / 2 * 2; // CONSECUTIVE 2: {2k, 2k+1}; g's slice is g - pair
    const std::size_t half = (n + 1) / 2;
    std::vector<float> gotHalf(half), wantHalf(half, 0.0f);
    for (std::size_t k = 0; k < half && (g - pair) * half + k < n; ++k) {
      const std::size_t i = (g - pair) * half + k;
      wantHalf[k] = (all[pair][i] + all[pair + 1][i]) / 2.0f;
    }
    engine.readTensor("pairSlice", r, gotHalf.data(), gotHalf.data() + half);
    expectSame("pairSlice", r, gotHalf, wantHalf);
    std::vector<float> gotExchanged(total * block), wantExchanged;
    for (unsigned j = 0; j < total; ++j) // block j: replica j's block g
      wantExchanged.insert(wantExchanged.end(), all[j].begin() + g * block,
                           all[j].begin() + (g + 1) * block);
    engine.readTensor("exchanged", r, gotExchanged.data(),
                      gotExchanged.data() + gotExchanged.size());
    expectSame("exchanged", r, gotExchanged, wantExchanged);
  }
  std::printf("instance %u of %u (replicas %u-%u of %u): %s\n", dist::instanceIndex(),
              dist::numInstances(), offset, offset + local - 1, total,
              failures ? "FAILED" : "all collectives match the reference");
  return failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "collectives";
  try {
    if (mode == "die" && dist::instanceIndex() == 1) {
      std::printf("instance 1: exiting before the run\n");
      std::fflush(stdout);
      std::_Exit(3);
    }
    return collectives(mode == "mismatch", mode == "groups");
  } catch (const poplar::poplar_error &e) {
    std::printf("instance %u: %s: %s\n", dist::instanceIndex(), e.type.c_str(), e.what());
    return 1;
  }
}
