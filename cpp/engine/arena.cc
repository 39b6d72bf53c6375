// Arena allocation (see arena.h).
#include "engine/arena.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

namespace laya {

namespace {
constexpr size_t kAlignBytes = 64;
}

Arena::Arena(Arena&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), capacity_(std::exchange(other.capacity_, 0)) {}

Arena& Arena::operator=(Arena&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = std::exchange(other.data_, nullptr);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

Arena::~Arena() { std::free(data_); }

Status Arena::reserve(size_t floats, const char* what) {
  if (floats <= capacity_) return {};
  if (floats > (SIZE_MAX - kAlignBytes) / sizeof(float)) {
    return out_of_memory(std::string(what) + ": " + std::to_string(floats) + " floats do not fit in memory");
  }
  const size_t bytes = (floats * sizeof(float) + kAlignBytes - 1) / kAlignBytes * kAlignBytes;
  void* p = std::aligned_alloc(kAlignBytes, bytes);
  if (p == nullptr) {
    return out_of_memory(std::string(what) + ": could not allocate " + std::to_string(bytes) + " bytes");
  }
  std::memset(p, 0, bytes);
  std::free(data_);
  data_ = static_cast<float*>(p);
  capacity_ = bytes / sizeof(float);
  return {};
}

}  // namespace laya
