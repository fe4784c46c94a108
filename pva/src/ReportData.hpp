// What an opened report holds, shared by every object handed out (see pva.hpp), and the one
// door (Access) through which the library fills the public classes' private members.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <pva/pva.hpp>
#include <tessera/profile/Profile.hpp>

namespace pva::detail {

struct ReportData {
  std::string path;
  tessera::profile::GraphProfile graph;
  tessera::profile::ExecutionProfile execution; ///< Empty when the file has none.
  Version version;
  Target target;
  Graph graphCounts;
  std::vector<Tile> tiles;
  std::vector<std::shared_ptr<Program>> programs;
  /// By step index: the program of a step that does work, null for control steps.
  std::vector<std::shared_ptr<Program>> programOfStep;
};

/// Builds the public objects; every public class names it a friend.
struct Access {
  static Version version(const std::string &text);
  static Target target(const tessera::profile::TargetInfo &info);
  static Graph graph(const tessera::profile::GraphProfile &g);
  static MemorySize memorySize(std::uint64_t includingGaps, std::uint64_t excludingGaps);
  static Tile tile(unsigned number, const tessera::profile::TileMemory &bytes);
  static ComputeSet computeSet(const tessera::profile::ComputeSet &cs);
  /// The program of step `index`, or null when it is a control step.
  static std::shared_ptr<Program> program(const tessera::profile::GraphProfile &g,
                                          std::size_t index);
  static Report report(std::shared_ptr<const ReportData> data);
  static ExecutionStep step(const std::shared_ptr<const ReportData> &data, std::size_t event);
  static Run run(const std::shared_ptr<const ReportData> &data, std::size_t run);
  static IpuStep ipuStep(unsigned ipu, std::uint64_t from, std::uint64_t to);
  static Cycles cycles(std::uint64_t value);
};

} // namespace pva::detail
