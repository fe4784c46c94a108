// Tensor views. Every view is a list of tensor-order ranges taken from its source, so every
// operation below reduces to computing those ranges and calling `select`.
#include <poplar/Tensor.hpp>

#include <algorithm>
#include <mutex>
#include <numeric>
#include <unordered_set>
#include <ostream>

#include <poplar/exceptions.hpp>
#include <poputil/Describe.hpp>

#include "core/GraphData.hpp"
#include "core/TensorData.hpp"

namespace poplar {
namespace core {

std::size_t product(const std::vector<std::size_t> &shape) {
  std::size_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}

namespace {
struct ShapeHash {
  std::size_t operator()(const std::vector<std::size_t> &s) const {
    std::size_t h = s.size();
    for (auto d : s)
      h = (h ^ d) * 0x100000001b3ull + (h >> 29);
    return h;
  }
};
/// The process's shapes. Never destroyed: views held by static objects may outlive main.
struct ShapeTable {
  std::mutex mutex;
  std::unordered_set<std::vector<std::size_t>, ShapeHash> shapes;
};
ShapeTable &shapeTable() {
  static ShapeTable *table = new ShapeTable;
  return *table;
}
} // namespace

const std::vector<std::size_t> &InternedShape::emptyShape() {
  static const std::vector<std::size_t> *empty = intern({});
  return *empty;
}

const std::vector<std::size_t> *InternedShape::intern(const std::vector<std::size_t> &s) {
  auto &t = shapeTable();
  std::lock_guard<std::mutex> lock(t.mutex);
  return &*t.shapes.insert(s).first; // node-based: the element's address never changes
}

const RegionStarts &RegionStore::starts() const {
  if (const RegionStarts *s = shared_->starts.load(std::memory_order_acquire))
    return *s;
  auto *built = new RegionStarts;
  built->starts.reserve(n_ + 1);
  std::size_t at = 0;
  bool uniform = n_ > 0;
  for (const auto &r : *this) {
    built->starts.push_back(at);
    at += r.size();
    uniform = uniform && r.size() == front().size();
  }
  built->starts.push_back(at);
  built->uniformSize = uniform ? front().size() : 0;
  const RegionStarts *expected = nullptr;
  if (shared_->starts.compare_exchange_strong(expected, built, std::memory_order_acq_rel,
                                              std::memory_order_acquire))
    return *built;
  delete built; // another reader got there first
  return *expected;
}

RegionIndex::RegionIndex(const TensorData &t)
    : regions_(t.regions.data()), count_(t.regions.size()) {
  const std::size_t n = count_;
  if (n > RegionStore::kSmallCount) {
    shared_ = &t.regions.starts();
    starts_ = shared_->starts.data();
    uniformSize_ = shared_->uniformSize;
    return;
  }
  std::size_t at = 0;
  bool uniform = n > 0;
  for (std::size_t i = 0; i < n; ++i) {
    local_[i] = at;
    at += regions_[i].size();
    uniform = uniform && regions_[i].size() == regions_[0].size();
  }
  local_[n] = at;
  starts_ = local_;
  uniformSize_ = uniform ? regions_[0].size() : 0;
}

RegionIndex &RegionIndex::operator=(const RegionIndex &o) {
  regions_ = o.regions_;
  count_ = o.count_;
  uniformSize_ = o.uniformSize_;
  shared_ = o.shared_;
  if (shared_) {
    starts_ = shared_->starts.data();
  } else {
    std::copy(o.local_, o.local_ + count_ + 1, local_);
    starts_ = local_;
  }
  return *this;
}

void RegionIndex::append(RegionList &out, std::size_t begin, std::size_t end) const {
  if (begin >= end)
    return;
  std::size_t i = uniformSize_ ? begin / uniformSize_
                               : static_cast<std::size_t>(
                                     std::upper_bound(starts_, starts_ + count_, begin) - starts_) -
                                     1;
  for (; begin < end; ++i) {
    const Region &r = regions_[i];
    const std::size_t from = begin - starts_[i];
    const std::size_t take = std::min(end - begin, r.count - from);
    appendRegion(out, r.sub(from, take));
    begin += take;
  }
}

} // namespace core

namespace {

using core::Region;
using core::RegionList;
using core::TensorData;
using Shape = std::vector<std::size_t>;
using poputil::shapeString;

const TensorData &checked(const std::shared_ptr<const TensorData> &d) {
  if (!d)
    throw poplar_error("operation on an invalid (default-constructed) Tensor");
  return *d;
}

Tensor make(const TensorData &from, Shape shape, RegionList regions, Type type) {
  auto d = std::make_shared<TensorData>();
  d->graph = from.graph;
  d->type = type;
  d->numElements = core::product(shape);
  d->shape = std::move(shape);
  d->regions = std::move(regions);
  return Tensor(std::move(d));
}

/// The same runs under another shape or type.
Tensor make(const TensorData &from, Shape shape, const core::RegionStore &regions, Type type) {
  auto d = std::make_shared<TensorData>();
  d->graph = from.graph;
  d->type = type;
  d->numElements = core::product(shape);
  d->shape = std::move(shape);
  d->regions = regions;
  return Tensor(std::move(d));
}

/// Strides (in elements) of a row-major shape.
Shape stridesOf(const Shape &s) {
  Shape st(s.size(), 1);
  for (std::size_t i = s.size(); i-- > 1;)
    st[i - 1] = st[i] * s[i];
  return st;
}

/// Calls fn(begin, end) for each tensor-order range of the view that takes, for every index of
/// the dims before `dim`, the listed positions of `dim` (each a whole inner block).
template <class Positions>
RegionList selectAlongDim(const TensorData &d, unsigned dim, const Positions &positions) {
  std::size_t outer = 1, inner = 1;
  for (unsigned i = 0; i < dim; ++i)
    outer *= d.shape[i];
  for (unsigned i = dim + 1; i < d.shape.size(); ++i)
    inner *= d.shape[i];
  const std::size_t D = d.shape[dim];
  core::RegionIndex index(d);
  RegionList out;
  for (std::size_t o = 0; o < outer; ++o) {
    const std::size_t base = o * D * inner;
    for (auto [b, e] : positions)
      index.append(out, base + b * inner, base + e * inner);
  }
  return out;
}

/// Steps `idx`, an odometer over the first idx.size() dimensions of a dimShuffle's output
/// `out` (source strides `st`, permutation `perm`), to the next position, keeping `offset` the
/// source element offset of that position.
void nextShuffledPosition(std::vector<std::size_t> &idx, std::size_t &offset, const Shape &st,
                          ArrayRef<unsigned> perm, const Shape &out) {
  for (std::size_t k = idx.size(); k-- > 0;) {
    offset += st[perm[k]];
    if (++idx[k] < out[k])
      return;
    offset -= st[perm[k]] * out[k];
    idx[k] = 0;
  }
}

void checkDim(const Tensor &t, unsigned dim, const char *op) {
  const auto &d = t.data();
  if (dim >= d.shape.size())
    throw index_error(std::string(op) + ": dimension " + std::to_string(dim) +
                      " is out of range for " + core::describe(t) + " (rank " +
                      std::to_string(d.shape.size()) + ")");
}

} // namespace

Tensor::Tensor() = default;
Tensor::~Tensor() = default;
Tensor::Tensor(const Tensor &) = default;
Tensor::Tensor(Tensor &&) noexcept = default;
Tensor &Tensor::operator=(const Tensor &) = default;
Tensor &Tensor::operator=(Tensor &&) noexcept = default;
Tensor::Tensor(std::shared_ptr<const core::TensorData> data) : data_(std::move(data)) {}

const core::TensorData &Tensor::data() const { return checked(data_); }
bool Tensor::valid() const { return data_ != nullptr; }
Type Tensor::elementType() const { return data().type; }
const std::vector<std::size_t> &Tensor::shape() const { return data().shape; }
unsigned Tensor::rank() const { return static_cast<unsigned>(data().shape.size()); }
std::size_t Tensor::numElements() const { return data().numElements; }

std::size_t Tensor::dim(unsigned i) const {
  checkDim(*this, i, "dim");
  return data().shape[i];
}

Tensor Tensor::slice(std::size_t begin, std::size_t end, unsigned dim) const {
  const auto &d = data();
  checkDim(*this, dim, "slice");
  if (begin > end || end > d.shape[dim])
    throw index_error("slice [" + std::to_string(begin) + ", " + std::to_string(end) +
                      ") of dimension " + std::to_string(dim) + " is out of range for " +
                      core::describe(*this));
  Shape shape = d.shape;
  shape[dim] = end - begin;
  std::pair<std::size_t, std::size_t> one[] = {{begin, end}};
  return make(d, std::move(shape), selectAlongDim(d, dim, one), d.type);
}

Tensor Tensor::slice(const Interval &region, unsigned dim) const {
  return slice(region.begin(), region.end(), dim);
}

Tensor Tensor::slice(ArrayRef<std::size_t> begin, ArrayRef<std::size_t> end) const {
  const auto &d = data();
  if (begin.size() != d.shape.size() || end.size() != d.shape.size())
    throw index_error("slice: begin and end need " + std::to_string(d.shape.size()) +
                      " indices for " + core::describe(*this) + ", got " +
                      std::to_string(begin.size()) + " and " + std::to_string(end.size()));
  for (unsigned i = 0; i < d.shape.size(); ++i)
    if (begin[i] > end[i] || end[i] > d.shape[i])
      throw index_error("slice [" + std::to_string(begin[i]) + ", " + std::to_string(end[i]) +
                        ") of dimension " + std::to_string(i) + " is out of range for " +
                        core::describe(*this));
  // The box's tensor-order runs straight from the index, dimension by dimension in one pass:
  // slicing one dimension after another would first copy every region of the leading ones.
  const unsigned rank = static_cast<unsigned>(d.shape.size());
  Shape shape(rank);
  for (unsigned i = 0; i < rank; ++i)
    shape[i] = end[i] - begin[i];
  RegionList regions;
  if (core::product(shape) > 0) {
    // Trailing dimensions taken whole join the innermost run.
    unsigned runDim = rank ? rank - 1 : 0;
    while (runDim > 0 && begin[runDim] == 0 && end[runDim] == d.shape[runDim])
      --runDim;
    const Shape strides = stridesOf(d.shape);
    core::RegionIndex index(d);
    Shape at(begin.begin(), begin.end());
    for (;;) {
      std::size_t offset = 0;
      for (unsigned i = 0; i < runDim; ++i)
        offset += at[i] * strides[i];
      if (rank == 0)
        index.append(regions, 0, 1);
      else
        index.append(regions, offset + begin[runDim] * strides[runDim],
                     offset + end[runDim] * strides[runDim]);
      // Odometer over the dimensions before the run.
      unsigned i = runDim;
      while (i > 0) {
        --i;
        if (++at[i] < end[i])
          break;
        at[i] = begin[i];
        if (i == 0) {
          i = rank + 1;
          break;
        }
      }
      if (i == rank + 1 || runDim == 0)
        break;
    }
  }
  return make(d, std::move(shape), std::move(regions), d.type);
}

std::vector<Tensor> Tensor::slices(ArrayRef<Interval> intervals, unsigned dim) const {
  std::vector<Tensor> out;
  out.reserve(intervals.size());
  for (const auto &i : intervals)
    out.push_back(slice(i, dim));
  return out;
}

std::vector<Tensor> Tensor::slices(const std::vector<std::vector<Interval>> &intervals,
                                   unsigned dim) const {
  std::vector<Tensor> out;
  const auto &d = data();
  if (d.shape.size() == 1 && dim == 0) {
    // Rank 1: each sequence's regions straight from one shared index, with no tensor per
    // interval — element-wise ops gather thousands of row pieces per tile this way.
    core::RegionIndex index(d);
    out.reserve(intervals.size());
    for (const auto &seq : intervals) {
      RegionList regions;
      std::size_t n = 0;
      for (const auto &i : seq) {
        if (i.begin() > i.end() || i.end() > d.shape[0])
          throw index_error("slice [" + std::to_string(i.begin()) + ", " + std::to_string(i.end()) +
                            ") of dimension 0 is out of range for " + core::describe(*this));
        index.append(regions, i.begin(), i.end());
        n += i.size();
      }
      out.push_back(make(d, {n}, std::move(regions), d.type));
    }
    return out;
  }
  for (const auto &seq : intervals) {
    std::vector<Tensor> parts = slices(seq, dim);
    out.push_back(parts.empty() ? slice(0, 0, dim) : concat(parts, dim));
  }
  return out;
}

Tensor Tensor::operator[](std::size_t i) const {
  const auto &d = data();
  if (d.shape.empty())
    throw index_error("operator[] on a rank-0 tensor " + core::describe(*this));
  if (i >= d.shape[0])
    throw index_error("index " + std::to_string(i) + " is out of range for dimension 0 of " +
                      core::describe(*this));
  return slice(i, i + 1, 0).squeeze({0});
}

Tensor Tensor::index(ArrayRef<std::size_t> indices) const {
  Tensor t = *this;
  for (auto i : indices)
    t = t[i];
  return t;
}

Tensor Tensor::reshape(ArrayRef<std::size_t> newShape) const {
  const auto &d = data();
  Shape s(newShape.begin(), newShape.end());
  if (core::product(s) != d.numElements)
    throw shape_error("reshape of " + core::describe(*this) + " to " + shapeString(s) +
                      " changes the element count from " + std::to_string(d.numElements) + " to " +
                      std::to_string(core::product(s)));
  return make(d, std::move(s), d.regions, d.type);
}

Tensor Tensor::reshapePartial(unsigned begin, unsigned end, ArrayRef<std::size_t> newDims) const {
  const auto &d = data();
  if (begin > end || end > d.shape.size())
    throw index_error("reshapePartial: dimensions [" + std::to_string(begin) + ", " +
                      std::to_string(end) + ") are out of range for " + core::describe(*this));
  Shape s(d.shape.begin(), d.shape.begin() + begin);
  s.insert(s.end(), newDims.begin(), newDims.end());
  s.insert(s.end(), d.shape.begin() + end, d.shape.end());
  return reshape(s);
}

Tensor Tensor::flatten() const { return reshape({data().numElements}); }

Tensor Tensor::flatten(unsigned begin, unsigned end) const {
  const auto &d = data();
  if (begin >= end || end > d.shape.size())
    throw index_error("flatten: dimensions [" + std::to_string(begin) + ", " + std::to_string(end) +
                      ") are out of range for " + core::describe(*this));
  std::size_t n = 1;
  for (unsigned i = begin; i < end; ++i)
    n *= d.shape[i];
  return reshapePartial(begin, end, {n});
}

Tensor Tensor::dimShuffle(ArrayRef<unsigned> perm) const {
  const auto &d = data();
  const std::size_t r = d.shape.size();
  std::vector<bool> seen(r, false);
  if (perm.size() != r)
    throw index_error("dimShuffle: permutation has " + std::to_string(perm.size()) +
                      " entries but " + core::describe(*this) + " has rank " + std::to_string(r));
  for (unsigned p : perm) {
    if (p >= r || seen[p])
      throw index_error("dimShuffle: entry " + std::to_string(p) +
                        " is out of range or repeated in the permutation for " +
                        core::describe(*this));
    seen[p] = true;
  }
  Shape out(r);
  for (std::size_t i = 0; i < r; ++i)
    out[i] = d.shape[perm[i]];
  if (d.numElements == 0)
    return make(d, out, RegionList{}, d.type);
  // Trailing dimensions the shuffle leaves in place stay one contiguous block per step.
  const Shape st = stridesOf(d.shape);
  std::size_t keep = r, block = 1;
  while (keep > 0 && perm[keep - 1] == keep - 1) {
    block *= d.shape[keep - 1];
    --keep;
  }
  std::size_t steps = 1;
  for (std::size_t k = 0; k < keep; ++k)
    steps *= out[k];
  core::RegionList regions;
  // One contiguous source with the innermost dimension moved (a weight transposed for a
  // backward pass): each innermost output row is one strided run, appended whole.
  if (r > 0 && keep == r && d.regions.size() == 1 && d.regions.front().isContiguous() &&
      st[perm[r - 1]] <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    const Region &src = d.regions.front();
    const std::size_t inner = out[r - 1];
    const auto stride = static_cast<std::int32_t>(st[perm[r - 1]]);
    std::vector<std::size_t> idx(r - 1, 0);
    std::size_t offset = 0;
    for (std::size_t n = 0; n < steps / inner; ++n) {
      core::appendRegion(regions, Region(src.var, stride, src.begin + offset, inner));
      nextShuffledPosition(idx, offset, st, perm, out);
    }
    return make(d, std::move(out), std::move(regions), d.type);
  }
  core::RegionIndex index(d);
  // One source run (a weight transposed for a backward pass): every step is one run at a
  // known place, so no index lookups, and the list is sized once rather than regrown.
  const Region *whole = d.regions.size() == 1 ? &d.regions.front() : nullptr;
  if (whole && whole->isContiguous() && block > 1)
    regions.reserve(steps);
  std::vector<std::size_t> idx(keep, 0);
  std::size_t offset = 0;
  for (std::size_t n = 0; n < steps; ++n) {
    if (whole)
      core::appendRegion(regions, whole->sub(offset, block));
    else
      index.append(regions, offset, offset + block);
    nextShuffledPosition(idx, offset, st, perm, out);
  }
  return make(d, std::move(out), std::move(regions), d.type);
}

Tensor Tensor::dimShufflePartial(ArrayRef<unsigned> source, ArrayRef<unsigned> destination) const {
  const auto &d = data();
  const unsigned r = rank();
  if (source.size() != destination.size())
    throw index_error("dimShufflePartial: " + std::to_string(source.size()) + " source dims but " +
                      std::to_string(destination.size()) + " destination dims for " +
                      core::describe(*this));
  std::vector<int> perm(r, -1);
  std::vector<bool> used(r, false);
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] >= r || destination[i] >= r || perm[destination[i]] != -1 || used[source[i]])
      throw index_error("dimShufflePartial: source dimension " + std::to_string(source[i]) +
                        " -> destination " + std::to_string(destination[i]) +
                        " is out of range or repeated for " + core::describe(*this) + " (rank " +
                        std::to_string(r) + ")");
    perm[destination[i]] = static_cast<int>(source[i]);
    used[source[i]] = true;
  }
  unsigned next = 0;
  for (unsigned i = 0; i < r; ++i) {
    if (perm[i] != -1)
      continue;
    while (used[next])
      ++next;
    perm[i] = static_cast<int>(next);
    used[next] = true;
  }
  (void)d;
  return dimShuffle(std::vector<unsigned>(perm.begin(), perm.end()));
}

