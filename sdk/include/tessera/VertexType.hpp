// Reflection of vertex classes: how the SDK learns a vertex type's fields.
//
// Built-in codelets and the stubs `addCodelets` generates for user files register each vertex
// class once, by listing its fields as member pointers:
//
//   tessera::VertexTypeBuilder<Sum>("Sum").field("in", &Sum::in).field("out", &Sum::out).add();
//
// The field's C++ type tells its kind (scalar, Vector, VectorList, plain member), direction
// and element type, so nothing can disagree with the class itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <poplar/Type.hpp>
#include <poplar/Vertex.hpp>

namespace tessera {

enum class FieldKind : std::uint8_t {
  Scalar,      ///< Input/Output/InOut<T>: one element of a tensor.
  Vector,      ///< Input/Output/InOut<Vector<T>>: a run of tensor elements.
  VectorList,  ///< Input/Output/InOut<VectorList<T>> or Vector<Input<Vector<T>>>: runs.
  Plain,       ///< A plain member (`unsigned n;`), set with setInitialValue.
  PlainVector, ///< A plain Vector<T> member: a run of vertex state set with setInitialValue.
};
enum class FieldDirection : std::uint8_t { In, Out, InOut, None };

const char *toString(FieldKind k);
const char *toString(FieldDirection d);

/// One field of a vertex class.
struct FieldInfo {
  std::string name;
  FieldKind kind;
  FieldDirection direction;
  poplar::Type elementType;
  std::size_t offset; ///< Bytes from the start of the object.
};

/// A registered vertex class: what the engine needs to build, fill and run its objects.
struct VertexTypeInfo {
  std::string name;
  std::size_t size = 0;
  std::size_t align = 1;
  bool isMultiVertex = false;
  void (*construct)(void *where) = nullptr;
  void (*destroy)(void *object) = nullptr;
  /// Runs one worker (MultiVertex) or the whole vertex (workerId 0); false means failure.
  bool (*compute)(void *object, unsigned workerId) = nullptr;
  std::vector<FieldInfo> fields;
  /// The class's own `std::uint64_t cycleEstimate() const`, if it declares one: called on a
  /// constructed object whose fields are filled in (so it may look at sizes). Null otherwise;
  /// `Graph::setPerfEstimate` overrides it per vertex.
  std::uint64_t (*cycleEstimate)(const void *object) = nullptr;
  /// The class's own `const char *failureReason() const`, if it declares one: why compute()
  /// returned false, for the engine's error message. Null otherwise.
  const char *(*failureReason)(const void *object) = nullptr;
  /// Where the type came from: "built-in" or a codelet file path.
  std::string origin = "built-in";

