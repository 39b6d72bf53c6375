// ActFeatures (laya-spec §3.8): per sequence its first token row followed by
// [top1, top1 − top2, entropy / ln k_eff, k_eff / 255] over the f32 softmax of its marker logits,
// k_eff = max(k, 2), entropy −Σ p·ln(max(p, 1e-9)), top2 = 0 for a single marker.
// Tiny next to the encoder, it has only a scalar kernel.
#pragma once

#include <cstdint>

#include "kernels/packing.h"

namespace laya::kernels {

// The four act features of one sequence from its k >= 1 marker logits.
void act_features_of(const float* logits, int64_t k, float features[4]);

// Sequence rows [seq_begin, seq_end) of out ([seqs, width + 4]); every sequence has a marker.
using ActFeaturesFn = void (*)(const float* h, const float* logits, float* out, int64_t width,
                               const Packing& packing, int64_t seq_begin, int64_t seq_end);
void act_features_f32_scalar(const float* h, const float* logits, float* out, int64_t width,
                             const Packing& packing, int64_t seq_begin, int64_t seq_end);

}  // namespace laya::kernels
