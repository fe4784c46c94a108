// Graph functions: build a piece of graph once and apply it to many tensors.
//
// A compute set, its vertices and its program cost tile memory for every copy of them in the
// graph. A graph function is built once on parameter tensors of its own (clones of the
// "similar" tensors of its signature, so laid out and mapped alike); each call copies the
// arguments into the parameters, runs the body, and copies the results back out. Calls
// therefore share one body in the graph and in the compiled step list and pay only for the
// copies.
//
// PopLibs 3.x's poputil/GraphFunction.hpp, with its names, signatures and defaults.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/GraphElements.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace poputil {

/// Programs that are built once and used like function calls.
namespace graphfn {

/// How a call passes one argument.
enum ArgType {
  InputArg,   ///< Copied into the parameter before the body runs.
  OutputArg,  ///< Copied out of the parameter after the body runs.
  InOutArg,   ///< Copied in before and out after.
  CreatedArg, ///< The body creates the tensor; each call gets a new tensor holding the result.
};

/// One argument of a signature: how it is passed and the tensor its parameter is cloned from
/// (shape, element type and tile mapping; unused for CreatedArg). `debugName` names the
/// parameter.
struct ArgSig {
  ArgType type;
  poplar::Tensor similarTensor;
  std::string debugName;
  ArgSig(ArgType type, poplar::Tensor tensor, std::string debugName)
      : type(type), similarTensor(std::move(tensor)), debugName(std::move(debugName)) {}
};

inline ArgSig input(poplar::Tensor similar, std::string debugName = "") {
  return ArgSig(InputArg, std::move(similar), std::move(debugName));
}

inline ArgSig inout(poplar::Tensor similar, std::string debugName = "") {
  return ArgSig(InOutArg, std::move(similar), std::move(debugName));
}

inline ArgSig output(poplar::Tensor similar, std::string debugName = "") {
  return ArgSig(OutputArg, std::move(similar), std::move(debugName));
}

inline ArgSig created(std::string debugName = "") {
  return ArgSig(CreatedArg, poplar::Tensor(), std::move(debugName));
}

/// The arguments of a graph function, in call order.
using Signature = std::vector<ArgSig>;

/// A graph function that appends its work to the caller's sequence.
///
/// The constructor calls `f` once with the parameters (for a CreatedArg, an invalid tensor
/// the body must replace) and the body's sequence. Each call with `args` (one per signature
/// entry, each of the shape and element type of its parameter; CreatedArg entries are
/// replaced) appends the copies in, the body and the copies out to `seq`.
///
/// `inlined` chooses how the body appears in the program: false (the default) makes it a
/// poplar::Function that every call reaches with program::Call; true adds the same body
/// Sequence at every call. Both are compiled once: Tessera compiles a program used in several
/// places as one shared subroutine.
///
/// Errors (poplibs_error naming the argument): a call with the wrong number of arguments or an
/// argument whose shape or type differs from its parameter; a body that leaves a CreatedArg
/// invalid.
class VoidFunction {
  poplar::Graph &graph;
  Signature sig;
  bool inlined;
  poplar::program::Sequence prog;
  poplar::Function func;
  std::vector<poplar::Tensor> params;

public:
  VoidFunction(poplar::Graph &graph, Signature sig,
               std::function<void(std::vector<poplar::Tensor> &, poplar::program::Sequence &)> f,
               bool inlined = false, const poplar::DebugContext &debugContext = {});

  /// As above, the body also receiving the function's debug name to name what it creates.
  VoidFunction(poplar::Graph &graph, Signature sig,
               std::function<void(std::vector<poplar::Tensor> &, poplar::program::Sequence &,
                                  const poplar::DebugNameAndId &)>
                   f,
               bool inlined = false, const poplar::DebugContext &debugContext = {});

  void operator()(std::vector<poplar::Tensor> &args, poplar::program::Sequence &seq,
                  const poplar::DebugContext &dc = {});
};

/// A graph function whose body is a program the builder returns; each call returns the
/// program of that call (copies in, body, copies out).
class ProgramFunction {
  VoidFunction voidFunc;

public:
  ProgramFunction(poplar::Graph &graph, Signature sig,
                  std::function<poplar::program::Program(std::vector<poplar::Tensor> &)> f,
                  bool inlined = false, const poplar::DebugContext &debugContext = {});

  ProgramFunction(poplar::Graph &graph, Signature sig,
                  std::function<poplar::program::Program(std::vector<poplar::Tensor> &,
                                                         const poplar::DebugNameAndId &)>
                      f,
                  bool inlined = false, const poplar::DebugContext &debugContext = {});

  poplar::program::Program operator()(std::vector<poplar::Tensor> &args,
                                      const poplar::DebugContext &debugContext = {});
};

/// A graph function whose body returns a new tensor; each call returns a new tensor (laid out
/// like the body's) holding that call's result.
class TensorFunction {
  std::size_t numArgs; // the caller's arguments; voidFunc has one more, the result
  VoidFunction voidFunc;

public:
  TensorFunction(
      poplar::Graph &graph, Signature sig,
      std::function<poplar::Tensor(std::vector<poplar::Tensor> &, poplar::program::Sequence &)> f,
      bool inlined = false, const poplar::DebugContext &debugContext = {});

  TensorFunction(
      poplar::Graph &graph, Signature sig,
      std::function<poplar::Tensor(std::vector<poplar::Tensor> &, poplar::program::Sequence &,
                                   const poplar::DebugNameAndId &)>
          f,
      bool inlined = false, const poplar::DebugContext &debugContext = {});

  poplar::Tensor operator()(std::vector<poplar::Tensor> &args, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext = {});
};

} // namespace graphfn
} // namespace poputil
