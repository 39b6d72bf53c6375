// The one buffer a graph's values live in (and the kernels' scratch): 64-byte aligned f32 storage
// that only grows, at lowering, and reports an allocation failure as a Status instead of aborting.
#pragma once

#include <cstddef>

#include "util/status.h"

namespace laya {

class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  Arena(Arena&& other) noexcept;
  Arena& operator=(Arena&& other) noexcept;
  ~Arena();

  // Makes room for at least `floats` elements, zeroed when new. Existing contents are not kept.
  Status reserve(size_t floats, const char* what);

  float* data() { return data_; }
  const float* data() const { return data_; }
  size_t capacity() const { return capacity_; }  // in floats
  size_t bytes() const { return capacity_ * sizeof(float); }

 private:
  float* data_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace laya
