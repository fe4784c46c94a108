// CPU time the hypervisor took during a run ("steal" in /proc/stat), recorded beside every
// comparison sample: a ratio between a run that lost a quarter of its CPU and one that lost none
// says little, so the record keeps what each run lost.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tessera::bench {

/// The aggregate "cpu" line of /proc/stat: user nice system idle iowait irq softirq steal, in
/// clock ticks since boot.
using CpuTimes = std::array<std::uint64_t, 8>;

/// Parses the first ("cpu ") line of /proc/stat text; nullopt when it is not there.
std::optional<CpuTimes> parseCpuTimes(std::string_view procStat);

/// This machine's CPU times now; nullopt where /proc/stat cannot be read.
std::optional<CpuTimes> readCpuTimes();

/// Share of all CPU time between two readings that was stolen (steal ÷ sum of the eight
/// fields' increases); 0 when no time passed, nullopt when a reading is missing.
std::optional<double> stolenShare(const std::optional<CpuTimes> &before,
                                  const std::optional<CpuTimes> &after);

} // namespace tessera::bench