Tensor Tensor::dimRoll(unsigned dimIdx, unsigned newIdx) const {
  const unsigned r = rank();
  if (dimIdx >= r || newIdx >= r)
    throw index_error("dimRoll(" + std::to_string(dimIdx) + ", " + std::to_string(newIdx) +
                      ") is out of range for " + core::describe(*this));
  return dimShufflePartial({dimIdx}, {newIdx});
}

Tensor Tensor::transpose() const {
  if (rank() != 2)
    throw shape_error("transpose needs a rank-2 tensor, got " + core::describe(*this));
  return dimShuffle({1, 0});
}

Tensor Tensor::expand(ArrayRef<std::size_t> indices) const {
  const auto &d = data();
  Shape s = d.shape;
  std::vector<std::size_t> sorted(indices.begin(), indices.end());
  std::sort(sorted.begin(), sorted.end());
  for (auto i : sorted) {
    if (i > s.size())
      throw index_error("expand: position " + std::to_string(i) + " is out of range for " +
                        core::describe(*this));
    s.insert(s.begin() + static_cast<std::ptrdiff_t>(i), 1);
  }
  return make(d, std::move(s), d.regions, d.type);
}

Tensor Tensor::squeeze(ArrayRef<std::size_t> indices) const {
  const auto &d = data();
  std::vector<std::size_t> sorted(indices.begin(), indices.end());
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw index_error("squeeze: repeated dimension for " + core::describe(*this));
  Shape s = d.shape;
  for (auto it = sorted.rbegin(); it != sorted.rend(); ++it) {
    if (*it >= d.shape.size())
      throw index_error("squeeze: dimension " + std::to_string(*it) + " is out of range for " +
                        core::describe(*this));
    if (d.shape[*it] != 1)
      throw shape_error("squeeze: dimension " + std::to_string(*it) + " of " +
                        core::describe(*this) + " has size " + std::to_string(d.shape[*it]) +
                        ", not 1");
    s.erase(s.begin() + static_cast<std::ptrdiff_t>(*it));
  }
  return make(d, std::move(s), d.regions, d.type);
}

