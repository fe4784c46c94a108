// The representation behind poplar::Tensor.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <vector>

#include <poplar/Type.hpp>

#include "core/Region.hpp"

namespace poplar::core {

struct GraphData;

/// A tensor shape stored once per process: views hold a pointer to the one shared copy of their
/// shape (graphs have few distinct shapes but millions of views), and equal shapes compare by
/// pointer. Interned shapes live until the process ends; interning is thread-safe.
class InternedShape {
public:
  InternedShape() : v_(&emptyShape()) {}
  explicit InternedShape(const std::vector<std::size_t> &s) : v_(intern(s)) {}
  InternedShape &operator=(const std::vector<std::size_t> &s) {
    v_ = intern(s);
    return *this;
  }
  template <class It> void assign(It begin, It end) {
    v_ = intern(std::vector<std::size_t>(begin, end));
  }

  const std::vector<std::size_t> &vec() const { return *v_; }
  operator const std::vector<std::size_t> &() const { return *v_; }
  std::size_t size() const { return v_->size(); }
  bool empty() const { return v_->empty(); }
  std::size_t operator[](std::size_t i) const { return (*v_)[i]; }
  auto begin() const { return v_->begin(); }
  auto end() const { return v_->end(); }
  std::size_t front() const { return v_->front(); }
  std::size_t back() const { return v_->back(); }
  friend bool operator==(const InternedShape &a, const InternedShape &b) { return a.v_ == b.v_; }

private:
  static const std::vector<std::size_t> &emptyShape();
  static const std::vector<std::size_t> *intern(const std::vector<std::size_t> &s);
  const std::vector<std::size_t> *v_;
};

/// Tensor-order start of every region of a view with many regions (see RegionIndex).
struct RegionStarts {
  std::vector<std::size_t> starts; ///< starts[i] = tensor-order index of regions[i]; back() = size.
  std::size_t uniformSize = 0;     ///< The size every region has, or 0 when sizes differ.
};

/// A view's runs, immutable once built, in 32 bytes: one run inline (most views: a variable, a
/// slice of one, a reshape of either); up to kSmallCount in an exact-size array of its own; more
/// in a list shared by every view with the same runs (a reshape, expand, squeeze or reinterpret
/// of a transposed matrix with millions of runs costs no copy), taken over from the builder
/// without a copy, with its region-start index built once on first use.
class RegionStore {
public:
  /// Runs up to which a view owns them and RegionIndex indexes them on the stack.
  static constexpr std::size_t kSmallCount = 16;

  RegionStore() : one_{} {}
  RegionStore(const RegionStore &o) : RegionStore() { *this = o; }
  RegionStore &operator=(const RegionStore &o) {
    if (this == &o)
      return *this;
    if (o.n_ > kSmallCount) {
      o.shared_->refs.fetch_add(1, std::memory_order_relaxed);
      release();
      shared_ = o.shared_;
      n_ = o.n_;
      return *this;
    }
    return *this = RegionList(o.begin(), o.end());
  }
  RegionStore &operator=(RegionList &&l) {
    release();
    const std::size_t n = l.size();
    if (n == 1) {
      one_ = l.front();
    } else if (n > 1 && n <= kSmallCount) {
      array_ = new Region[n];
      std::copy(l.begin(), l.end(), array_);
    } else if (n > kSmallCount) {
      shared_ = new Shared(std::move(l));
    }
    n_ = n;
    return *this;
  }
  RegionStore &operator=(const RegionList &l) { return *this = RegionList(l); }
  ~RegionStore() { release(); }

  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  const Region *data() const {
    return n_ <= 1 ? &one_ : n_ <= kSmallCount ? array_ : shared_->list.data();
  }
  const Region *begin() const { return data(); }
  const Region *end() const { return data() + n_; }
  const Region &operator[](std::size_t i) const { return data()[i]; }
  const Region &front() const { return *data(); }
  const Region &back() const { return data()[n_ - 1]; }
  RegionList list() const { return RegionList(begin(), end()); }
  friend bool operator==(const RegionStore &a, const RegionStore &b) {
    return a.n_ == b.n_ && (a.data() == b.data() || std::equal(a.begin(), a.end(), b.begin()));
  }

  /// The start index of a store of more than kSmallCount runs, built on first use and shared
  /// with every view of the same runs. Safe for concurrent readers: racing builders agree and
  /// one keeps its copy.
  const RegionStarts &starts() const;

private:
  struct Shared {
    explicit Shared(RegionList &&l) : list(std::move(l)) {}
    ~Shared() { delete starts.load(std::memory_order_relaxed); }
    std::atomic<std::size_t> refs{1};
    RegionList list;
    std::atomic<const RegionStarts *> starts{nullptr};
  };
  void release() {
    if (n_ > kSmallCount) {
      if (shared_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
        delete shared_;
    } else if (n_ > 1) {
      delete[] array_;
    }
    n_ = 0;
  }
  union {
    Region one_;
    Region *array_;  ///< 2..kSmallCount runs.
    Shared *shared_; ///< More.
  };
  std::size_t n_ = 0;
};

/// One view: one allocation (the shared_ptr's) holding its type, an interned shape and its runs;
/// a view of one run (most of them) needs nothing else.
struct TensorData {
  const GraphData *graph = nullptr;
  Type type;
  InternedShape shape;
  RegionStore regions; ///< Built by appendRegion: a function of the element sequence alone.
  std::size_t numElements = 0;
};

/// Random access to tensor-order ranges of a tensor's regions.
class RegionIndex {
public:
  explicit RegionIndex(const TensorData &t);
  RegionIndex(const RegionIndex &o) { *this = o; }
  RegionIndex &operator=(const RegionIndex &o);
  /// Appends the regions covering tensor-order elements [begin, end) to `out`.
  void append(RegionList &out, std::size_t begin, std::size_t end) const;

private:
  const Region *regions_ = nullptr;
  std::size_t count_ = 0;
  const std::size_t *starts_ = nullptr; ///< Into shared_->starts or local_.
  std::size_t uniformSize_ = 0;
  const RegionStarts *shared_ = nullptr;
  std::size_t local_[RegionStore::kSmallCount + 1];
};

std::size_t product(const std::vector<std::size_t> &shape);

} // namespace poplar::core
