// Bytes from malloc, owned: for the big or optional buffers whose allocation may fail, which must
// then return an out_of_memory Status instead of throwing (exceptions are off in the wasm build).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace laya {

struct FreeDeleter {
  void operator()(std::byte* p) const { std::free(p); }
};

using MallocBytes = std::unique_ptr<std::byte, FreeDeleter>;

}  // namespace laya