Tensor Tensor::broadcast(unsigned N, unsigned dim) const {
  const auto &d = data();
  checkDim(*this, dim, "broadcast");
  Shape s = d.shape;
  s[dim] *= N;
  std::vector<std::pair<std::size_t, std::size_t>> pos(N, {0, d.shape[dim]});
  return make(d, std::move(s), selectAlongDim(d, dim, pos), d.type);
}

Tensor Tensor::reverse(unsigned dim) const {
  const auto &d = data();
  checkDim(*this, dim, "reverse");
  std::vector<std::pair<std::size_t, std::size_t>> pos;
  for (std::size_t i = d.shape[dim]; i-- > 0;)
    pos.push_back({i, i + 1});
  return make(d, d.shape, selectAlongDim(d, dim, pos), d.type);
}

Tensor Tensor::subSample(unsigned stride, unsigned dim) const {
  const auto &d = data();
  checkDim(*this, dim, "subSample");
  if (stride == 0)
    throw index_error("subSample: stride 0 for " + core::describe(*this));
  std::vector<std::pair<std::size_t, std::size_t>> pos;
  for (std::size_t i = 0; i < d.shape[dim]; i += stride)
    pos.push_back({i, i + 1});
  Shape s = d.shape;
  s[dim] = pos.size();
  return make(d, std::move(s), selectAlongDim(d, dim, pos), d.type);
}

