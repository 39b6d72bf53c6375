// Timing for the microbenchmarks. process_cpu_seconds() is the process's CPU time (user + system):
// on a shared machine it counts the time the benchmark really ran, where wall time also counts
// the time other processes held the core; in wasm it asks Node (process.cpuUsage). Include this
// from one translation unit per program: EM_JS defines the function.
#pragma once

#include <algorithm>
#include <vector>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
EM_JS(double, process_cpu_seconds, (), {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
});
#else
#include <ctime>
inline double process_cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }
#endif

// The median CPU seconds of `reps` calls of run(), after 0.2 s of warm-up calls: V8 first runs a
// function in its baseline tier and swaps in the optimized code only for later calls, once
// compiled in the background.
template <class Run>
double median_cpu_seconds(Run run, int reps) {
  for (const double start = process_cpu_seconds(); process_cpu_seconds() - start < 0.2;) run();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const double start = process_cpu_seconds();
    run();
    t.push_back(process_cpu_seconds() - start);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
