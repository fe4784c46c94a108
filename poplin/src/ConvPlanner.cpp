// The convolution planner. Candidates: block counts from {1, 2, 3, 4, 6, 8, 12, …} per
// dimension (groups, output channels, input channels, batch, output rows), at most one unit per
// tile, each fitting availableMemoryProportion of a tile (counting the im2col scratch). Each
// candidate gets IPU-cycle estimates (slowest tile: implicit-GEMM compute at 6 workers × 2 fp32
// MACs per cycle, panel building, exchange of its input slice and weights, partials reduction,
// syncs), reported by reportPlanInfo, and a host-time estimate, which chooses the plan: the host
// runs every tile's vertices on a few threads, so thousands of tiny blocks (each re-gathering
// its weights and input halo) cost more than they save — units get a useful minimum size.
// A training step keeps its three passes' blocks on the same tiles (every plan spreads unit u
// to tile u·tiles/units, and operands and results outlive their pass), so plans whose tile
// share stays within a third of the budget are preferred to those that merely fit it.
// A pointwise convolution (ConvAsMatMul.hpp) is also planned as a matMul, and becomes one when
// that plan's host-time estimate is lower (option pointwiseAsMatMul overrides the choice); a
// 3x3 stride-1 one likewise as Winograd's products (ConvWinograd.hpp; option useWinograd), and
// a strided one or its input gradient as one lowered product (ConvLowered.hpp; im2colMatMul).
#include "ConvPlanner.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <ostream>
#include <sstream>
#include <vector>

#include "ConvAsMatMul.hpp"
#include "ConvIndexing.hpp"
#include "ConvLowered.hpp"
#include "ConvWinograd.hpp"
#include "PlanningCacheImpl.hpp"

