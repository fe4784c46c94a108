// Taking a Highway-dispatched kernel's function pointer once, when a vertex type registers.
//
// Highway 1.0.3 (Debian 12) has HWY_EXPORT and HWY_DYNAMIC_DISPATCH but no HWY_DYNAMIC_POINTER.
// Its dispatch table's entry 0 is a "choose the target, then call" trampoline; once the chosen
// target is set, the table entry at GetIndex() is the kernel itself. So: choose once, then index.
#pragma once

#include <hwy/highway.h>
#include <hwy/targets.h>

namespace tessera::codelets {

/// Picks the best target this CPU supports among those compiled in (idempotent, thread-safe).
inline void chooseHighwayTarget() {
  static const bool chosen = [] {
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    return true;
  }();
  (void)chosen;
}

} // namespace tessera::codelets

/// The best compiled variant of a function exported with HWY_EXPORT, as a plain pointer.
#define TESSERA_DYNAMIC_POINTER(FUNC_NAME)                                                         \
  (::tessera::codelets::chooseHighwayTarget(),                                                     \
   HWY_DISPATCH_TABLE(FUNC_NAME)[::hwy::GetChosenTarget().GetIndex()])
