// Unit-testing codelets: run one vertex on host data with a single call.
//
//   using tessera::testing::runVertex;
//   tessera::testing::RunVertexOptions options;
//   options.codeletFiles = {"DotProduct.cpp"};
//   auto r = runVertex("DotProductVertex",
//                      {{"a", std::vector<float>{1, 2, 3}},
//                       {"b", std::vector<float>{4, 5, 6}},
//                       {"out", 0.0f}},
//                      options);
//   EXPECT_EQ(r.scalar<float>("out"), 32.0f);
//
// `runVertex` builds a one-tile graph, gives every tensor field (scalar, Vector, VectorList)
// its own variable initialised from the host data, sets plain members with
// `Graph::setInitialValue`, runs the vertex once (every worker, for a MultiVertex) and reads
// every tensor field back. Output fields need data too: it fixes their size (zeros will do).
// Errors are the SDK's own: `unknown_vertex_type`, `unknown_field`, `graph_connection_error`
// for data that does not fit a field, `application_runtime_error` when compute() fails.
#pragma once

#include <cstddef>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Type.hpp>
#include <poplar/exceptions.hpp>

namespace tessera {
namespace testing {

/// The host data given to one field of the vertex under test.
class FieldData {
public:
  /// One value: a scalar Input/Output/InOut field or a plain scalar member.
  template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  FieldData(T value) : FieldData(std::vector<T>{value}) {}
  /// A run of values: a Vector field or a plain Vector member.
  template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  FieldData(std::vector<T> values) : isList_(false) {
    auto runs = std::make_shared<std::vector<std::vector<Stored<T>>>>(1);
    runs->front().assign(values.begin(), values.end());
    init(std::move(runs));
  }
  template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  FieldData(std::initializer_list<T> values) : FieldData(std::vector<T>(values)) {}
  /// One run per element: a VectorList field or a Vector<Input<Vector<T>>>.
  template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  FieldData(std::vector<std::vector<T>> lists) : isList_(true) {
    auto runs = std::make_shared<std::vector<std::vector<Stored<T>>>>();
    for (const auto &l : lists)
      runs->emplace_back(l.begin(), l.end());
    init(std::move(runs));
  }

  // Used by runVertex.
  bool isList() const { return isList_; }
  const std::vector<std::size_t> &runSizes() const { return sizes_; }
  /// Sets the initial value of `t` to run `run`.
  void initTensor(poplar::Graph &g, const poplar::Tensor &t, std::size_t run) const {
    initTensor_(g, t, run);
  }
  /// Sets plain member `f` to run 0.
  void initField(poplar::Graph &g, const poplar::FieldRef &f) const { initField_(g, f); }

private:
  // std::vector<bool> has no data(); bools travel as bytes (converted on the way in).
  template <class T>
  using Stored = typename std::conditional<std::is_same<T, bool>::value, unsigned char, T>::type;

  template <class S> void init(std::shared_ptr<std::vector<std::vector<S>>> runs) {
    for (const auto &r : *runs)
      sizes_.push_back(r.size());
    initTensor_ = [runs](poplar::Graph &g, const poplar::Tensor &t, std::size_t i) {
      g.setInitialValue<S>(t, poplar::ArrayRef<S>((*runs)[i]));
    };
    initField_ = [runs](poplar::Graph &g, const poplar::FieldRef &f) {
      const auto &r = runs->front();
      if (r.size() == 1)
        g.setInitialValue<S>(f, r.front());
      else
        g.setInitialValue<S>(f, poplar::ArrayRef<S>(r));
    };
  }

  bool isList_ = false;
  std::vector<std::size_t> sizes_;
  std::function<void(poplar::Graph &, const poplar::Tensor &, std::size_t)> initTensor_;
  std::function<void(poplar::Graph &, const poplar::FieldRef &)> initField_;
};

/// Every tensor field's contents after the run, read with the field's element type.
class VertexResult {
public:
  /// The elements of a scalar or Vector field `name` (also of VectorList element 0).
  template <class T> std::vector<T> vector(const std::string &name) const {
    return decode<T>(find(name, poplar::equivalent_device_type<T>::value).runs.at(0));
  }
  /// The single element of scalar field `name`.
  template <class T> T scalar(const std::string &name) const {
    const auto v = vector<T>(name);
    if (v.size() != 1)
      throw poplar::index_error("runVertex result: field '" + name + "' holds " +
                                std::to_string(v.size()) + " elements, not one");
    return v.front();
  }
  /// Every element run of VectorList field `name`.
  template <class T> std::vector<std::vector<T>> lists(const std::string &name) const {
    std::vector<std::vector<T>> out;
    for (const auto &r : find(name, poplar::equivalent_device_type<T>::value).runs)
      out.push_back(decode<T>(r));
    return out;
  }

  struct Field {
    poplar::Type type;
    std::vector<std::vector<unsigned char>> runs; ///< Raw element bytes, one run per tensor.
  };
  std::map<std::string, Field> fields;

private:
  const Field &find(const std::string &name, poplar::Type asType) const;
  template <class T> static std::vector<T> decode(const std::vector<unsigned char> &bytes) {
    std::vector<T> out(bytes.size() / sizeof(T));
    decodeInto(out, bytes);
    return out;
  }
  static void decodeInto(std::vector<bool> &out, const std::vector<unsigned char> &bytes) {
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = bytes[i] != 0;
  }
  template <class T>
  static void decodeInto(std::vector<T> &out, const std::vector<unsigned char> &bytes) {
    if (!out.empty())
      std::memcpy(static_cast<void *>(out.data()), bytes.data(), out.size() * sizeof(T));
  }
};

struct RunVertexOptions {
  /// Codelet files (sources or popc objects) loaded with Graph::addCodelets first.
  std::vector<std::string> codeletFiles;
  /// Flags for compiling `codeletFiles`.
  std::string compileFlags;
  /// Worker contexts of the tile (what MultiVertex::numWorkers() returns).
  unsigned numWorkerContexts = 6;
};

/// Runs one vertex of type `vertexType` on tile 0 of a one-tile IPU Model with `fields`
/// (every field of the vertex must be given) and returns every tensor field afterwards.
VertexResult runVertex(const std::string &vertexType,
                       const std::map<std::string, FieldData> &fields,
                       const RunVertexOptions &options = {});

} // namespace testing
} // namespace tessera
