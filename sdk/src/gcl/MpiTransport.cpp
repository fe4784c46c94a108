// The engine's transport between tessera-run instances (engine/CrossInstance.hpp) over OpenMPI,
// registered when libgcl is loaded. MPI is initialised on first use — by the first Engine whose
// collectives span instances — unless the program already did, and finalised at exit if we
// initialised it.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include <poplar/exceptions.hpp>

#include "engine/CrossInstance.hpp"
#include "gcl/MpiByteCount.hpp"

namespace gcl {
namespace {

void check(int code, const char *what) {
  if (code == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw poplar::runtime_error(std::string("gcl: ") + what +
                              " failed across instances: " + std::string(text, length));
}

class MpiTransport : public poplar::engine::CrossInstance {
public:
  MpiTransport() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
      int provided = 0;
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init");
      std::atexit([] {
        int finalised = 0;
        MPI_Finalized(&finalised);
        if (!finalised)
          MPI_Finalize();
      });
    }
    // A communicator of our own: errors come back as codes (and become exceptions naming the
    // exchange) instead of aborting, and the program's own MPI traffic never mixes with ours.
    check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_size(comm_, &size_);
    MPI_Comm_rank(comm_, &rank_);
  }

  unsigned numInstances() const override { return static_cast<unsigned>(size_); }
  unsigned instanceIndex() const override { return static_cast<unsigned>(rank_); }

  void allGather(const void *send, std::size_t bytes, void *recv) override {
    const int n = detail::mpiByteCount(bytes);
    check(MPI_Allgather(send, n, MPI_BYTE, recv, n, MPI_BYTE, comm_), "MPI_Allgather");
  }

  void allToAll(const void *send, std::size_t bytes, void *recv) override {
    const int n = detail::mpiByteCount(bytes);
    check(MPI_Alltoall(send, n, MPI_BYTE, recv, n, MPI_BYTE, comm_), "MPI_Alltoall");
  }

  void allToAllScattered(const std::vector<Spans> &send, const std::vector<Spans> &recv) override {
    // One hindexed byte type per peer over absolute addresses (MPI_BOTTOM), so MPI reads and
    // writes the runs where they lie.
    std::vector<MPI_Datatype> sendTypes(size_), recvTypes(size_);
    std::vector<int> sendCounts(size_), recvCounts(size_), zeros(size_, 0);
    auto typeOf = [](const Spans &runs, MPI_Datatype &type, int &count) {
      if (runs.empty()) {
        type = MPI_BYTE;
        count = 0;
        return;
      }
      std::vector<int> lengths;
      std::vector<MPI_Aint> at;
      for (const auto &r : runs) {
        lengths.push_back(detail::mpiByteCount(r.bytes));
        MPI_Aint a;
        MPI_Get_address(r.data, &a);
        at.push_back(a);
      }
      check(MPI_Type_create_hindexed(static_cast<int>(runs.size()), lengths.data(), at.data(),
                                     MPI_BYTE, &type),
            "MPI_Type_create_hindexed");
      check(MPI_Type_commit(&type), "MPI_Type_commit");
      count = 1;
    };
    for (int k = 0; k < size_; ++k) {
      typeOf(send[k], sendTypes[k], sendCounts[k]);
      typeOf(recv[k], recvTypes[k], recvCounts[k]);
    }
    const int code =
        MPI_Alltoallw(MPI_BOTTOM, sendCounts.data(), zeros.data(), sendTypes.data(), MPI_BOTTOM,
                      recvCounts.data(), zeros.data(), recvTypes.data(), comm_);
    for (int k = 0; k < size_; ++k) {
      if (sendCounts[k])
        MPI_Type_free(&sendTypes[k]);
      if (recvCounts[k])
        MPI_Type_free(&recvTypes[k]);
    }
    check(code, "MPI_Alltoallw");
  }

private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int size_ = 1, rank_ = 0;
};

std::unique_ptr<poplar::engine::CrossInstance> makeMpiTransport() {
  return std::make_unique<MpiTransport>();
}

/// Registers the transport when libgcl is loaded (a program that uses collectives links it).
const bool kRegistered = [] {
  poplar::engine::registerCrossInstance(&makeMpiTransport);
  return true;
}();

} // namespace
} // namespace gcl
