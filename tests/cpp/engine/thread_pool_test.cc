// The thread pool: every part of a run runs exactly once, on the caller and the workers, run after
// run, with any number of parts up to its size.
#include "engine/thread_pool.h"

#include <doctest/doctest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

namespace laya {

TEST_CASE("a pool of one runs the task on the calling thread and starts no thread") {
  ThreadPool pool(1);
  CHECK(pool.size() == 1);
  std::thread::id ran_on;
  pool.run(1, [&](int part) {
    CHECK(part == 0);
    ran_on = std::this_thread::get_id();
  });
  CHECK(ran_on == std::this_thread::get_id());
}

TEST_CASE("every part runs exactly once, part 0 on the caller and the others on distinct workers" *
          doctest::skip(!kThreadsAvailable)) {
  for (int threads : {2, 3, 4}) {
    ThreadPool pool(threads);
    REQUIRE(pool.size() == threads);
    for (int parts = 1; parts <= threads; ++parts) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(parts));
      std::vector<std::thread::id> ran_on(static_cast<size_t>(parts));
      pool.run(parts, [&](int part) {
        runs[static_cast<size_t>(part)].fetch_add(1);
        ran_on[static_cast<size_t>(part)] = std::this_thread::get_id();
      });
      std::set<std::thread::id> distinct(ran_on.begin(), ran_on.end());
      CHECK(distinct.size() == static_cast<size_t>(parts));
      CHECK(ran_on[0] == std::this_thread::get_id());
      for (const auto& r : runs) CHECK(r.load() == 1);
    }
  }
}

TEST_CASE("where threads cannot be started, a pool holds the caller alone" * doctest::skip(kThreadsAvailable)) {
  ThreadPool pool(4);
  CHECK(pool.size() == 1);
}

TEST_CASE("thousands of runs in a row each finish before the next starts" * doctest::skip(!kThreadsAvailable)) {
  ThreadPool pool(3);
  std::vector<int> cells(3, 0);
  for (int run = 0; run < 5000; ++run) {
    // Each part writes only its own cell; the caller reads all of them after the run returns.
    pool.run(run % 3 + 1, [&](int part) { cells[static_cast<size_t>(part)] += 1; });
  }
  // Part 0 ran in every run, part 1 in the runs with 2 or 3 parts, part 2 in the runs with 3.
  CHECK(cells[0] == 5000);
  CHECK(cells[1] == 3333);
  CHECK(cells[2] == 1666);
}

}  // namespace laya
