// Rotary position embedding, Hugging Face's "default" rotary as ModernBERT applies it (laya-spec §3.3):
// half-split (dim j pairs with j + 32 in each 64-wide head), q and k only, positions counting from 0
// at the start of each sequence. inv_freq[j] = 1 / theta^(2j/64) in f32, angle = f32(pos)·inv_freq[j]
// rounded to f32, then its f32 cos and sin; x'[j] = x[j]·c − x[j+32]·s, x'[j+32] = x[j+32]·c + x[j]·s.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "kernels/isa.h"

namespace laya::kernels {

inline constexpr int64_t kHeadDim = laya::kHeadDim;  // graph/graph.h
inline constexpr int64_t kRopePairs = kHeadDim / 2;

// cos and sin of every angle for positions [0, positions), [position][pair] row-major.
struct RopeTable {
  double theta = 0.0;
  int64_t positions = 0;
  std::vector<float> cos;
  std::vector<float> sin;
};

float rope_inv_freq(double theta, int64_t pair);
RopeTable make_rope_table(double theta, int64_t positions);

struct RopeArgs {
  float* qkv = nullptr;  // token rows, 3 · heads · 64 wide: [q | k | v]
  int64_t heads = 0;
  const int32_t* seq_starts = nullptr;  // seqs + 1 token offsets
  const RopeTable* table = nullptr;     // covers the longest sequence
};

// Sequences [seq_begin, seq_end), in place.
using RopeFn = void (*)(const RopeArgs& args, int64_t seq_begin, int64_t seq_end);

void rope_f32_scalar(const RopeArgs& args, int64_t seq_begin, int64_t seq_end);
#ifdef LAYA_SIMD128
void rope_f32_simd128(const RopeArgs& args, int64_t seq_begin, int64_t seq_end);
#endif

}  // namespace laya::kernels