Tensor Tensor::upsample(unsigned scale, unsigned dim, UpsampleMethod) const {
  const auto &d = data();
  checkDim(*this, dim, "upsample");
  std::vector<std::pair<std::size_t, std::size_t>> pos;
  for (std::size_t i = 0; i < d.shape[dim]; ++i)
    for (unsigned k = 0; k < scale; ++k)
      pos.push_back({i, i + 1});
  Shape s = d.shape;
  s[dim] *= scale;
  return make(d, std::move(s), selectAlongDim(d, dim, pos), d.type);
}

Tensor Tensor::reinterpret(const Type &type) const {
  const auto &d = data();
  if (type.size() != d.type.size())
    throw type_error("reinterpret of " + core::describe(*this) + " as " + type.toString() +
                     ": element sizes differ (" + std::to_string(d.type.size()) + " vs " +
                     std::to_string(type.size()) + " bytes)");
  return make(d, d.shape, d.regions, type);
}

Tensor Tensor::getMetadata() const {
  if (!valid())
    return {};
  const auto &d = data();
  if (!d.type.requiresMetadata() || !d.graph || d.regions.empty())
    return {};
  const auto &var = d.graph->variables[d.regions.front().var];
  return var.type.requiresMetadata() ? var.metadata : Tensor();
}

