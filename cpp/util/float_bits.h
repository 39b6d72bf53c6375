// A float's IEEE-754 bits and back. std::bit_cast would do, but Emscripten 3.1.6's libc++ lacks
// it; memcpy compiles to a plain move.
#pragma once

#include <cstdint>
#include <cstring>

namespace laya {

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float float_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace laya
