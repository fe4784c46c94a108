#include <poplar/Program.hpp>

#include <algorithm>
#include <set>

#include <poplar/exceptions.hpp>

#include "core/GraphData.hpp"
#include "core/ProgramNode.hpp"

namespace poplar::program {

using core::ProgramNode;
using Kind = ProgramNode::Kind;

namespace {
std::shared_ptr<ProgramNode> makeNode(Kind kind, const DebugContext &dc) {
  auto n = std::make_shared<ProgramNode>();
  n->kind = kind;
  n->name = dc.getPathName();
  return n;
}
void requireValid(const Tensor &t, const char *program, const char *role) {
  if (!t.valid())
    throw graph_program_compilation_error(std::string(program) + ": the " + role +
                                          " tensor is invalid (default-constructed)");
}
void requireScalar(const Tensor &t, const char *program) {
  requireValid(t, program, "predicate");
  if (t.numElements() != 1)
    throw control_program_error(std::string(program) + ": the predicate " + core::describe(t) +
                                " must have exactly one element");
}
} // namespace

Program::Program() : node_(makeNode(Kind::Sequence, {})) {}
bool Program::isEmpty() const {
  return node_->kind == Kind::Sequence &&
         std::all_of(node_->children.begin(), node_->children.end(),
                     [](const Program &p) { return p.isEmpty(); });
}

Sequence::Sequence(const DebugContext &dc) : Program(makeNode(Kind::Sequence, dc)) {}
Sequence::Sequence(std::initializer_list<Program> programs, const DebugContext &dc)
    : Program(makeNode(Kind::Sequence, dc)) {
  node_->children.assign(programs.begin(), programs.end());
}
namespace {
/// True when `target` is `from` or is reachable through its children.
bool reaches(const ProgramNode *from, const ProgramNode *target,
             std::set<const ProgramNode *> &seen) {
  if (from == target)
    return true;
  if (!seen.insert(from).second)
    return false;
  for (const auto &c : from->children)
    if (reaches(c.node().get(), target, seen))
      return true;
  return false;
}
} // namespace

void Sequence::add(const Program &p) {
  // Refuse cycles here, when they would form: a cycle of shared nodes could never be freed.
  std::set<const ProgramNode *> seen;
  if (reaches(p.node().get(), node_.get(), seen))
    throw control_program_error("Sequence '" + node_->name + "' cannot contain itself" +
                                (p.node().get() == node_.get()
                                     ? std::string()
                                     : " (the added program already contains this Sequence)"));
  node_->children.push_back(p);
}

Execute::Execute(ComputeSet cs, const DebugContext &dc) : Program(makeNode(Kind::Execute, dc)) {
  if (!cs.valid())
    throw graph_program_compilation_error("Execute of an invalid (default-constructed) ComputeSet");
  node_->computeSet = cs;
}

Copy::Copy(const Tensor &src, const Tensor &dst, bool, const DebugContext &dc)
    : Program(makeNode(Kind::Copy, dc)) {
  requireValid(src, "Copy", "source");
  requireValid(dst, "Copy", "destination");
  if (src.elementType() != dst.elementType())
    throw type_error("Copy from " + core::describe(src) + " to " + core::describe(dst) +
                     ": element types differ");
  if (src.numElements() != dst.numElements())
    throw shape_error("Copy from " + core::describe(src) + " to " + core::describe(dst) +
                      ": element counts differ (" + std::to_string(src.numElements()) + " vs " +
                      std::to_string(dst.numElements()) + ")");
  node_->src = src;
  node_->dst = dst;
}

Copy::Copy(const DataStream &stream, const Tensor &dst, bool, const DebugContext &dc)
    : Program(makeNode(Kind::StreamToDevice, dc)) {
  requireValid(dst, "Copy", "destination");
  if (stream.graph() == nullptr)
    throw stream_connection_error("Copy from an invalid (default-constructed) DataStream");
  node_->stream = stream;
  node_->dst = dst;
}

Copy::Copy(const Tensor &src, const DataStream &stream, bool, const DebugContext &dc)
    : Program(makeNode(Kind::StreamFromDevice, dc)) {
  requireValid(src, "Copy", "source");
  if (stream.graph() == nullptr)
    throw stream_connection_error("Copy to an invalid (default-constructed) DataStream");
  node_->stream = stream;
  node_->src = src;
}

Repeat::Repeat(unsigned count, const Program &body, const DebugContext &dc)
    : Program(makeNode(Kind::Repeat, dc)) {
  node_->count = count;
  node_->children = {body};
}

RepeatWhileTrue::RepeatWhileTrue(const Program &cond, const Tensor &pred, const Program &body,
                                 const DebugContext &dc)
    : Program(makeNode(Kind::RepeatWhile, dc)) {
  requireScalar(pred, "RepeatWhileTrue");
  node_->children = {cond, body};
  node_->src = pred;
  node_->whileTrue = true;
}

RepeatWhileFalse::RepeatWhileFalse(const Program &cond, const Tensor &pred, const Program &body,
                                   const DebugContext &dc)
    : Program(makeNode(Kind::RepeatWhile, dc)) {
  requireScalar(pred, "RepeatWhileFalse");
  node_->children = {cond, body};
  node_->src = pred;
  node_->whileTrue = false;
}

If::If(const Tensor &pred, const Program &t, const Program &f, const DebugContext &dc)
    : Program(makeNode(Kind::If, dc)) {
  requireScalar(pred, "If");
  node_->children = {t, f};
  node_->src = pred;
}
If::If(const Tensor &pred, const Program &t, const DebugContext &dc)
    : If(pred, t, Sequence(), dc) {}

Switch::Switch(const Tensor &control, const DebugContext &dc)
    : Switch(control, std::vector<CaseBody>{}, Sequence(), dc) {}
Switch::Switch(const Tensor &control, const Program &defaultBody, const DebugContext &dc)
    : Switch(control, std::vector<CaseBody>{}, defaultBody, dc) {}
Switch::Switch(const Tensor &control, const std::vector<CaseBody> &cases, const DebugContext &dc)
    : Switch(control, cases, Sequence(), dc) {}
Switch::Switch(const Tensor &control, const std::vector<CaseBody> &cases,
               const Program &defaultBody, const DebugContext &dc)
    : Program(makeNode(Kind::Switch, dc)) {
  requireScalar(control, "Switch");
  if (control.elementType().isFloatingPoint() || control.elementType() == BOOL)
    throw control_program_error("Switch: the control tensor " + core::describe(control) +
                                " must have an integer type");
  node_->src = control;
  node_->children = {defaultBody};
  for (const auto &[value, body] : cases)
    add(value, body);
}
Switch &Switch::add(std::int32_t value, const Program &body) {
  auto &v = node_->caseValues;
  if (std::find(v.begin(), v.end(), value) != v.end())
    throw control_program_error("Switch '" + node_->name + "': case " + std::to_string(value) +
                                " is given twice");
  // Keep the default body last.
  node_->children.insert(node_->children.end() - 1, body);
  v.push_back(value);
  return *this;
}

Call::Call(Function f, const DebugContext &dc) : Program(makeNode(Kind::Call, dc)) {
  if (f.graph() == nullptr)
    throw graph_program_compilation_error("Call of an invalid (default-constructed) Function");
  node_->function = f;
}

PrintTensor::PrintTensor(const Tensor &t, const DebugContext &dc) : PrintTensor("", t, dc) {}
PrintTensor::PrintTensor(StringRef title, const Tensor &t, const DebugContext &dc)
    : Program(makeNode(Kind::Print, dc)) {
  requireValid(t, "PrintTensor", "printed");
  node_->src = t;
  node_->message = title.str();
  if (t.elementType().requiresMetadata()) {
    // Printed as floats: the step reads the metadata byte first, then the elements; `dst`
    // keeps the shape to print.
    if (!t.hasMetadata())
      throw type_error("PrintTensor of " + core::describe(t) +
                       ": a quarter tensor without metadata cannot be read as numbers");
    node_->src = concat(t.getMetadata().flatten().reinterpret(t.elementType()), t.flatten());
    node_->dst = t;
  }
}

WriteUndef::WriteUndef(const Tensor &t, const DebugContext &dc)
    : Program(makeNode(Kind::WriteUndef, dc)) {
  requireValid(t, "WriteUndef", "target");
  node_->src = t;
}

Sync::Sync(SyncType, const DebugContext &dc) : Program(makeNode(Kind::Sync, dc)) {}

Abort::Abort(StringRef message, const DebugContext &dc) : Program(makeNode(Kind::Abort, dc)) {
  node_->message = message.str();
}

AbortOnCondition::AbortOnCondition(const Tensor &pred, StringRef message, const DebugContext &dc)
    : Program(makeNode(Kind::AbortOnCondition, dc)) {
  requireScalar(pred, "AbortOnCondition");
  node_->src = pred;
  node_->message = message.str();
}

} // namespace poplar::program
