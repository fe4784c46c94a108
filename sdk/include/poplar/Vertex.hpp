// What codelet files include: the vertex base classes and the field types.
//
// A codelet is an ordinary C++ class:
//
//   class Sum : public poplar::Vertex {
//   public:
//     poplar::Input<poplar::Vector<float>> in;
//     poplar::Output<float> out;
//     bool compute() { float s = 0; for (float x : in) s += x; *out = s; return true; }
//   };
//
// Fields are views of tile memory filled in by the engine before `compute()` runs: scalar
// fields point at one element, Vector fields at a contiguous run, VectorList fields at a table
// of runs. Plain members (`unsigned n;`) are set with `Graph::setInitialValue(v["n"], …)`.
#pragma once

// <cassert> because Poplar's headers bring it in and codelets written for Poplar `assert`
// without including it.
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <poplar/FieldTypes.hpp>
#include <poplar/Half.hpp>

namespace poplar {

/// Base of single-threaded vertices: `bool compute()` or `void compute()` runs once.
class Vertex {
public:
  using WorkerIdType = unsigned;
};

/// Legacy supervisor vertices run as plain vertices.
class SupervisorVertex : public Vertex {};

/// SupervisorVertex when `pred` holds, else Vertex: Poplar's way to write one template for both.
template <bool pred>
using SupervisorVertexIf = typename std::conditional<pred, SupervisorVertex, Vertex>::type;

namespace detail {
/// Worker contexts of the tile the current MultiVertex runs on (set by the engine).
unsigned currentNumWorkers();
/// Tessera extension: true when the Engine runs with `debug.runtimeVerify`. Vertices may then
/// check their inputs (indices in range, say) and return false from compute(); the engine
/// reports the vertex, compute set and tile, and the class's `const char *failureReason() const`
/// if it has one. Without the option, vertices keep their documented fast behaviour.
bool runtimeVerify();
} // namespace detail

/// Base of vertices whose `compute(unsigned workerId)` runs once per worker context, with
/// `workerId` in [0, numWorkers()). Workers of one tile run one after another on Tessera, in
/// order, so results never depend on scheduling.
class MultiVertex {
public:
  using WorkerIdType = unsigned;
  static unsigned numWorkers() { return detail::currentNumWorkers(); }
};

namespace detail {

/// A contiguous run of elements: the layout of every Vector field. Poplar documents
/// `operator[]`, `operator*` (the first element), `begin`/`end` and `size()`; `data()`,
/// `empty()`, `front()`/`back()` and `cbegin`/`cend` are the std::span-like extras Tessera adds.
template <class T> class Span {
public:
  using value_type = typename std::remove_cv<T>::type;
  using size_type = std::size_t;
  using reference = T &;
  using iterator = T *;
  using const_iterator = const T *;
  T *data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T &operator[](std::size_t i) const { return data_[i]; }
  T &operator*() const { return *data_; }
  /// The first element's members (`in->x` for a vector of structs), as Poplar's Vector has.
  T *operator->() const { return data_; }
  T *begin() const { return data_; }
  T *end() const { return data_ + size_; }
  const T *cbegin() const { return data_; }
  const T *cend() const { return data_ + size_; }
  T &front() const { return data_[0]; }
  T &back() const { return data_[size_ - 1]; }

  T *data_ = nullptr;
  std::size_t size_ = 0;
};

/// A table of runs: the layout of every VectorList field.
template <class T> class SpanList {
public:
  using value_type = Span<T>;
  using size_type = std::size_t;
  using iterator = const Span<T> *;
  using const_iterator = const Span<T> *;
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Span<T> &operator[](std::size_t i) const { return data_[i]; }
  /// The first run (`*lists`), and its members through `->`.
  const Span<T> &operator*() const { return *data_; }
  const Span<T> *operator->() const { return data_; }
  const Span<T> *data() const { return data_; }
  const Span<T> *cbegin() const { return data_; }
  const Span<T> *cend() const { return data_ + size_; }
  const Span<T> *begin() const { return data_; }
  const Span<T> *end() const { return data_ + size_; }

  Span<T> *data_ = nullptr;
  std::size_t size_ = 0;
};

/// One element: the layout of every scalar field.
template <class T> class Ref {
public:
  T &operator*() const { return *ptr_; }
  T *operator->() const { return ptr_; }
  operator T &() const { return *ptr_; }
  T *data() const { return ptr_; }

  T *ptr_ = nullptr;
};

} // namespace detail

/// A plain Vector member is vertex state set with `setInitialValue(v["f"], ArrayRef<T>)`.
/// Wrapped in Input/Output/InOut it is a view of tensor data instead.
template <class T, VectorLayout L = VectorLayout::SPAN, unsigned Align = alignof(T),
          bool Interleaved = false>
class Vector : public detail::Span<T> {};

template <class T, VectorListLayout L = VectorListLayout::DELTANELEMENTS,
          unsigned Align = alignof(T), bool Interleaved = false>
class VectorList : public detail::SpanList<T> {};

/// A read-only field.
template <class T> class Input : public detail::Ref<const T> {
public:
  Input &operator=(const Input &) = delete;
};
/// A write-only field: `*out = x`.
template <class T> class Output : public detail::Ref<T> {
public:
  Output &operator=(const T &v) {
    *this->ptr_ = v;
    return *this;
  }
};
/// A read-write field.
template <class T> class InOut : public detail::Ref<T> {
public:
  InOut &operator=(const T &v) {
    *this->ptr_ = v;
    return *this;
  }
};

template <class T, VectorLayout L, unsigned A, bool I>
class Input<Vector<T, L, A, I>> : public detail::Span<const T> {};
template <class T, VectorLayout L, unsigned A, bool I>
class Output<Vector<T, L, A, I>> : public detail::Span<T> {};
template <class T, VectorLayout L, unsigned A, bool I>
class InOut<Vector<T, L, A, I>> : public detail::Span<T> {};

template <class T, VectorListLayout L, unsigned A, bool I>
class Input<VectorList<T, L, A, I>> : public detail::SpanList<const T> {};
template <class T, VectorListLayout L, unsigned A, bool I>
class Output<VectorList<T, L, A, I>> : public detail::SpanList<T> {};
template <class T, VectorListLayout L, unsigned A, bool I>
class InOut<VectorList<T, L, A, I>> : public detail::SpanList<T> {};

} // namespace poplar

// Registration of vertex classes (used by generated code and by built-in codelets).
#include <tessera/VertexType.hpp>
