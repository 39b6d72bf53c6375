// Buckets: a batch's row counts rounded up to a small table, so that the graph is lowered (planned,
// shape-checked, kernels picked) once per bucket rather than once per batch.
//
// A bucket only sizes the arena and the RoPE tables: ops always run on the rows the batch really
// has, so rounding up costs memory, never work. The table is therefore coarse. Tokens: 16, 32, 64,
// 128, 256, 384, 512, 768, 1024, 1536, 2048, then multiples of 1024 (at most 50% slack below 2048,
// where arenas are small, and at most 1024 rows above, so a long-context run is not doubled).
// Sequences and markers are cheap rows (a batch has few): powers of two from 1.
#pragma once

#include <cstdint>

#include "plan/layout.h"

namespace laya {

// The smallest bucket of the token table holding `n` rows (n <= 0 gives the smallest bucket).
int64_t bucket_tokens(int64_t n);
// The smallest power of two holding `n` rows (n <= 0 gives 1).
int64_t bucket_count(int64_t n);
// The bucket of a batch: each row count rounded up by its table.
RowCounts bucket_for(const RowCounts& rows);

}  // namespace laya
