// Self attention within each sequence over fused [q | k | v] token rows (laya-spec §3.3, §3.6): per
// head of 64 (q at columns h·64, k at d + h·64, v at 2d + h·64), scores q·k × 0.125, softmax over
// the keys the query sees, weighted sum of v; heads concatenated in order. With a window w, key j
// is visible to query i iff |i − j| <= w (inclusive, no causal mask); without one, every key of the
// sequence is.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/isa.h"

namespace laya::kernels {

inline constexpr float kAttentionScale = 0.125f;  // 1 / sqrt(64), exact in f32

struct AttentionArgs {
  const float* qkv = nullptr;  // token rows, 3 · heads · 64 wide
  float* out = nullptr;        // token rows, heads · 64 wide
  int64_t heads = 0;
  const int32_t* seq_starts = nullptr;  // seqs + 1 token offsets
  int64_t window = -1;                  // keys at most this far on either side; < 0: all keys
};

// Work items [item_begin, item_end) of seqs · heads: item s · heads + h is head h of sequence s, so
// threads can share even a batch of one sequence. `scratch` holds the kernel's scratch floats for
// the longest sequence (its instruction set's attention_scratch_floats_*, below).
using AttentionFn = void (*)(const AttentionArgs& args, int64_t item_begin, int64_t item_end,
                             float* scratch);

void attention_f32_scalar(const AttentionArgs& args, int64_t item_begin, int64_t item_end, float* scratch);
// Scratch for sequences of up to max_seq_len tokens.
size_t attention_scratch_floats_scalar(int64_t max_seq_len);
#ifdef LAYA_SIMD128
// Query tiles of 4 against key tiles of 8 with an online softmax; key tiles outside every window
// of the query tile are skipped.
inline constexpr int64_t kAttentionQueryTile = 4;
inline constexpr int64_t kAttentionKeyTile = 8;
void attention_f32_4x8_simd128(const AttentionArgs& args, int64_t item_begin, int64_t item_end,
                               float* scratch);
size_t attention_scratch_floats_simd128(int64_t max_seq_len);
#endif

}  // namespace laya::kernels
