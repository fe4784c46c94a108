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

#include <concepts>
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
  static_assert(std::is_arithmetic_v<std::remove_const_t<T>> ||
                    std::is_same_v<std::remove_const_t<T>, poplar::half>,
                "a plain vertex member must be an arithmetic type or half");
  static constexpr FieldKind kind = FieldKind::Plain;
  static constexpr FieldDirection direction = FieldDirection::None;
  using Element = std::remove_const_t<T>;
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
template <class T, auto L, unsigned A, bool I>
struct IsVector<poplar::Vector<T, L, A, I>> : std::true_type {
  using Element = T;
};
template <class T> struct IsVectorList : std::false_type {};
template <class T, auto L, unsigned A, bool I>
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
template <class T, auto L, unsigned A, bool I> struct FieldTraits<poplar::Vector<T, L, A, I>> {
  static constexpr FieldKind kind = FieldKind::PlainVector;
  static constexpr FieldDirection direction = FieldDirection::None;
  using Element = std::remove_const_t<T>;
};
template <template <class> class W, class T, auto L0, unsigned A0, bool I0, auto L, unsigned A,
          bool I>
struct FieldTraits<poplar::Vector<W<poplar::Vector<T, L0, A0, I0>>, L, A, I>> {
  static constexpr FieldKind kind = FieldKind::VectorList;
  static constexpr FieldDirection direction = DirectionOf<W>::value;
  using Element = T;
};

template <class V> bool callCompute(void *object, unsigned workerId) {
  V *v = static_cast<V *>(object);
  if constexpr (std::is_base_of_v<poplar::MultiVertex, V>) {
    if constexpr (std::is_void_v<decltype(v->compute(workerId))>) {
      v->compute(workerId);
      return true;
    } else {
      return static_cast<bool>(v->compute(workerId));
    }
  } else {
    (void)workerId;
    if constexpr (std::is_void_v<decltype(v->compute())>) {
      v->compute();
      return true;
    } else {
      return static_cast<bool>(v->compute());
    }
  }
}

} // namespace detail

/// Describes vertex class `V` field by field, then registers it.
template <class V> class VertexTypeBuilder {
  static_assert(std::is_default_constructible_v<V>, "a vertex class needs a default constructor");

public:
  explicit VertexTypeBuilder(std::string name) : info_(std::make_shared<VertexTypeInfo>()) {
    info_->name = std::move(name);
    info_->size = sizeof(V);
    info_->align = alignof(V);
    info_->isMultiVertex = std::is_base_of_v<poplar::MultiVertex, V>;
    info_->construct = [](void *where) { ::new (where) V(); };
    info_->destroy = [](void *object) { static_cast<V *>(object)->~V(); };
    info_->compute = &detail::callCompute<V>;
    if constexpr (requires(const V &v) {
                    { v.cycleEstimate() } -> std::convertible_to<std::uint64_t>;
                  }) {
      info_->cycleEstimate = [](const void *object) {
        return static_cast<std::uint64_t>(static_cast<const V *>(object)->cycleEstimate());
      };
    }
    if constexpr (requires(const V &v) {
                    { v.failureReason() } -> std::convertible_to<const char *>;
                  }) {
      info_->failureReason = [](const void *object) -> const char * {
        return static_cast<const V *>(object)->failureReason();
      };
    }
  }

  /// `member` may belong to `V` or to a base class of `V` (vertex families often share state).
  template <class F, class C> VertexTypeBuilder &field(const char *name, F C::*member) {
    static_assert(std::is_base_of_v<C, V>, "the field must be a member of the vertex class");
    using Traits = detail::FieldTraits<std::remove_cv_t<F>>;
    using Element = std::remove_cv_t<typename Traits::Element>;
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