bool Tensor::hasMetadata() const { return getMetadata().valid(); }

std::vector<VariableInterval> Tensor::getVarRegions() const {
  std::vector<VariableInterval> out;
  core::forEachUnitRun(data().regions, [&](unsigned var, std::size_t b, std::size_t e) {
    out.push_back({VariableRef{var}, Interval(b, e)});
  });
  return out;
}

std::vector<Interval> Tensor::getContiguousRegions() const {
  std::vector<Interval> out;
  std::size_t at = 0;
  core::forEachUnitRun(data().regions, [&](unsigned, std::size_t b, std::size_t e) {
    out.emplace_back(at, at + (e - b));
    at += e - b;
  });
  return out;
}

// Runs are built element by element (see appendRegion), so a contiguous view is one run.
bool Tensor::isContiguous() const {
  const auto &r = data().regions;
  return r.size() == 0 || (r.size() == 1 && r.front().isContiguous());
}

namespace {
bool anyOverlap(RegionList regions) { // of contiguous runs
  std::sort(regions.begin(), regions.end(), [](const Region &a, const Region &b) {
    return a.var != b.var ? a.var < b.var : a.begin < b.begin;
  });
  for (std::size_t i = 1; i < regions.size(); ++i)
    if (regions[i].var == regions[i - 1].var && regions[i].begin < regions[i - 1].next())
      return true;
  return false;
}
} // namespace