namespace poplin::detail {

namespace {

/// " (the planning objective)" after the estimate the plan was chosen by.
const char *objectiveNote(const ConvPlan &p, bool hostTime) {
  return (p.objective == PlanObjective::HOST_TIME) == hostTime ? " (the planning objective)" : "";
}

} // namespace

std::ostream &operator<<(std::ostream &os, const ConvPlan &p) {
  const bool forward = p.pass == ConvPass::FORWARD;
  const char *passName = forward ? "forward" : "weight gradient";
  const char *form = nullptr;
  switch (p.method) {
  case ConvMethod::POINTWISE:
    form = forward ? "pointwise, computed as the matrix product W[OC][IC] x in[IC][B*field] per "
                     "group"
                   : "pointwise, computed as the matrix product dOut[OC][B*field] x "
                     "in[B*field][IC] per group";
    break;
  case ConvMethod::WINOGRAD:
    form = forward ? "winograd F(2x2,3x3), 16 products per group U[OC][IC] x V[IC][B*tiles]"
                   : "winograd F(2x2,3x3), 16 products per group dM[OC][B*tiles] x "
                     "V[B*tiles][IC]";
    break;
  case ConvMethod::IM2COL:
    form = forward ? "im2col, the matrix product W[OC][IC*kernel] x patches[IC*kernel][B*out] "
                     "per group"
                   : "im2col, the matrix product dOut[OC][B*out] x patches[B*out][IC*kernel] "
                     "per group";
    break;
  case ConvMethod::COL2IM:
    form = "col2im, the matrix product W[OC*kernel][IC] x in[IC][B*field] per group, its "
           "columns gathered into the output";
    break;
  case ConvMethod::BLOCKS:
    break;
  }
  if (form)
    return os << "convolution plan (" << passName << "): " << form << "\n  " << *p.product
              << "  estimated host time of the pass: " << p.hostNanoseconds << " ns"
              << objectiveNote(p, true) << "\n  estimated cycles of the product: " << p.totalCycles
              << objectiveNote(p, false) << "\n";
  os << "convolution plan (" << (p.pass == ConvPass::FORWARD ? "forward" : "weight gradient")
     << "): groups " << p.groups << ", output channels " << p.outChans << ", input channels "
     << p.inChans << ", batch " << p.batch << ", output rows " << p.rows << "\n"
     << "  split: groups " << p.groupBlocks << " x out chans " << p.outChanBlocks << " x in chans "
     << p.inChanBlocks << " x batch " << p.batchBlocks << " x rows " << p.rowBlocks << " = "
     << p.units() << " units on " << p.tilesUsed << " of " << p.numTiles
     << " tiles; partials summed over " << p.reduceCount() << " unit(s)\n"
     << "  block per tile: " << p.groupsPerBlock << " x " << p.outChansPerBlock << " x "
     << p.inChansPerBlock << " x " << p.batchPerBlock << " x " << p.rowsPerBlock << "\n"
     << "  memory per tile: " << p.bytesPerTile << " bytes of " << p.bytesBudget << " budget"
     << (p.fitsBudget ? "" : " (DOES NOT FIT: least-memory plan chosen)") << "\n"
     << "  estimated cycles: " << p.totalCycles << " (compute " << p.computeCycles << ", exchange "
     << p.exchangeCycles << ", partials reduction " << p.reduceCycles << ")"
     << objectiveNote(p, false) << "\n"
     << "  estimated host time: " << p.hostNanoseconds << " ns" << objectiveNote(p, true) << "\n";
  return os;
}

namespace {

constexpr std::uint64_t kSyncCycles = 1000;
/// Panel columns built at a time by the codelets (codelets/poplin/ConvVertices.cpp) and the
/// GEMM kernel's packed-panel width.
constexpr std::uint64_t kPanelColumns = 64, kGemmPanel = 32;
/// Host cost model, measured on the development machine: fp32 GEMM, panel building, gathering
/// a vertex's operands, per-vertex dispatch, partials reduction; units share this many threads.
constexpr double kNsPerMac = 0.07, kPanelNsPerElement = 0.5, kGatherNsPerByte = 0.15,
                 kGatherNsPerPiece = 10, kVertexNs = 4000, kReduceNsPerElement = 0.6,
                 kHostThreads = 2;

std::size_t ceilDiv(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

/// The passes of one layer that may share a tile (forward, input gradient, weight gradient).
constexpr std::size_t kPassesSharingTiles = 3;

/// 2: within a share of the budget that leaves room for the layer's other passes; 1: within
/// the budget; 0: over it.
int memoryTier(const ConvPlan &p, const ConvOptions &options) {
  if (!p.fitsBudget)
    return 0;
  if (options.objective == PlanObjective::IPU_CYCLES)
    return 1; // an IPU's passes run one after another in the same memory: the budget is the rule
  return p.bytesPerTile * kPassesSharingTiles <= p.bytesBudget ? 2 : 1;
}

/// Distinct block sizes for a dimension of `size`: ceil(size / c) for c = 1, 2, 3, 4, 6, 8, …
std::vector<std::size_t> blockSizes(std::size_t size) {
  std::vector<std::size_t> sizes;
  for (std::size_t c = 1; c <= size; c = c < 4 ? c + 1 : c + c / 2) {
    const std::size_t per = ceilDiv(size, c);
    if (sizes.empty() || sizes.back() != per)
      sizes.push_back(per);
  }
  if (sizes.back() != 1)
    sizes.push_back(1);
  return sizes;
}

std::string cacheKey(const ConvParams &params, ConvPass pass, const ConvOptions &options,
                     const poplar::Target &target) {
  std::ostringstream os;
  os << params << (pass == ConvPass::FORWARD ? "fwd" : "wu") << "/" << options.key() << "/"
     << target.getNumTiles() << "/" << target.getBytesPerTile();
  return os.str();
}

/// What the planner minimises for `p`: estimated host nanoseconds or IPU cycles.
std::uint64_t objectiveOf(const ConvPlan &p, const ConvOptions &options) {
  return options.objective == PlanObjective::HOST_TIME ? p.hostNanoseconds : p.totalCycles;
}

ConvPlan planBlocks(const poplar::Target &target, const ConvParams &params, ConvPass pass,
                    const ConvOptions &options) {
  ConvPlan base;
  base.pass = pass;
  base.groups = params.numConvGroups;
  base.outChans = params.outputChannelsPerConvGroup;
  base.inChans = params.inputChannelsPerConvGroup;
  base.batch = params.batchSize;
  base.rows = params.getOutputSize(0);
  base.numTiles = target.getNumTiles();
  base.bytesBudget = static_cast<std::size_t>(double(target.getBytesPerTile()) *
                                              options.availableMemoryProportion);
  const std::size_t dims = params.getNumFieldDims();
  std::size_t kernelElems = 1, outRest = 1, inRest = 1, planeRest = 1;
  for (unsigned d = 0; d < dims; ++d) {
    kernelElems *= params.kernelShape[d];
    if (d > 0) {
      outRest *= params.getOutputSize(d);
      inRest *= params.inputFieldShape[d];
      planeRest *= params.inputFieldShape[d] + params.kernelShape[d];
    }
  }
  const std::size_t inBytes = target.getTypeSize(params.inputType);
  const std::size_t outBytes = target.getTypeSize(params.outputType);
  const double exchangeBytesPerCycle = std::max(1.0, double(target.getExchangeBytesPerCycle()));
  // Input rows the widest row block reads (first, middle and last blocks are checked).
  std::map<std::size_t, std::size_t> inRowsFor;
  auto inputRows = [&](std::size_t perBlock) {
    auto it = inRowsFor.find(perBlock);
    if (it != inRowsFor.end())
      return it->second;
    const std::size_t blocks = ceilDiv(base.rows, perBlock);
    std::size_t widest = 0;
    for (std::size_t b : {std::size_t(0), blocks / 2, blocks - 1}) {
      std::pair<std::size_t, std::size_t> range;
      inputIndexTable(params, 0, b * perBlock, std::min(base.rows, (b + 1) * perBlock), range);
      widest = std::max(widest, range.second - range.first);
    }
    return inRowsFor[perBlock] = widest;
  };

  // The fraction of (output, kernel element) pairs that meet real input: the codelets skip the
  // zeros input dilation inserts (a strided convolution's input gradient).
  double usefulFraction = 1.0;
  for (unsigned d = 0; d < dims; ++d) {
    std::pair<std::size_t, std::size_t> range;
    const std::size_t outSize = params.getOutputSize(d);
    const std::vector<int> table = inputIndexTable(params, d, 0, outSize, range);
    const auto real = std::count_if(table.begin(), table.end(), [](int x) { return x >= 0; });
    if (!table.empty())
      usefulFraction *= std::max(double(real), 1.0) / double(table.size());
  }
  ConvPlan best;
  bool haveBest = false;
  for (std::size_t gB : blockSizes(base.groups))
    for (std::size_t oB : blockSizes(base.outChans))
      for (std::size_t iB : blockSizes(base.inChans))
        for (std::size_t bB : blockSizes(base.batch))
          for (std::size_t rB : blockSizes(base.rows)) {
            ConvPlan p = base;
            p.groupsPerBlock = gB;
            p.outChansPerBlock = oB;
            p.inChansPerBlock = iB;
            p.batchPerBlock = bB;
            p.rowsPerBlock = rB;
            p.groupBlocks = ceilDiv(p.groups, gB);
            p.outChanBlocks = ceilDiv(p.outChans, oB);
            p.inChanBlocks = ceilDiv(p.inChans, iB);
            p.batchBlocks = ceilDiv(p.batch, bB);
            p.rowBlocks = ceilDiv(p.rows, rB);
            const std::size_t units = p.units();
            if (units > p.numTiles)
              continue;
            const std::uint64_t n = std::uint64_t(bB) * rB * outRest;
            const std::uint64_t k = std::uint64_t(iB) * kernelElems;
            const std::uint64_t macs = std::uint64_t(gB) * oB * k * n;
            const std::size_t reduceCount = p.reduceCount();
            const std::uint64_t inElems = std::uint64_t(gB) * iB * bB * inputRows(rB) * inRest;
            const std::uint64_t wElems = std::uint64_t(gB) * oB * k;
            const std::uint64_t outElems = pass == ConvPass::FORWARD ? gB * oB * n : wElems;
            // The codelets build the panel kPanelColumns columns at a time.
            const std::uint64_t panel = kPanelColumns;
            const std::uint64_t colElems = k * std::min<std::uint64_t>(n, panel);
            const bool partials = pass == ConvPass::WEIGHT_GRADIENT || reduceCount > 1;
            const std::uint64_t resultBytes = pass == ConvPass::FORWARD
                                                  ? outElems * (partials ? 4 + outBytes : outBytes)
                                                  : outElems * (4 + outBytes);
            const std::uint64_t operandElems =
                pass == ConvPass::FORWARD ? inElems + wElems : inElems + gB * oB * n;
            // Each contiguous piece of an operand is one copy of the exchange. Activations are
            // channel-major ([C][B][rows][…]), so a block keeps a channel's images and rows in
            // one piece unless it splits the rows; a weight block is one piece per output
            // channel unless it takes every input channel, and is spread over the tiles of the
            // (batch, rows) units sharing it.
            const std::uint64_t activationPieces = rB < base.rows ? bB : 1;
            const std::uint64_t weightPieces = std::max<std::uint64_t>(
                iB < base.inChans ? gB * oB : gB, p.batchBlocks * p.rowBlocks);
            const std::uint64_t operandPieces = pass == ConvPass::FORWARD
                                                    ? gB * iB * activationPieces + weightPieces
                                                    : gB * (iB + oB) * activationPieces;
            const std::uint64_t transposeElems =
                pass == ConvPass::FORWARD ? 0
                                          : gB * (oB * std::min<std::uint64_t>(n, panel) + oB * k);
            // Or the padded plane the codelets read stride-1 rows from (at most the input block
            // grown by a kernel's extent in every dimension).
            const std::uint64_t planeElems =
                std::uint64_t(gB) * iB * bB * (inputRows(rB) + params.kernelShape[0]) * planeRest;
            p.bytesPerTile = operandElems * inBytes + resultBytes +
                             (std::max(colElems, planeElems) + transposeElems) * 4 +
                             4 * k * kGemmPanel + 4 * (kernelElems * (rB + outRest));
            p.computeCycles = macs / 12 + gB * k * n + 100;
            p.exchangeCycles = std::uint64_t(double(operandElems * inBytes + outElems * outBytes) /
                                             exchangeBytesPerCycle);
            p.reduceCycles = 0;
            double reduceNs = 0;
            if (partials) {
              const std::uint64_t piece = ceilDiv(outElems, reduceCount);
              p.reduceCycles =
                  piece * reduceCount / 2 + kSyncCycles +
                  std::uint64_t(double(piece * reduceCount * 4) / exchangeBytesPerCycle);
              reduceNs = kReduceNsPerElement * double(outElems) * double(units) / kHostThreads;
            }
            p.tilesUsed = units;
            p.totalCycles = p.computeCycles + p.exchangeCycles + p.reduceCycles + kSyncCycles;
            p.fitsBudget = p.bytesPerTile <= p.bytesBudget;
            // Host time: every unit's work runs on a few host threads.
            const double unitNs = kNsPerMac * double(macs) * usefulFraction +
                                  kPanelNsPerElement * double(gB * k * n) +
                                  kPanelNsPerElement * double(gB * (oB * n + oB * k)) *
                                      (pass == ConvPass::FORWARD ? 0 : 1) +
                                  kGatherNsPerByte * double(operandElems * inBytes) +
                                  kGatherNsPerPiece * double(operandPieces) + kVertexNs;
            p.hostNanoseconds = std::uint64_t(
                double(ceilDiv(units, std::size_t(kHostThreads))) * unitNs + reduceNs);
            const int tier = memoryTier(p, options),
                      bestTier = haveBest ? memoryTier(best, options) : -1;
            const bool better =
                tier > bestTier || (tier == bestTier &&
                                    (tier > 0 ? objectiveOf(p, options) < objectiveOf(best, options)
                                              : p.bytesPerTile < best.bytesPerTile));
            if (better) {
              best = p;
              haveBest = true;
            }
          }
  return best;
}

} // namespace

/// Channels per group (input and output) below which "auto" never picks Winograd or lowering.
constexpr std::size_t kMinProductChannels = 16;
/// Winograd needs more: its 16 products of [OC][IC] x [IC][...] with 16 channels ran slower
/// than the blocks (conv_bench 'w/8 s2 3x3 16', 32 x 16 x 16 x 16, all three passes: 1.86 ms
/// against 1.30, four alternating runs) although the host-cost model expected the opposite;
/// from 32 channels Winograd is faster (0.98 against 1.41 ms at 32, 0.79 against 1.84 at 64).
constexpr std::size_t kMinWinogradChannels = 32;

/// `blocks` re-described as `method` computing the product `mm` (whose estimates it then
/// reports), with `hostNanoseconds` for the whole pass.
ConvPlan asProduct(const ConvPlan &blocks, ConvMethod method, const MatMulPlan &mm,
                   std::uint64_t hostNanoseconds) {
  ConvPlan base = blocks;
  base.method = method;
  base.product = mm;
  base.tilesUsed = mm.tilesUsed;
  base.bytesPerTile = mm.bytesPerTile;
  base.bytesBudget = mm.bytesBudget;
  base.fitsBudget = mm.fitsBudget;
  base.computeCycles = mm.computeCycles;
  base.exchangeCycles = mm.exchangeCycles;
  base.reduceCycles = mm.reduceCycles;
  base.totalCycles = mm.totalCycles;
  base.hostNanoseconds = hostNanoseconds;
  return base;
}

/// Whether an optional method with option value `choice` ("auto", "true", "false") is taken
/// at estimated host cost `ns` against the blocks. For IPU cycles only the pointwise product is
/// weighed ("auto" Winograd and lowering are host techniques whose transforms the IPU cost
/// model does not price).
bool takes(const std::string &choice, const MatMulPlan &mm, std::uint64_t ns,
           const ConvPlan &blocks, const ConvOptions &options, ConvMethod method) {
  if (choice == "true")
    return true;
  if (!mm.fitsBudget)
    return false;
  if (options.objective == PlanObjective::IPU_CYCLES)
    return method == ConvMethod::POINTWISE && mm.totalCycles < blocks.totalCycles;
  return ns < blocks.hostNanoseconds;
}

/// The block plan, or a matrix-product form when the host-cost models expect it to be faster:
/// for a pointwise convolution the product itself (it wins once channels are wide enough to
/// keep the GEMM kernel busy; with a handful of channels the blocks' fused im2col-free path
/// does less work), for a 3x3 stride-1 one Winograd's 16 products and their transforms, for a
/// strided one (or its input gradient, an input-dilated one) the lowered product.
ConvPlan chooseMethod(const poplar::Target &target, const ConvParams &params, ConvPass pass,
                      const ConvOptions &options) {
  ConvPlan blocks = planBlocks(target, params, pass, options);
  if (options.pointwiseAsMatMul != "false" && isPointwise(params)) {
    MatMulPlan mm = planPointwise(target, params, pass, options);
    if (takes(options.pointwiseAsMatMul, mm, mm.hostNanoseconds, blocks, options,
              ConvMethod::POINTWISE))
      return asProduct(blocks, ConvMethod::POINTWISE, mm, mm.hostNanoseconds);
  }
  // The products are as wide as the channels: with a handful (a stem's RGB input, its input
  // gradient's 3 outputs) the GEMM kernel's register tiles run mostly empty while the
  // transforms still cost several times the activations, and the blocks win however the
  // models compare.
  const bool wideEnough = std::min(params.inputChannelsPerConvGroup,
                                   params.outputChannelsPerConvGroup) >= kMinProductChannels;
  const bool wideForWinograd = std::min(params.inputChannelsPerConvGroup,
                                        params.outputChannelsPerConvGroup) >= kMinWinogradChannels;
  if (options.useWinograd != "false" && winogradApplies(params) &&
      (options.useWinograd == "true" || wideForWinograd)) {
    MatMulPlan mm = planWinograd(target, params, pass, options);
    const std::uint64_t ns = mm.hostNanoseconds + winogradTransformNanoseconds(params);
    if (takes(options.useWinograd, mm, ns, blocks, options, ConvMethod::WINOGRAD))
      return asProduct(blocks, ConvMethod::WINOGRAD, mm, ns);
  }
  const ConvMethod lowered = loweredMethod(params, pass);
  if (options.im2colMatMul != "false" && lowered != ConvMethod::BLOCKS &&
      (options.im2colMatMul == "true" || (wideEnough && loweringPays(params, lowered)))) {
    MatMulPlan mm = planLowered(target, params, pass, lowered, options);
    const std::uint64_t ns = mm.hostNanoseconds + loweredTransformNanoseconds(params, lowered);
    if (takes(options.im2colMatMul, mm, ns, blocks, options, lowered))
      return asProduct(blocks, lowered, mm, ns);
  }
  return blocks;
}

ConvPlan plan(const poplar::Target &target, const ConvParams &params, ConvPass pass,
              const ConvOptions &options) {
  ConvPlan p = chooseMethod(target, params, pass, options);
  p.objective = options.objective;
  return p;
}

ConvPlan planConvolution(const poplar::Target &target, const ConvParams &params, ConvPass pass,
                         const ConvOptions &options, PlanningCache *cache) {
  if (!cache)
    return plan(target, params, pass, options);
  const std::string key = cacheKey(params, pass, options, target);
  {
    std::lock_guard lock(cache->impl->mutex);
    auto it = cache->impl->convPlans.find(key);
    if (it != cache->impl->convPlans.end())
      return it->second;
  }
  ConvPlan p = plan(target, params, pass, options);
  std::lock_guard lock(cache->impl->mutex);
  cache->impl->convPlans.emplace(key, p);
  return p;
}

} // namespace poplin::detail