  const FieldInfo *findField(const std::string &fieldName) const;
};

/// Adds `info` to the process-wide registry. Registering a name again replaces the earlier
/// type only if it comes from another origin (a recompiled codelet file); thread-safe.
void registerVertexType(std::shared_ptr<const VertexTypeInfo> info);
/// The registered type `name`, or null.
std::shared_ptr<const VertexTypeInfo> findVertexType(const std::string &name);
/// Every registered name, sorted (for "did you mean" suggestions).
std::vector<std::string> registeredVertexTypeNames();

namespace detail {

template <class T> struct FieldTraits {
  static_assert(std::is_arithmetic<typename std::remove_const<T>::type>::value ||
                    std::is_same<typename std::remove_const<T>::type, poplar::half>::value,
                "a plain vertex member must be an arithmetic type or half");
  static constexpr FieldKind kind = FieldKind::Plain;
  static constexpr FieldDirection direction = FieldDirection::None;
  using Element = typename std::remove_const<T>::type;
};

template <template <class> class Wrapper> struct DirectionOf;
template <> struct DirectionOf<poplar::Input> {
  static constexpr FieldDirection value = FieldDirection::In;
};
template <> struct DirectionOf<poplar::Output> {
  static constexpr FieldDirection value = FieldDirection::Out;
};
template <> struct DirectionOf<poplar::InOut> {
  static constexpr FieldDirection value = FieldDirection::InOut;
};

template <class T> struct IsVector : std::false_type {};
template <class T, poplar::VectorLayout L, unsigned A, bool I>
struct IsVector<poplar::Vector<T, L, A, I>> : std::true_type {
  using Element = T;
};
template <class T> struct IsVectorList : std::false_type {};
template <class T, poplar::VectorListLayout L, unsigned A, bool I>
struct IsVectorList<poplar::VectorList<T, L, A, I>> : std::true_type {
  using Element = T;
};

template <template <class> class W, class T> struct WrappedTraits {
  static constexpr FieldDirection direction = DirectionOf<W>::value;
  static constexpr FieldKind kind = IsVector<T>::value       ? FieldKind::Vector
                                    : IsVectorList<T>::value ? FieldKind::VectorList
                                                             : FieldKind::Scalar;
  template <class U, bool V = IsVector<U>::value, bool L = IsVectorList<U>::value> struct E {
    using type = U;
  };
  template <class U> struct E<U, true, false> { using type = typename IsVector<U>::Element; };
  template <class U> struct E<U, false, true> { using type = typename IsVectorList<U>::Element; };
  using Element = typename E<T>::type;
};

template <class T> struct FieldTraits<poplar::Input<T>> : WrappedTraits<poplar::Input, T> {};
template <class T> struct FieldTraits<poplar::Output<T>> : WrappedTraits<poplar::Output, T> {};
template <class T> struct FieldTraits<poplar::InOut<T>> : WrappedTraits<poplar::InOut, T> {};

// A plain Vector<T> is vertex state; a Vector of Input/Output/InOut<Vector<T>> is a list of runs.
template <class T, poplar::VectorLayout L, unsigned A, bool I>
struct FieldTraits<poplar::Vector<T, L, A, I>> {
  static constexpr FieldKind kind = FieldKind::PlainVector;
  static constexpr FieldDirection direction = FieldDirection::None;
  using Element = typename std::remove_const<T>::type;
};
template <template <class> class W, class T, poplar::VectorLayout L0, unsigned A0, bool I0,
          poplar::VectorLayout L, unsigned A, bool I>
struct FieldTraits<poplar::Vector<W<poplar::Vector<T, L0, A0, I0>>, L, A, I>> {
  static constexpr FieldKind kind = FieldKind::VectorList;
  static constexpr FieldDirection direction = DirectionOf<W>::value;
  using Element = T;
};

// compute() may return void (it cannot fail) or a value convertible to bool (false: failure).
template <class V> bool computeOnce(V *v, unsigned, std::false_type /*multi*/, std::true_type) {
  v->compute();
  return true;
}
template <class V> bool computeOnce(V *v, unsigned, std::false_type /*multi*/, std::false_type) {
  return static_cast<bool>(v->compute());
}
template <class V>
bool computeOnce(V *v, unsigned workerId, std::true_type /*multi*/, std::true_type) {
  v->compute(workerId);
  return true;
}
template <class V>
bool computeOnce(V *v, unsigned workerId, std::true_type /*multi*/, std::false_type) {
  return static_cast<bool>(v->compute(workerId));
}
template <class V, bool Multi = std::is_base_of<poplar::MultiVertex, V>::value>
struct ComputeReturnsVoid
    : std::is_void<decltype(std::declval<V &>().compute(std::declval<unsigned &>()))> {};
template <class V>
struct ComputeReturnsVoid<V, false> : std::is_void<decltype(std::declval<V &>().compute())> {};

template <class V> bool callCompute(void *object, unsigned workerId) {
  return computeOnce(static_cast<V *>(object), workerId, std::is_base_of<poplar::MultiVertex, V>(),
                     ComputeReturnsVoid<V>());
}

// The optional `cycleEstimate() const` (convertible to std::uint64_t) and
// `failureReason() const` (convertible to const char *) of a vertex class.
template <class V, class = void> struct HasCycleEstimate : std::false_type {};
template <class V>
struct HasCycleEstimate<
    V, typename std::enable_if<std::is_convertible<
           decltype(std::declval<const V &>().cycleEstimate()), std::uint64_t>::value>::type>
    : std::true_type {};
template <class V, class = void> struct HasFailureReason : std::false_type {};
template <class V>
struct HasFailureReason<
    V, typename std::enable_if<std::is_convertible<
           decltype(std::declval<const V &>().failureReason()), const char *>::value>::type>
    : std::true_type {};

using CycleEstimateFn = std::uint64_t (*)(const void *object);
using FailureReasonFn = const char *(*)(const void *object);
template <class V> std::uint64_t callCycleEstimate(const void *object) {
  return static_cast<std::uint64_t>(static_cast<const V *>(object)->cycleEstimate());
}
template <class V> const char *callFailureReason(const void *object) {
  return static_cast<const V *>(object)->failureReason();
}
template <class V> CycleEstimateFn cycleEstimateOf(std::true_type) { return &callCycleEstimate<V>; }
template <class V> CycleEstimateFn cycleEstimateOf(std::false_type) { return nullptr; }
template <class V> FailureReasonFn failureReasonOf(std::true_type) { return &callFailureReason<V>; }
template <class V> FailureReasonFn failureReasonOf(std::false_type) { return nullptr; }

} // namespace detail

/// Describes vertex class `V` field by field, then registers it.
template <class V> class VertexTypeBuilder {
  static_assert(std::is_default_constructible<V>::value,
                "a vertex class needs a default constructor");

public:
  explicit VertexTypeBuilder(std::string name) : info_(std::make_shared<VertexTypeInfo>()) {
    info_->name = std::move(name);
    info_->size = sizeof(V);
    info_->align = alignof(V);
    info_->isMultiVertex = std::is_base_of<poplar::MultiVertex, V>::value;
    info_->construct = [](void *where) { ::new (where) V(); };
    info_->destroy = [](void *object) { static_cast<V *>(object)->~V(); };
    info_->compute = &detail::callCompute<V>;
    info_->cycleEstimate = detail::cycleEstimateOf<V>(detail::HasCycleEstimate<V>());
    info_->failureReason = detail::failureReasonOf<V>(detail::HasFailureReason<V>());
  }

  /// `member` may belong to `V` or to a base class of `V` (vertex families often share state).
  template <class F, class C> VertexTypeBuilder &field(const char *name, F C::*member) {
    static_assert(std::is_base_of<C, V>::value, "the field must be a member of the vertex class");
    using Traits = detail::FieldTraits<typename std::remove_cv<F>::type>;
    using Element = typename std::remove_cv<typename Traits::Element>::type;
    // The offset of a member is the same in every object; measure it on a real one.
    alignas(V) unsigned char storage[sizeof(V)];
    V *probe = ::new (storage) V();
    auto offset =
        static_cast<std::size_t>(reinterpret_cast<const unsigned char *>(&(probe->*member)) -
                                 reinterpret_cast<const unsigned char *>(probe));
    probe->~V();
    info_->fields.push_back(FieldInfo{name, Traits::kind, Traits::direction,
                                      poplar::equivalent_device_type<Element>::value, offset});
    return *this;
  }

  VertexTypeBuilder &origin(std::string where) {
    info_->origin = std::move(where);
    return *this;
  }

  /// Registers the type; returns true so it can initialise a static.
  bool add() {
    registerVertexType(info_);
    return true;
  }

private:
  std::shared_ptr<VertexTypeInfo> info_;
};

} // namespace tessera