bool Tensor::containsAliases() const {
  const auto &rs = data().regions;
  // A run whose stride is 0 repeats its element.
  for (const auto &r : rs)
    if (r.count > 1 && r.stride == 0)
      return true;
  return anyOverlap(core::unitRuns(rs));
}

bool Tensor::containsConstant() const {
  const auto &d = data();
  for (const auto &r : d.regions)
    if (d.graph && d.graph->variables[r.var].isConstant)
      return true;
  return false;
}

bool Tensor::intersectsWith(const Tensor &other) const {
  if (data().graph != other.data().graph)
    return false;
  // Overlap within one side is not an intersection: dedupe each side first.
  auto normalise = [](RegionList r) {
    std::sort(r.begin(), r.end(), [](const Region &a, const Region &b) {
      return a.var != b.var ? a.var < b.var : a.begin < b.begin;
    });
    RegionList merged;
    for (const auto &x : r) {
      if (!merged.empty() && merged.back().var == x.var && x.begin <= merged.back().next())
        merged.back().count = std::max(merged.back().next(), x.next()) - merged.back().begin;
      else
        merged.push_back(x);
    }
    return merged;
  };
  RegionList all = normalise(core::unitRuns(data().regions));
  RegionList b = normalise(core::unitRuns(other.data().regions));
  all.insert(all.end(), b.begin(), b.end());
  return anyOverlap(std::move(all));
}

