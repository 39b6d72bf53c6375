// Where the sequences of a packed batch sit, as kernels see it (engine/batch.h owns the data):
// sequences end to end with no padding, markers as token indices within their own sequence.
#pragma once

#include <cstdint>

namespace laya::kernels {

struct Packing {
  const int32_t* ids = nullptr;            // one per token
  const int32_t* seq_starts = nullptr;     // seqs + 1 token offsets
  const int32_t* marker_starts = nullptr;  // seqs + 1 offsets into markers
  const int32_t* markers = nullptr;        // token index within its sequence
  const int32_t* qtypes = nullptr;         // one per sequence
  int64_t seqs = 0;

  int64_t tokens() const { return seqs > 0 ? seq_starts[seqs] : 0; }
  int64_t seq_len(int64_t s) const { return seq_starts[s + 1] - seq_starts[s]; }
};

}  // namespace laya::kernels
