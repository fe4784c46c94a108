// gcl::allReduceInPlaceCrossReplica across tessera-run instances beside a plain MPI_Allreduce of
// the same bytes in the same run. Run it with 2 instances:
//
//   tessera-run --num-instances 2 -- tests/benchmarks/allreduce_bench [--sizes 1,4,16,64]
//
// Instance 0 prints, per size in MiB, each side's median time over the repeats and its
// algorithm bandwidth (bytes reduced per second), and the ratio Tessera / MPI. No assertion:
// the figures go to the README.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <mpi.h>

#include <gcl/Collectives.hpp>
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poputil/TileMapping.hpp>
#include <tessera/Distributed.hpp>

using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/// Seconds per call of `fn`, median over `repeats` after one warm-up; every instance starts each
/// call together.
template <class Fn> double timed(unsigned repeats, Fn &&fn) {
  fn();
  std::vector<double> seconds;
  for (unsigned i = 0; i < repeats; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = Clock::now();
    fn();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  // The slowest instance sets the pace of a collective.
  double mine = median(seconds), slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

} // namespace

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  std::vector<unsigned> sizesMiB = {1, 4, 16, 64};
  unsigned repeats = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--sizes") {
      sizesMiB.clear();
      std::stringstream list(argv[i + 1]);
      for (std::string item; std::getline(list, item, ',');)
        sizesMiB.push_back(static_cast<unsigned>(std::stoul(item)));
    } else if (flag == "--repeats") {
      repeats = static_cast<unsigned>(std::stoul(argv[i + 1]));
    }
  }
  const bool report = tessera::distributed::instanceIndex() == 0;
  if (report) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string first(version, std::find(version, version + length, '\n'));
    std::printf("instances: %u, replicas: %u, MPI: %s\n", tessera::distributed::numInstances(),
                tessera::distributed::numTotalReplicas(), first.c_str());
    std::printf("%8s %14s %14s %14s %14s %8s\n", "MiB", "tessera ms", "tessera GB/s", "MPI ms",
                "MPI GB/s", "ratio");
  }
  poplar::IPUModel model;
  model.tilesPerIPU = 512 * tessera::distributed::numLocalReplicas();
  poplar::Device device = model.createDevice();
  for (unsigned mib : sizesMiB) {
    const std::size_t n = std::size_t(mib) << 18; // floats
    poplar::Graph graph(device.getTarget(),
                        poplar::replication_factor(tessera::distributed::numLocalReplicas()));
    poplar::Tensor data = graph.addVariable(poplar::FLOAT, {n}, "data");
    poputil::mapTensorLinearly(graph, data);
    poplar::program::Sequence prog;
    gcl::allReduceInPlaceCrossReplica(graph, data, gcl::CollectiveOperator::ADD, prog);
    poplar::Engine engine(graph, prog, {{"executableCache.enable", "false"}});
    engine.load(device);
    const double tessera = timed(repeats, [&] { engine.run(); });
    std::vector<float> host(n, 0.0f);
    const double mpi = timed(repeats, [&] {
      MPI_Allreduce(MPI_IN_PLACE, host.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM,
                    MPI_COMM_WORLD);
    });
    const double bytes = double(n) * sizeof(float);
    if (report)
      std::printf("%8u %14.2f %14.2f %14.2f %14.2f %7.2fx\n", mib, tessera * 1e3,
                  bytes / tessera / 1e9, mpi * 1e3, bytes / mpi / 1e9, mpi / tessera);
  }
  MPI_Finalize();
  return 0;
}
