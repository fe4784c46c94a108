// How an Engine's collectives reach the replicas other processes run (tessera-run, MPI). The
// engine only needs two exchanges; Tessera::gcl registers an implementation over OpenMPI when it
// is loaded, so libpoplar itself does not depend on MPI.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace poplar::engine {

class CrossInstance {
public:
  virtual ~CrossInstance() = default;
  virtual unsigned numInstances() const = 0;
  virtual unsigned instanceIndex() const = 0;
  /// Every instance's `bytes` at `send`, in instance order, into `recv` (numInstances × bytes).
  virtual void allGather(const void *send, std::size_t bytes, void *recv) = 0;
  /// Block k of `send` (numInstances blocks of `bytes`) goes to instance k; block j of `recv`
  /// comes from instance j.
  virtual void allToAll(const void *send, std::size_t bytes, void *recv) = 0;

  /// A run of bytes in this process's memory (tile memory, say).
  struct Span {
    unsigned char *data;
    std::size_t bytes;
  };
  using Spans = std::vector<Span>;
  /// All-to-all straight from and into scattered memory: the runs of send[k], in order, go to
  /// instance k, and the runs of recv[j], in order, receive what instance j sends this one (the
  /// byte counts must agree). Saves packing a tensor spread over tiles into one buffer and
  /// unpacking the result.
  virtual void allToAllScattered(const std::vector<Spans> &send,
                                 const std::vector<Spans> &recv) = 0;
};

using CrossInstanceFactory = std::unique_ptr<CrossInstance> (*)();

/// Called by the library that provides the transport (libgcl) when it is loaded. Returns the
/// factory it replaces (tests put it back).
CrossInstanceFactory registerCrossInstance(CrossInstanceFactory factory);

/// The process's transport, made on first use; throws runtime_error when none is registered.
CrossInstance &crossInstance();

} // namespace poplar::engine
