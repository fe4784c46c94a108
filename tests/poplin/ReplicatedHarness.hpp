// A replicated IPU Model graph for the distributed-norm suites: per-replica host-written inputs
// (each replica its own slice of a batch), results read back per replica as double, and a
// DistributedNormReduceCallback that sums across consecutive replica groups with gcl.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gcl/Collectives.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Half.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/Norms.hpp>
#include <poplin/codelets.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

namespace tessera_testing {

/// Where a test input lives on each replica: all on tile 0, or spread linearly over the tiles.
enum class ReplicaMapping { OneTile, Linear };

/// Sums each input across the replicas of its group (CONSECUTIVE groups of groupSize), counting
/// the calls in *calls when given.
inline poplin::DistributedNormReduceCallback allReduceCallback(unsigned *calls = nullptr) {
  return [calls](poplar::Graph &graph, const std::vector<poplar::Tensor> &inputs,
                 poplar::program::Sequence &prog, unsigned groupSize,
                 const poplar::DebugContext &dc, const poplar::OptionFlags &options) {
    if (calls)
      ++*calls;
    std::vector<poplar::Tensor> out;
    for (const auto &t : inputs)
      out.push_back(gcl::allReduceCrossReplica(
          graph, t, gcl::CollectiveOperator::ADD, prog,
          gcl::CommGroup(gcl::CommGroupType::CONSECUTIVE, groupSize), dc, options));
    return out;
  };
}

class ReplicatedHarness {
public:
  ReplicatedHarness(unsigned replicas, unsigned tiles = 16)
      : replicas_(replicas), device_(makeDevice(tiles)) {
    graph_ =
        std::make_unique<poplar::Graph>(device_.getTarget(), poplar::replication_factor(replicas));
    poplin::addCodelets(*graph_);
    popops::addCodelets(*graph_);
  }
  poplar::Graph &graph() { return *graph_; }
  poplar::program::Sequence &prog() { return prog_; }
  unsigned replicas() const { return replicas_; }

  /// A new input of `shape` on every replica; replica r holds perReplica[r].
  poplar::Tensor input(const std::string &name, const poplar::Type &type,
                       const std::vector<std::size_t> &shape,
                       const std::vector<std::vector<double>> &perReplica,
                       ReplicaMapping mapping = ReplicaMapping::Linear) {
    poplar::Tensor t = graph_->addVariable(type, shape, name);
    if (mapping == ReplicaMapping::OneTile)
      graph_->setTileMapping(t, 0);
    else
      poputil::mapTensorLinearly(*graph_, t);
    return write(name, t, perReplica);
  }
  poplar::Tensor write(const std::string &name, const poplar::Tensor &t,
                       const std::vector<std::vector<double>> &perReplica) {
    graph_->createHostWrite(name, t);
    writes_[name] = {t.elementType(), perReplica};
    return t;
  }
  void output(const std::string &name, const poplar::Tensor &t) {
    graph_->createHostRead(name, t);
    reads_[name] = {t.elementType(), t.numElements()};
  }

  /// Compiles, runs once and returns every output per replica: out[name][replica].
  std::map<std::string, std::vector<std::vector<double>>> run(unsigned hostThreads = 0) {
    poplar::OptionFlags opts;
    if (hostThreads)
      opts.set("target.hostThreads", std::to_string(hostThreads));
    poplar::Engine engine(*graph_, prog_, opts);
    engine.load(device_);
    for (const auto &[name, w] : writes_)
      for (unsigned r = 0; r < replicas_; ++r) {
        const auto &v = w.second.at(r);
        if (w.first == poplar::HALF) {
          std::vector<poplar::half> h(v.size());
          for (std::size_t i = 0; i < h.size(); ++i)
            h[i] = poplar::half(static_cast<float>(v[i]));
          engine.writeTensor(name, r, h.data(), h.data() + h.size());
        } else {
          std::vector<float> f(v.begin(), v.end());
          engine.writeTensor(name, r, f.data(), f.data() + f.size());
        }
      }
    engine.run();
    std::map<std::string, std::vector<std::vector<double>>> out;
    for (const auto &[name, rd] : reads_)
      for (unsigned r = 0; r < replicas_; ++r) {
        std::vector<double> v(rd.second);
        if (rd.first == poplar::HALF) {
          std::vector<poplar::half> h(rd.second);
          engine.readTensor(name, r, h.data(), h.data() + h.size());
          for (std::size_t i = 0; i < h.size(); ++i)
            v[i] = static_cast<float>(h[i]);
        } else {
          std::vector<float> f(rd.second);
          engine.readTensor(name, r, f.data(), f.data() + f.size());
          for (std::size_t i = 0; i < f.size(); ++i)
            v[i] = f[i];
        }
        out[name].push_back(v);
      }
    return out;
  }

private:
  static poplar::Device makeDevice(unsigned tiles) {
    poplar::IPUModel m;
    m.tilesPerIPU = tiles;
    return m.createDevice();
  }
  unsigned replicas_;
  poplar::Device device_;
  std::unique_ptr<poplar::Graph> graph_;
  poplar::program::Sequence prog_;
  std::map<std::string, std::pair<poplar::Type, std::vector<std::vector<double>>>> writes_;
  std::map<std::string, std::pair<poplar::Type, std::size_t>> reads_;
};

/// Replica r's slice of a batch-major [B][…] array split evenly over `replicas`.
inline std::vector<double> replicaSlice(const std::vector<double> &all, unsigned r,
                                        unsigned replicas) {
  const std::size_t n = all.size() / replicas;
  return std::vector<double>(all.begin() + r * n, all.begin() + (r + 1) * n);
}

} // namespace tessera_testing
