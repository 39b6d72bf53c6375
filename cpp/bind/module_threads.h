// The module's worker threads: one pool per wasm module instance (the package makes one instance
// per loaded model), shared by its sessions. Only the pthreads build (LAYA_THREADS) has workers;
// there Emscripten preloads `Module.layaWorkers` of them at start-up (-sPTHREAD_POOL_SIZE), and a
// pool may use only those: a thread whose worker still had to load would start only after the
// caller returned to the event loop, while the caller blocks waiting for it.
#pragma once

#include "engine/thread_pool.h"
#include "util/status.h"

namespace laya {

// The threads this module can run with, the caller included: 1 + the preloaded idle workers plus
// the ones the current pool holds (1 in the single-threaded build).
int available_threads();
// Replaces the module's pool with one of `threads` (1: none). invalid_request beyond
// available_threads(). In Node the workers are unref'd so that they never keep a process alive.
Status set_module_threads(int threads);
// The current pool, or null when single-threaded.
ThreadPool* module_pool();
// Joins the pool and terminates every worker: the module is being thrown away.
void shut_down_module_threads();

}  // namespace laya
