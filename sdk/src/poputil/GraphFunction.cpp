// poputil/GraphFunction.hpp: a body built once on parameter clones, called with copies in/out.
#include <poputil/GraphFunction.hpp>

#include <algorithm>

#include <poputil/Describe.hpp>
#include <poputil/exceptions.hpp>

namespace poputil::graphfn {

namespace {

const char *argTypeName(ArgType t) {
  switch (t) {
  case InputArg:
    return "input";
  case OutputArg:
    return "output";
  case InOutArg:
    return "inout";
  case CreatedArg:
    return "created";
  }
  return "unknown";
}

/// "argument 2 ('weights')": how error messages point at one signature entry.
std::string argumentText(std::size_t i, const ArgSig &s) {
  std::string text = "argument " + std::to_string(i);
  if (!s.debugName.empty())
    text += " ('" + s.debugName + "')";
  return text;
}

/// `f` itself, after checking it holds a callable: an empty body would otherwise only fail
/// inside the wrappers below, as std::bad_function_call.
template <class F> F requireBody(F f) {
  if (!f)
    throw poplibs_error("poputil::graphfn: the function body is empty");
  return f;
}

void copyUnlessEmpty(poplar::program::Sequence &seq, const poplar::Tensor &src,
                     const poplar::Tensor &dst, const poplar::DebugContext &dc) {
  if (src.numElements() != 0)
    seq.add(poplar::program::Copy(src, dst, false, dc));
}

} // namespace

VoidFunction::VoidFunction(
    poplar::Graph &graph, Signature sig,
    std::function<void(std::vector<poplar::Tensor> &, poplar::program::Sequence &)> f, bool inlined,
    const poplar::DebugContext &debugContext)
    : VoidFunction(
          graph, std::move(sig),
          [body = requireBody(std::move(f))](std::vector<poplar::Tensor> &args,
                                             poplar::program::Sequence &seq,
                                             const poplar::DebugNameAndId &) { body(args, seq); },
          inlined, debugContext) {}

VoidFunction::VoidFunction(
    poplar::Graph &graph, Signature sig,
    std::function<void(std::vector<poplar::Tensor> &, poplar::program::Sequence &,
                       const poplar::DebugNameAndId &)>
        f,
    bool inlined, const poplar::DebugContext &debugContext)
    : graph(graph), sig(std::move(sig)), inlined(inlined) {
  if (!f)
    throw poplibs_error("poputil::graphfn: the function body is empty");
  // The parameters: fresh variables laid out like the caller's example tensors, so the body's
  // vertices are placed where the data of a typical call already lies.
  params.reserve(this->sig.size());
  for (std::size_t i = 0; i < this->sig.size(); ++i) {
    const ArgSig &s = this->sig[i];
    if (s.type == CreatedArg) {
      params.emplace_back();
      continue;
    }
    if (!s.similarTensor.valid())
      throw poplibs_error("poputil::graphfn: " + argumentText(i, s) + " (" + argTypeName(s.type) +
                          ") has no tensor to clone its parameter from");
    params.push_back(graph.clone(s.similarTensor, poplar::DebugContext(debugContext, s.debugName)));
  }
  f(params, prog, debugContext);
  for (std::size_t i = 0; i < this->sig.size(); ++i)
    if (this->sig[i].type == CreatedArg && !params[i].valid())
      throw poplibs_error("poputil::graphfn: the function body did not create " +
                          argumentText(i, this->sig[i]) +
                          " (a created argument must be set by the body)");
  if (!inlined)
    func = graph.addFunction(prog);
}

void VoidFunction::operator()(std::vector<poplar::Tensor> &args, poplar::program::Sequence &seq,
                              const poplar::DebugContext &dc) {
  if (args.size() != sig.size())
    throw poplibs_error("poputil::graphfn: called with " + std::to_string(args.size()) +
                        " arguments, but the signature has " + std::to_string(sig.size()));
  for (std::size_t i = 0; i < sig.size(); ++i) {
    if (sig[i].type == CreatedArg)
      continue;
    if (!args[i].valid())
      throw poplibs_error("poputil::graphfn: " + argumentText(i, sig[i]) + " is invalid");
    if (args[i].shape() != params[i].shape() || args[i].elementType() != params[i].elementType())
      throw poplibs_error("poputil::graphfn: " + argumentText(i, sig[i]) + " has shape " +
                          shapeString(args[i].shape()) + " and type " +
                          args[i].elementType().toString() + ", but the signature expects " +
                          shapeString(params[i].shape()) + " and " +
                          params[i].elementType().toString());
  }
  for (std::size_t i = 0; i < sig.size(); ++i)
    if (sig[i].type == InputArg || sig[i].type == InOutArg)
      copyUnlessEmpty(seq, args[i], params[i], poplar::DebugContext(dc, "in"));
  if (inlined)
    seq.add(prog);
  else
    seq.add(poplar::program::Call(func, dc));
  for (std::size_t i = 0; i < sig.size(); ++i) {
    if (sig[i].type == OutputArg || sig[i].type == InOutArg) {
      copyUnlessEmpty(seq, params[i], args[i], poplar::DebugContext(dc, "out"));
    } else if (sig[i].type == CreatedArg) {
      // Each call's result must outlive the next call, so it gets a variable of its own.
      args[i] = graph.clone(params[i], poplar::DebugContext(dc, sig[i].debugName));
      copyUnlessEmpty(seq, params[i], args[i], poplar::DebugContext(dc, "out"));
    }
  }
}

ProgramFunction::ProgramFunction(
    poplar::Graph &graph, Signature sig,
    std::function<poplar::program::Program(std::vector<poplar::Tensor> &)> f, bool inlined,
    const poplar::DebugContext &debugContext)
    : voidFunc(
          graph, std::move(sig),
          [body = requireBody(std::move(f))](
              std::vector<poplar::Tensor> &args, poplar::program::Sequence &seq,
              const poplar::DebugNameAndId &) { seq.add(body(args)); },
          inlined, debugContext) {}

ProgramFunction::ProgramFunction(poplar::Graph &graph, Signature sig,
                                 std::function<poplar::program::Program(
                                     std::vector<poplar::Tensor> &, const poplar::DebugNameAndId &)>
                                     f,
                                 bool inlined, const poplar::DebugContext &debugContext)
    : voidFunc(
          graph, std::move(sig),
          [body = requireBody(std::move(f))](
              std::vector<poplar::Tensor> &args, poplar::program::Sequence &seq,
              const poplar::DebugNameAndId &dnai) { seq.add(body(args, dnai)); },
          inlined, debugContext) {}

poplar::program::Program ProgramFunction::operator()(std::vector<poplar::Tensor> &args,
                                                     const poplar::DebugContext &debugContext) {
  poplar::program::Sequence seq;
  voidFunc(args, seq, debugContext);
  return seq;
}

namespace {

/// The signature of a TensorFunction's inner VoidFunction: the caller's, plus the result.
Signature withResult(Signature sig) {
  sig.push_back(created("result"));
  return sig;
}

using TensorBody = std::function<poplar::Tensor(
    std::vector<poplar::Tensor> &, poplar::program::Sequence &, const poplar::DebugNameAndId &)>;

/// Runs `body` on all parameters but the last and stores what it returns in the last; the
/// body may also fill created arguments of the caller's signature, which are copied back.
std::function<void(std::vector<poplar::Tensor> &, poplar::program::Sequence &,
                   const poplar::DebugNameAndId &)>
storingResult(TensorBody body) {
  return
      [body = std::move(body)](std::vector<poplar::Tensor> &params, poplar::program::Sequence &seq,
                               const poplar::DebugNameAndId &dnai) {
        std::vector<poplar::Tensor> own(params.begin(), params.end() - 1);
        poplar::Tensor result = body(own, seq, dnai);
        std::copy(own.begin(), own.end(), params.begin());
        params.back() = std::move(result);
      };
}

} // namespace

TensorFunction::TensorFunction(
    poplar::Graph &graph, Signature sig,
    std::function<poplar::Tensor(std::vector<poplar::Tensor> &, poplar::program::Sequence &)> f,
    bool inlined, const poplar::DebugContext &debugContext)
    : numArgs(sig.size()),
      voidFunc(graph, withResult(std::move(sig)),
               storingResult([body = requireBody(std::move(f))](
                                 std::vector<poplar::Tensor> &args, poplar::program::Sequence &seq,
                                 const poplar::DebugNameAndId &) { return body(args, seq); }),
               inlined, debugContext) {}

TensorFunction::TensorFunction(
    poplar::Graph &graph, Signature sig,
    std::function<poplar::Tensor(std::vector<poplar::Tensor> &, poplar::program::Sequence &,
                                 const poplar::DebugNameAndId &)>
        f,
    bool inlined, const poplar::DebugContext &debugContext)
    : numArgs(sig.size()),
      voidFunc(graph, withResult(std::move(sig)), storingResult(requireBody(std::move(f))), inlined,
               debugContext) {}

poplar::Tensor TensorFunction::operator()(std::vector<poplar::Tensor> &args,
                                          poplar::program::Sequence &prog,
                                          const poplar::DebugContext &debugContext) {
  // Checked here so that the count in the message is the caller's, not the inner function's.
  if (args.size() != numArgs)
    throw poplibs_error("poputil::graphfn: called with " + std::to_string(args.size()) +
                        " arguments, but the signature has " + std::to_string(numArgs));
  std::vector<poplar::Tensor> all(args);
  all.emplace_back();
  voidFunc(all, prog, debugContext);
  std::copy(all.begin(), all.end() - 1, args.begin());
  return all.back();
}

} // namespace poputil::graphfn
