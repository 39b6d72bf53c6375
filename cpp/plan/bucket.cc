// Row counts rounded up to the bucket tables; the reasons for the tables are in bucket.h.
#include "plan/bucket.h"

namespace laya {

namespace {
constexpr int64_t kTokenTable[] = {16, 32, 64, 128, 256, 384, 512, 768, 1024, 1536, 2048};
constexpr int64_t kTokenStepAbove = 1024;
}  // namespace

int64_t bucket_tokens(int64_t n) {
  for (int64_t b : kTokenTable) {
    if (n <= b) return b;
  }
  return (n + kTokenStepAbove - 1) / kTokenStepAbove * kTokenStepAbove;
}

int64_t bucket_count(int64_t n) {
  int64_t b = 1;
  while (b < n) b *= 2;
  return b;
}

RowCounts bucket_for(const RowCounts& rows) {
  return {bucket_tokens(rows.tokens), bucket_count(rows.seqs), bucket_count(rows.markers)};
}

}  // namespace laya
