// The kinds of synchronisation a program can ask for (program::Sync, cycleCount, cycleStamp).
#pragma once

namespace poplar {

/// Which parties a synchronisation waits for. Tessera's engine ends every step in a BSP sync
/// of all tiles already, so these only name the sync the program asks for; none of them adds
/// cycles beyond what the cost model prices for the steps themselves.
enum class SyncType {
  NONE,     ///< No synchronisation.
  INTERNAL, ///< The tiles of one IPU.
  EXTERNAL, ///< Every IPU the program runs on.
  GLOBAL,   ///< Every IPU and the host.
};

} // namespace poplar
