// Constants of the tile that codelets use at compile time.
#pragma once

/// Worker contexts per tile of an IPU (a Mk2 tile's six): MultiVertex code strides its work by
/// it (`for (i = wid; i < n; i += CTXT_WORKERS)`). Every IPU target Tessera makes has six, as
/// IPUModel does by default; MultiVertex::numWorkers() is the run-time count, and differs only
/// for a CPU target (one) or an IPUModel given another numWorkerContexts, where such code
/// would skip work.
#define CTXT_WORKERS (6)
