// The worker loop and the hand-over of a run's parts (see thread_pool.h).
#include "engine/thread_pool.h"

#include <cassert>

namespace laya {

ThreadPool::ThreadPool(int threads) {
  if (!kThreadsAvailable) return;
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::run_parts(int parts, Trampoline fn, const void* task) {
  assert(parts >= 1 && parts <= size() && "a run has between 1 and size() parts");
  if (parts == 1) {
    fn(task, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = fn;
    task_ = task;
    parts_ = parts;
    unfinished_ = parts - 1;
    ++generation_;
  }
  wake_.notify_all();
  fn(task, 0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return unfinished_ == 0; });
}

void ThreadPool::work(int index) {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    if (index >= parts_) continue;  // this run has fewer parts than workers
    const Trampoline fn = fn_;
    const void* task = task_;
    lock.unlock();
    fn(task, index);
    lock.lock();
    if (--unfinished_ == 0) done_.notify_one();
  }
}

}  // namespace laya
