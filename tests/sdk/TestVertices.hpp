// Vertex types the SDK tests use, registered through the same registry as codelet files.
// Call `registerTestVertices()` before building graphs that use them.
#pragma once

#include <cstdint>
#include <stdexcept>

#include <poplar/Vertex.hpp>

namespace testvertices {

using namespace poplar;

/// out = sum(in)
class Sum : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  bool compute() {
    float s = 0;
    for (float x : in)
      s += x;
    *out = s;
    return true;
  }
};

/// out[i] = in[i] (element counts must match)
class CopyFloats : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  void compute() {
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = in[i];
  }
};

/// data[i] *= factor (a plain member set with setInitialValue)
class Scale : public Vertex {
public:
  InOut<Vector<float>> data;
  float factor;
  bool compute() {
    for (auto &x : data)
      x *= factor;
    return true;
  }
};

/// counter += 1 (an InOut scalar; used by loop tests)
class Increment : public Vertex {
public:
  InOut<int> counter;
  bool compute() {
    *counter = *counter + 1;
    return true;
  }
};

/// flag = (value < limit) — computes a loop predicate.
class LessThan : public Vertex {
public:
  Input<int> value;
  Output<bool> flag;
  int limit;
  bool compute() {
    *flag = *value < limit;
    return true;
  }
};

/// out = sum of every element of every vector in the list.
class SumList : public Vertex {
public:
  Input<VectorList<float>> in;
  Output<float> out;
  bool compute() {
    float s = 0;
    for (std::size_t i = 0; i < in.size(); ++i)
      for (float x : in[i])
        s += x;
    *out = s;
    return true;
  }
};

/// Each worker adds (workerId + 1) to the elements it owns (i % numWorkers() == workerId).
class WorkerAdd : public MultiVertex {
public:
  InOut<Vector<float>> data;
  bool compute(unsigned workerId) {
    for (std::size_t i = workerId; i < data.size(); i += numWorkers())
      data[i] += static_cast<float>(workerId + 1);
    return true;
  }
};

/// out[i] = table[i] + in[i]: a plain Vector member holds vertex-state constants.
class AddTable : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  Vector<float> table;
  bool compute() {
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = in[i] + table[i];
    return true;
  }
};

/// Does nothing: measures engine overhead.
class Empty : public Vertex {
public:
  bool compute() { return true; }
};

/// Always fails by returning false.
class Fails : public Vertex {
public:
  Input<float> in;
  bool compute() { return false; }
};

/// Throws when in > 0.
class ThrowsIfPositive : public Vertex {
public:
  Input<float> in;
  bool compute() {
    if (*in > 0)
      throw std::runtime_error("positive input");
    return true;
  }
};

/// out = in (scalar copy, any tile).
class CopyScalar : public Vertex {
public:
  Input<float> in;
  Output<float> out;
  bool compute() {
    *out = *in;
    return true;
  }
};

/// out = the address of in's first element modulo 8 (the alignment a remote input arrives with).
class AddressMod8 : public Vertex {
public:
  Input<Vector<float>> in;
  Output<unsigned> out;
  bool compute() {
    *out = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(&in[0]) % 8);
    return true;
  }
};

/// acc += in (scalar Input and InOut of float).
class AccumulateScalar : public Vertex {
public:
  Input<float> in;
  InOut<float> acc;
  bool compute() {
    *acc = *acc + *in;
    return true;
  }
};

/// flag = (value >= limit): a loop predicate for RepeatWhileFalse.
class AtLeast : public Vertex {
public:
  Input<int> value;
  Output<bool> flag;
  int limit;
  bool compute() {
    *flag = *value >= limit;
    return true;
  }
};

/// out[i] = start + i (an Output Vector and a plain float member).
class WriteIota : public Vertex {
public:
  Output<Vector<float>> out;
  float start;
  void compute() {
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = start + static_cast<float>(i);
  }
};

/// Each worker w marks seen[w] = w + 1 and stores numWorkers(); fails if seen is too short.
class WorkerInfo : public MultiVertex {
public:
  Output<Vector<unsigned>> seen;
  Output<unsigned> workers;
  bool compute(unsigned workerId) {
    if (workerId >= seen.size())
      return false;
    seen[workerId] = workerId + 1;
    *workers = numWorkers();
    return true;
  }
};

/// out = sum(in) over ints.
class SumInts : public Vertex {
public:
  Input<Vector<int>> in;
  Output<int> out;
  bool compute() {
    int s = 0;
    for (int x : in)
      s += x;
    *out = s;
    return true;
  }
};

