#include "MatMulPlanner.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <ostream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <poplin/MatMul.hpp>

#include "PlanningCacheImpl.hpp"

namespace poplin {

// PlanningCacheImpl lives in PlanningCacheImpl.hpp (shared with the convolution planner).

PlanningCache::PlanningCache() : impl(std::make_unique<PlanningCacheImpl>()) {}
PlanningCache::~PlanningCache() = default;
std::size_t PlanningCache::size() const {
  std::lock_guard lock(impl->mutex);
  return impl->plans.size() + impl->convPlans.size();
}

std::ostream &operator<<(std::ostream &os, const MatMulPlan &p) {
  os << "matMul plan: [" << p.groups << "][" << p.rows << "][" << p.inner << "] x [" << p.groups
     << "][" << p.inner << "][" << p.cols << "] " << p.inputType.toString() << " -> "
     << p.outputType.toString() << "\n"
     << "  split: groups " << p.groupBlocks << " x rows " << p.rowBlocks << " x cols "
     << p.colBlocks << " x inner (K split) " << p.innerBlocks << " on " << p.tilesUsed << " tiles; "
     << p.innerSteps << " serial inner step(s) of " << p.innerPerStep;
  if (p.storageTiles)
    os << ", operand slices on " << p.storageTiles << " storage tiles";
  os << "\n"
     << "  block per tile: " << p.groupsPerBlock << " x " << p.rowsPerBlock << " x "
     << p.colsPerBlock << " x " << p.innerPerBlock << "\n"
     << "  memory per tile: " << p.bytesPerTile << " bytes of " << p.bytesBudget << " budget"
     << (p.fitsBudget ? "" : " (DOES NOT FIT: least-memory plan chosen)") << "\n"
     << "  estimated cycles: " << p.totalCycles << " (compute " << p.computeCycles << ", exchange "
     << p.exchangeCycles << ", partials reduction " << p.reduceCycles << ")\n"
     << "  estimated host time: " << p.hostNanoseconds << " ns; chosen for "
     << (p.objective == PlanObjective::HOST_TIME ? "host time" : "IPU cycles") << "\n";
  return os;
}

namespace detail {
namespace {

std::size_t ceilDiv(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
std::size_t roundUp(std::size_t a, std::size_t b) { return ceilDiv(a, b) * b; }

/// Granularity of the block kernel (codelets/poplin: 8-row micro-tiles, 32-column panels).
constexpr std::size_t kRowUnit = 8, kColumnUnit = 32;

/// Serial inner steps tried (more steps: less memory, one more sync each).
constexpr std::size_t kStepCounts[] = {1, 2, 3, 4, 6, 8, 12, 16};

/// Candidate block counts for a dimension of size `d`: small counts, then roughly geometric
/// ones, normalised so no block is empty.
std::vector<std::size_t> blockCounts(std::size_t d) {
  if (d == 0)
    return {1};
  std::set<std::size_t> counts;
  auto add = [&](std::size_t c) {
    c = std::min(c, d);
    const std::size_t block = ceilDiv(d, c);
    counts.insert(ceilDiv(d, block));
  };
  for (std::size_t c = 1; c <= 8; ++c)
    add(c);
  for (std::size_t c = 8; c < 2 * d; c *= 2) {
    add(c);
    add(c + c / 2);
  }
  return {counts.begin(), counts.end()};
}

struct Costing {
  std::uint64_t bytes, compute, exchange, reduce, total;
  std::uint64_t host; ///< Estimated host nanoseconds (see hostCost).
};

/// Whether the unit accumulates in separate fp32 partials (a K split, or serial steps into a
/// non-fp32 output) rather than writing the output directly.
bool needsPartials(std::size_t ck, std::size_t steps, std::size_t outBytes) {
  return ck > 1 || (steps > 1 && outBytes != 4);
}

/// What the IPU Model costs on the host that runs it. Every tile's memory is its own host
/// buffer, so what matters is not the slowest tile but the total work: multiply-adds at the
/// kernel's rate on padded micro-tiles, every exchanged byte (read + write; for large problems
/// the tile arenas live in L3 or DRAM), the partials' reduction, and a fixed cost per vertex and
/// per compute set. Units are shared by a few host threads, so fewer units than four leave
/// threads idle. Rough constants measured on an AVX-512 host; only their ratios matter.
std::uint64_t hostCost(std::size_t inBytes, std::size_t outBytes, std::size_t gb, std::size_t mb,
                       std::size_t nb, std::size_t kb, std::size_t cm, std::size_t cn,
                       std::size_t ck, std::size_t steps, bool stored, std::size_t units) {
  constexpr double kFlopsPerNs = 60, kNsPerByte = 0.12, kNsPerVertex = 400, kNsPerStep = 15000;
  constexpr std::size_t kThreads = 4;
  const double padded = double(gb) * double(roundUp(mb, 8)) * double(roundUp(nb, 32));
  const double cElems = double(gb) * double(mb) * double(nb);
  // Short inner steps spend proportionally more time loading and storing accumulators.
  const double ks = double(ceilDiv(kb, steps));
  const double kernel = 2 * padded * double(kb) / kFlopsPerNs * (1 + 4 / ks);
  const double received = double(cn > 1 || stored ? gb * mb * kb * inBytes : 0) +
                          double(cm > 1 || stored ? gb * kb * nb * inBytes : 0);
  // The output block is written out once; each further step reloads it, mostly from L2.
  const double touched =
      2 * received + double(gb * (mb + nb) * kb * inBytes) +
      cElems * (needsPartials(ck, steps, outBytes) ? 4 : outBytes) * (1 + 0.25 * double(steps - 1));
  double perUnit = kernel + touched * kNsPerByte + double(gb * steps) * kNsPerVertex;
  if (needsPartials(ck, steps, outBytes)) // exchanged pieces, then summed into the output
    perUnit += cElems * 4 * (3 + double(ck)) * kNsPerByte + kNsPerVertex * gb;
  const double rounds = double(ceilDiv(units, kThreads));
  return static_cast<std::uint64_t>(
      perUnit * rounds + double(steps + (needsPartials(ck, steps, outBytes) ? 1 : 0)) * kNsPerStep);
}

Costing cost(const poplar::Target &target, std::size_t inBytes, std::size_t outBytes,
             std::size_t gb, std::size_t mb, std::size_t nb, std::size_t kb, std::size_t cm,
             std::size_t cn, std::size_t ck, std::size_t steps, bool stored) {
  const std::uint64_t vw = std::max(1u, target.getVectorWidth(poplar::FLOAT));
  const std::uint64_t workers = target.getNumWorkerContexts();
  const std::uint64_t exBytes = std::max(1u, target.getExchangeBytesPerCycle());
  const std::uint64_t sync = 100;
  const std::size_t ks = ceilDiv(kb, steps);
  const std::uint64_t aBytes = std::uint64_t(gb) * mb * kb * inBytes;
  const std::uint64_t bBytes = std::uint64_t(gb) * kb * nb * inBytes;
  const std::uint64_t cElems = std::uint64_t(gb) * mb * nb;
  const bool partials = needsPartials(ck, steps, outBytes);
  Costing c{};
  if (steps == 1) {
    // The unit's operand blocks are either its own or exchange copies: held once.
    c.bytes = aBytes + bBytes;
  } else if (stored) {
    // Only one step's slices, exchanged in from the storage tiles.
    c.bytes = std::uint64_t(gb) * (mb + nb) * ks * inBytes;
  } else {
    // Its share of the spread operand blocks, plus one step's slices in exchange buffers.
    const std::uint64_t aStep = std::uint64_t(gb) * mb * ks * inBytes;
    const std::uint64_t bStep = std::uint64_t(gb) * ks * nb * inBytes;
    c.bytes = ceilDiv(steps, cn) * aStep + ceilDiv(steps, cm) * bStep + aStep + bStep;
  }
  // Partials take fp32 per element, plus the pieces of the other units' partials exchanged in.
  c.bytes += partials ? cElems * 8 : cElems * outBytes;
  // The block kernel works on whole micro-tiles: rows in units of 8 and columns in panel units
  // of kColumnUnit, so ragged blocks cost their rounded-up size.
  const std::uint64_t paddedElems =
      std::uint64_t(gb) * roundUp(mb, kRowUnit) * roundUp(nb, kColumnUnit);
  // Each serial step after the first reloads and stores the fp32 accumulators.
  c.compute = 2 * paddedElems * kb / (vw * workers * 2) + std::uint64_t(gb) * kb * nb / vw +
              (steps - 1) * 2 * cElems / vw + 50 * gb * steps;
  const std::uint64_t received =
      stored ? aBytes + bBytes : (cn > 1 ? aBytes : 0) + (cm > 1 ? bBytes : 0);
  c.exchange = ceilDiv(received, exBytes) + (steps - 1) * sync;
  if (partials) {
    const std::uint64_t piece = ceilDiv(cElems, ck);
    c.reduce = piece * ck / vw + ceilDiv((ck - 1) * piece * 4, exBytes) + sync + 30 * gb;
  }
  c.total = c.compute + c.exchange + c.reduce + sync;
  return c;
}

MatMulPlan search(const poplar::Target &target, const poplar::Type &inputType,
                  const poplar::Type &outputType, std::size_t G, std::size_t M, std::size_t N,
                  std::size_t K, const MatMulOptions &options) {
  const std::size_t tiles = target.getNumTiles();
  const std::size_t inBytes = target.getTypeSize(inputType);
  const std::size_t outBytes = target.getTypeSize(outputType);
  const std::uint64_t budget =
      static_cast<std::uint64_t>(options.availableMemoryProportion * target.getBytesPerTile());
  MatMulPlan best;
  bool haveFitting = false;
  std::tuple<std::uint64_t, std::size_t> bestKey{~std::uint64_t(0), ~std::size_t(0)};
  std::uint64_t leastBytes = ~std::uint64_t(0);
  const auto gCounts = blockCounts(G), mCounts = blockCounts(M), nCounts = blockCounts(N),
             kCounts = blockCounts(K);
  for (std::size_t cg : gCounts)
    for (std::size_t cm : mCounts)
      for (std::size_t cn : nCounts) {
        if (cg * cm * cn > tiles)
          break;
        for (std::size_t ck : kCounts) {
          const std::size_t used = cg * cm * cn * ck;
          if (used > tiles)
            break;
          const std::size_t gb = G ? ceilDiv(G, cg) : 0, mb = M ? ceilDiv(M, cm) : 0,
                            nb = N ? ceilDiv(N, cn) : 0, kb = K ? ceilDiv(K, ck) : 0;
          for (std::size_t steps : kStepCounts) {
            if (steps > 1 && (steps > kb || ceilDiv(kb, ceilDiv(kb, steps)) != steps))
              continue; // empty or duplicate step counts
            for (bool stored : {false, true}) {
              // Storage tiles: the tiles no unit uses hold every operand step slice.
              if (stored && (steps == 1 || used >= tiles))
                continue;
              const std::size_t storageTiles = stored ? tiles - used : 0;
              std::uint64_t storageBytes = 0;
              if (stored) {
                const std::size_t slices = cg * ck * (cm + cn) * steps;
                const std::size_t ks = ceilDiv(kb, steps);
                storageBytes = ceilDiv(slices, storageTiles) * gb * std::max(mb, nb) * ks * inBytes;
              }
              Costing c =
                  cost(target, inBytes, outBytes, gb, mb, nb, kb, cm, cn, ck, steps, stored);
              c.host = hostCost(inBytes, outBytes, gb, mb, nb, kb, cm, cn, ck, steps, stored, used);
              c.bytes = std::max(c.bytes, storageBytes);
              const bool fits = c.bytes <= budget;
              const std::tuple<std::uint64_t, std::size_t> key{
                  options.objective == PlanObjective::HOST_TIME ? c.host : c.total, used};
              const bool better =
                  fits ? (!haveFitting || key < bestKey) : (!haveFitting && c.bytes < leastBytes);
              if (!better)
                continue;
              haveFitting = haveFitting || fits;
              bestKey = key;
              leastBytes = std::min(leastBytes, c.bytes);
              best.storageTiles = storageTiles;
              best.groupsPerBlock = gb;
              best.rowsPerBlock = mb;
              best.colsPerBlock = nb;
              best.innerPerBlock = kb;
              best.groupBlocks = cg;
              best.rowBlocks = cm;
              best.colBlocks = cn;
              best.innerBlocks = ck;
              best.innerSteps = steps;
              best.innerPerStep = kb ? ceilDiv(kb, steps) : 0;
              best.tilesUsed = static_cast<unsigned>(used);
              best.bytesPerTile = c.bytes;
              best.fitsBudget = fits;
              best.computeCycles = c.compute;
              best.exchangeCycles = c.exchange;
              best.reduceCycles = c.reduce;
              best.totalCycles = c.total;
              best.hostNanoseconds = c.host;
            }
          }
        }
      }
  best.groups = G;
  best.rows = M;
  best.cols = N;
  best.inner = K;
  best.inputType = inputType;
  best.outputType = outputType;
  best.partialsType = options.partialsType;
  best.bytesBudget = budget;
  best.objective = options.objective;
  best.numTiles = static_cast<unsigned>(tiles);
  return best;
}

} // namespace

MatMulPlan planMatMul(const poplar::Target &target, const poplar::Type &inputType,
                      const poplar::Type &outputType, std::size_t G, std::size_t M, std::size_t N,
                      std::size_t K, const MatMulOptions &options, PlanningCache *cache) {
  if (!cache)
    return search(target, inputType, outputType, G, M, N, K, options);
  const std::string key = std::to_string(G) + "x" + std::to_string(M) + "x" + std::to_string(N) +
                          "x" + std::to_string(K) + "/" + inputType.toString() + "/" +
                          outputType.toString() + "/" + options.key() + "/" +
                          std::to_string(target.getNumTiles()) + "/" +
                          std::to_string(target.getBytesPerTile()) + "/" +
                          std::to_string(target.getNumWorkerContexts());
  {
    std::lock_guard lock(cache->impl->mutex);
    if (auto it = cache->impl->plans.find(key); it != cache->impl->plans.end())
      return it->second;
  }
  MatMulPlan plan = search(target, inputType, outputType, G, M, N, K, options);
  std::lock_guard lock(cache->impl->mutex);
  cache->impl->plans.emplace(key, plan);
  return plan;
}

} // namespace detail
} // namespace poplin
