#include "engine/TileMemory.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <string>

#include <poplar/exceptions.hpp>

namespace poplar::engine {

void TileMemory::destroyObjects() {
  if (!loaded_)
    return;
  for (const auto &obj : plan_.vertexObjects)
    plan_.typeOf(obj).destroy(address(obj.at()));
  loaded_ = false;
}

void TileMemory::requireLoaded(const char *what) const {
  if (!loaded_)
    throw tensor_io_state_error(std::string(what) +
                                " needs the engine to be loaded first (call Engine::load)");
}

void TileMemory::Unmap::operator()(unsigned char *p) const { munmap(p, bytes); }

void TileMemory::load() {
  const auto &plan = plan_;
  destroyObjects();
  std::uint64_t total = 0;
  for (auto b : plan.tileBytes)
    total += b;
  // Fresh anonymous pages read as zero and cost nothing until touched: a graph with gigabytes
  // of tile memory loads in the time it takes to write its initial data and vertex objects,
  // not to clear every byte first.
  const std::size_t bytes = std::max<std::uint64_t>(total, 64);
  memory_.reset();
  void *arenas = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (arenas == MAP_FAILED)
    throw runtime_error("Engine::load: cannot allocate " + std::to_string(total) +
                        " bytes of tile memory on the host");
  memory_ =
      std::unique_ptr<unsigned char, Unmap>(static_cast<unsigned char *>(arenas), Unmap{bytes});
  tileBase_.resize(plan.numTiles);
  std::uint64_t at = 0;
  for (unsigned t = 0; t < plan.numTiles; ++t) {
    tileBase_[t] = memory_.get() + at;
    at += plan.tileBytes[t];
  }
  for (const auto &d : plan.initialData)
    std::memcpy(address(d.at), plan.initialBytes.data() + d.pool, d.bytes);
  for (const auto &obj : plan.vertexObjects) {
    unsigned char *base = address(obj.at());
    plan.typeOf(obj).construct(base);
    for (const auto &v : plan.values(obj))
      std::memcpy(base + v.offset, plan.valueBytes.data() + v.pool, v.length);
    for (const auto &p : plan.pointers(obj)) {
      void *target = p.null() ? nullptr : address(p.target());
      unsigned char *slot = base + p.slot;
      std::memcpy(slot, &target, sizeof(void *));
      if (p.hasSize()) {
        const std::size_t n = p.size;
        std::memcpy(slot + sizeof(void *), &n, sizeof(n));
      }
    }
  }
  typeCycleEstimates_.clear();
  for (const auto &obj : plan.vertexObjects) {
    const auto &type = plan.typeOf(obj);
    typeCycleEstimates_.push_back(
        type.cycleEstimate ? std::optional(type.cycleEstimate(address(obj.at()))) : std::nullopt);
  }
  computeSets_.clear();
  for (const auto &cs : plan.computeSets) {
    RuntimeComputeSet rt;
    for (const auto &tile : cs.tiles) {
      rt.tileBegin.push_back(rt.calls.size());
      for (const auto &c : tile.calls) {
        const auto &obj = plan.vertexObjects[c.objectIndex];
        rt.calls.push_back({address(obj.at()), plan.typeOf(obj).compute, c.workers, c.objectIndex});
      }
    }
    rt.tileBegin.push_back(rt.calls.size());
    computeSets_.push_back(std::move(rt));
  }
  loaded_ = true;
}

} // namespace poplar::engine