/// out = number of true elements of in.
class CountTrue : public Vertex {
public:
  Input<Vector<bool>> in;
  Output<unsigned> out;
  bool compute() {
    unsigned n = 0;
    for (bool b : in)
      n += b ? 1u : 0u;
    *out = n;
    return true;
  }
};

/// out = sum of every element of every vector: the Vector<Input<Vector<T>>> list form.
class SumVectorOfInputs : public Vertex {
public:
  Vector<Input<Vector<float>>> in;
  Output<float> out;
  bool compute() {
    float s = 0;
    for (std::size_t i = 0; i < in.size(); ++i)
      for (float x : in[i])
        s += x;
    *out = s;
    return true;
  }
};

/// Every element of every vector in the list *= factor (an InOut VectorList).
class ScaleList : public Vertex {
public:
  InOut<VectorList<float>> data;
  float factor;
  bool compute() {
    for (std::size_t i = 0; i < data.size(); ++i)
      for (auto &x : data[i])
        x *= factor;
    return true;
  }
};

inline void registerTestVertices() {
  static const bool once = [] {
    tessera::VertexTypeBuilder<Sum>("Sum").field("in", &Sum::in).field("out", &Sum::out).add();
    tessera::VertexTypeBuilder<CopyFloats>("CopyFloats")
        .field("in", &CopyFloats::in)
        .field("out", &CopyFloats::out)
        .add();
    tessera::VertexTypeBuilder<Scale>("Scale")
        .field("data", &Scale::data)
        .field("factor", &Scale::factor)
        .add();
    tessera::VertexTypeBuilder<Increment>("Increment").field("counter", &Increment::counter).add();
    tessera::VertexTypeBuilder<LessThan>("LessThan")
        .field("value", &LessThan::value)
        .field("flag", &LessThan::flag)
        .field("limit", &LessThan::limit)
        .add();
    tessera::VertexTypeBuilder<SumList>("SumList")
        .field("in", &SumList::in)
        .field("out", &SumList::out)
        .add();
    tessera::VertexTypeBuilder<WorkerAdd>("WorkerAdd").field("data", &WorkerAdd::data).add();
    tessera::VertexTypeBuilder<AddTable>("AddTable")
        .field("in", &AddTable::in)
        .field("out", &AddTable::out)
        .field("table", &AddTable::table)
        .add();
    tessera::VertexTypeBuilder<Empty>("Empty").add();
    tessera::VertexTypeBuilder<Fails>("Fails").field("in", &Fails::in).add();
    tessera::VertexTypeBuilder<ThrowsIfPositive>("ThrowsIfPositive")
        .field("in", &ThrowsIfPositive::in)
        .add();
    tessera::VertexTypeBuilder<CopyScalar>("CopyScalar")
        .field("in", &CopyScalar::in)
        .field("out", &CopyScalar::out)
        .add();
    tessera::VertexTypeBuilder<AddressMod8>("AddressMod8")
        .field("in", &AddressMod8::in)
        .field("out", &AddressMod8::out)
        .add();
    tessera::VertexTypeBuilder<AccumulateScalar>("AccumulateScalar")
        .field("in", &AccumulateScalar::in)
        .field("acc", &AccumulateScalar::acc)
        .add();
    tessera::VertexTypeBuilder<AtLeast>("AtLeast")
        .field("value", &AtLeast::value)
        .field("flag", &AtLeast::flag)
        .field("limit", &AtLeast::limit)
        .add();
    tessera::VertexTypeBuilder<WriteIota>("WriteIota")
        .field("out", &WriteIota::out)
        .field("start", &WriteIota::start)
        .add();
    tessera::VertexTypeBuilder<WorkerInfo>("WorkerInfo")
        .field("seen", &WorkerInfo::seen)
        .field("workers", &WorkerInfo::workers)
        .add();
    tessera::VertexTypeBuilder<SumInts>("SumInts")
        .field("in", &SumInts::in)
        .field("out", &SumInts::out)
        .add();
    tessera::VertexTypeBuilder<CountTrue>("CountTrue")
        .field("in", &CountTrue::in)
        .field("out", &CountTrue::out)
        .add();
    tessera::VertexTypeBuilder<SumVectorOfInputs>("SumVectorOfInputs")
        .field("in", &SumVectorOfInputs::in)
        .field("out", &SumVectorOfInputs::out)
        .add();
    tessera::VertexTypeBuilder<ScaleList>("ScaleList")
        .field("data", &ScaleList::data)
        .field("factor", &ScaleList::factor)
        .add();
    return true;
  }();
  (void)once;
}

} // namespace testvertices
