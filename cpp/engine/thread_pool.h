// A fixed set of worker threads that run the parts of one step together with the calling thread.
// Idle workers park on a condition variable (a futex: Atomics.wait in wasm) instead of spinning,
// since on two cores a spinning worker takes half the machine from the thread doing the work. A run
// allocates nothing. One run at a time: the executor calls it from one thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace laya {

// False in the single-threaded wasm build, which has no way to start a thread: a pool there
// holds the caller alone, whatever it is asked for.
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
inline constexpr bool kThreadsAvailable = false;
#else
inline constexpr bool kThreadsAvailable = true;
#endif

class ThreadPool {
 public:
  // `threads` in all, counting the caller: threads - 1 workers are started (none for 1, and none
  // where !kThreadsAvailable).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs task(part) for every part in [0, parts), parts <= size(): the caller runs part 0, worker
  // w part w + 1. Returns when every part is done.
  template <typename Task>
  void run(int parts, const Task& task) {
    run_parts(parts, [](const void* t, int part) { (*static_cast<const Task*>(t))(part); }, &task);
  }

 private:
  using Trampoline = void (*)(const void* task, int part);
  void run_parts(int parts, Trampoline fn, const void* task);
  void work(int index);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;  // workers wait here for a new generation
  std::condition_variable done_;  // the caller waits here for the parts to finish
  uint64_t generation_ = 0;
  int parts_ = 0;
  int unfinished_ = 0;
  Trampoline fn_ = nullptr;
  const void* task_ = nullptr;
  bool stopping_ = false;
};

}  // namespace laya
