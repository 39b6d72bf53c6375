// The module's thread pool and the Emscripten worker bookkeeping around it (see module_threads.h).
#include "bind/module_threads.h"

#include <memory>
#include <string>

#include <emscripten.h>

namespace laya {

namespace {

std::unique_ptr<ThreadPool> g_pool;

#ifdef __EMSCRIPTEN_PTHREADS__
// Workers loaded and idle, ready to run a thread at once.
EM_JS(int, idle_pthread_workers, (), { return PThread.unusedWorkers.length; });
// Node: a worker that is parked must not keep the process alive.
EM_JS(void, unref_pthread_workers, (), {
  if (!ENVIRONMENT_IS_NODE) return;
  for (const w of PThread.unusedWorkers.concat(PThread.runningWorkers)) {
    if (w.unref) w.unref();
  }
});
EM_JS(void, terminate_pthread_workers, (), { PThread.terminateAllThreads(); });
#endif

}  // namespace

int available_threads() {
#ifdef __EMSCRIPTEN_PTHREADS__
  return 1 + idle_pthread_workers() + (g_pool ? g_pool->size() - 1 : 0);
#else
  return 1;
#endif
}

Status set_module_threads(int threads) {
  const int available = available_threads();
  if (threads < 1 || threads > available) {
    return invalid_request("threads must be between 1 and " + std::to_string(available) +
                           (available == 1 ? " in this build or page (no worker threads)" : " (the workers this module preloaded)") +
                           ", got " + std::to_string(threads));
  }
  g_pool.reset();  // its workers go back to the idle list
  if (threads > 1) g_pool = std::make_unique<ThreadPool>(threads);
#ifdef __EMSCRIPTEN_PTHREADS__
  unref_pthread_workers();
#endif
  return {};
}

ThreadPool* module_pool() { return g_pool.get(); }

void shut_down_module_threads() {
  g_pool.reset();
#ifdef __EMSCRIPTEN_PTHREADS__
  terminate_pthread_workers();
#endif
}

}  // namespace laya