std::string Tensor::shortString() const {
  if (!valid())
    return "<invalid tensor>";
  return data().type.toString() + shapeString(data().shape.vec());
}

bool Tensor::operator==(const Tensor &o) const {
  if (!valid() || !o.valid())
    return valid() == o.valid();
  const auto &a = data(), &b = o.data();
  return a.graph == b.graph && a.type == b.type && a.shape == b.shape && a.regions == b.regions;
}

Tensor concat(ArrayRef<Tensor> tensors, unsigned dim) {
  if (tensors.empty())
    throw shape_error("concat of an empty list of tensors");
  const auto &first = tensors[0].data();
  if (dim >= first.shape.size())
    throw index_error("concat: dimension " + std::to_string(dim) + " is out of range for " +
                      core::describe(tensors[0]));
  Shape shape = first.shape;
  shape[dim] = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto &d = tensors[i].data();
    if (d.type != first.type)
      throw type_error("concat along dimension " + std::to_string(dim) + ": tensor " +
                       std::to_string(i) + " " + core::describe(tensors[i]) + " holds " +
                       d.type.toString() + " but tensor 0 " + core::describe(tensors[0]) +
                       " holds " + first.type.toString());
    bool same = d.shape.size() == first.shape.size() && d.graph == first.graph;
    for (std::size_t k = 0; same && k < d.shape.size(); ++k)
      same = k == dim || d.shape[k] == first.shape[k];
    if (!same)
      throw shape_error("concat along dimension " + std::to_string(dim) + ": tensor " +
                        std::to_string(i) + " " + core::describe(tensors[i]) +
                        " does not match tensor 0 " + core::describe(tensors[0]));
    shape[dim] += d.shape[dim];
  }
  std::size_t outer = 1, inner = 1;
  for (unsigned i = 0; i < dim; ++i)
    outer *= shape[i];
  for (unsigned i = dim + 1; i < shape.size(); ++i)
    inner *= shape[i];
  std::vector<core::RegionIndex> indices;
  indices.reserve(tensors.size());
  for (const auto &t : tensors)
    indices.emplace_back(t.data());
  RegionList regions;
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      std::size_t block = tensors[i].data().shape[dim] * inner;
      indices[i].append(regions, o * block, (o + 1) * block);
    }
  auto d = std::make_shared<TensorData>();
  d->graph = first.graph;
  d->type = first.type;
  d->numElements = core::product(shape);
  d->shape = std::move(shape);
  d->regions = std::move(regions);
  return Tensor(std::move(d));
}

Tensor concat(const Tensor &first, const Tensor &second, unsigned dim) {
  return concat({first, second}, dim);
}

Tensor append(const Tensor &a, const Tensor &b, unsigned dim) {
  return concat(a, b.expand({dim}), dim);
}

std::ostream &operator<<(std::ostream &os, const Tensor &t) { return os << t.shortString(); }

} // namespace poplar
