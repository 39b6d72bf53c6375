// The process's CPU time (user + system) in seconds, for the microbenchmarks: on a shared machine
// it counts the time the benchmark really ran, where wall time also counts the time other
// processes held the core. In wasm it asks Node (process.cpuUsage). Include it from one
// translation unit per program: EM_JS defines the function.
#pragma once

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
