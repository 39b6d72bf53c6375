#include "plan/bucket.h"

#include <doctest/doctest.h>

namespace laya {

TEST_CASE("token counts round up to the table, then to multiples of 1024") {
  CHECK(bucket_tokens(0) == 16);
  CHECK(bucket_tokens(1) == 16);
  CHECK(bucket_tokens(16) == 16);
  CHECK(bucket_tokens(17) == 32);
  CHECK(bucket_tokens(257) == 384);
  CHECK(bucket_tokens(385) == 512);
  CHECK(bucket_tokens(513) == 768);
  CHECK(bucket_tokens(1025) == 1536);
  CHECK(bucket_tokens(2048) == 2048);
  CHECK(bucket_tokens(2049) == 3072);
  CHECK(bucket_tokens(5000) == 5120);
}

TEST_CASE("a bucket always holds the rows it was made for, with bounded slack") {
  for (int64_t n = 0; n <= 20000; ++n) {
    const int64_t b = bucket_tokens(n);
    REQUIRE(b >= n);
    if (n > 16) REQUIRE(b < 2 * n);
    if (n > 2048) REQUIRE(b - n < 1024);
    const int64_t c = bucket_count(n);
    REQUIRE(c >= n);
    REQUIRE((c & (c - 1)) == 0);
    if (n > 1) REQUIRE(c < 2 * n);
  }
}

TEST_CASE("a batch's bucket rounds each row count by its own table") {
  CHECK(bucket_for(RowCounts{100, 3, 0}) == RowCounts{128, 4, 1});
  CHECK(bucket_for(RowCounts{512, 16, 17}) == RowCounts{512, 16, 32});
}

}  // namespace laya
