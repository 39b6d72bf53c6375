#include "engine/batch.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace laya {
namespace {

Batch two_sequences() {
  Batch b;
  const int32_t a_ids[] = {1, 2, 3, 4};
  const int32_t a_markers[] = {1, 3};
  const int32_t b_ids[] = {5, 6};
  b.add(a_ids, a_markers, 2);
  b.add(b_ids, {}, 0);
  return b;
}

std::string message_of(const Status& s) { return s.ok() ? "" : s.error().message; }

}  // namespace

TEST_CASE("sequences are packed end to end with their markers and qtypes") {
  Batch b = two_sequences();
  CHECK(b.ids == std::vector<int32_t>{1, 2, 3, 4, 5, 6});
  CHECK(b.seq_starts == std::vector<int32_t>{0, 4, 6});
  CHECK(b.markers == std::vector<int32_t>{1, 3});
  CHECK(b.marker_starts == std::vector<int32_t>{0, 2, 2});
  CHECK(b.qtypes == std::vector<int32_t>{2, 0});
  CHECK(b.rows() == RowCounts{6, 2, 2});
  CHECK(b.validate(10, 3).ok());
  CHECK(b.validate(10, 0).ok());  // no type embedding: qtypes are not read
}

TEST_CASE("validation names the sequence and the value at fault") {
  SUBCASE("an id outside the vocabulary") {
    Batch b = two_sequences();
    b.ids[5] = 10;
    const Status s = b.validate(10, 3);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code == ErrorCode::kInvalidRequest);
    CHECK(message_of(s) == "invalid batch: sequence 1 token 1 has id 10, outside the vocabulary [0, 10)");
  }
  SUBCASE("a negative id") {
    Batch b = two_sequences();
    b.ids[0] = -1;
    CHECK(message_of(b.validate(10, 3)).find("sequence 0 token 0 has id -1") != std::string::npos);
  }
  SUBCASE("a marker outside its sequence") {
    Batch b = two_sequences();
    b.markers[1] = 4;
    CHECK(message_of(b.validate(10, 3)) ==
          "invalid batch: sequence 0 marker 1 is at 4, outside the sequence's 4 tokens");
  }
  SUBCASE("a qtype outside the table") {
    Batch b = two_sequences();
    b.qtypes[0] = 3;
    CHECK(message_of(b.validate(10, 3)) == "invalid batch: sequence 0 has qtype 3, outside [0, 3)");
  }
  SUBCASE("an empty sequence") {
    Batch b = two_sequences();
    b.add(std::vector<int32_t>{}, {}, 0);
    CHECK(message_of(b.validate(10, 3)) == "invalid batch: sequence 2 is empty");
  }
  SUBCASE("starts that go backwards") {
    Batch b = two_sequences();
    b.add(std::vector<int32_t>{7}, {}, 0);
    b.seq_starts[1] = 7;  // 0, 7, 6, 7: past the next start
    CHECK(message_of(b.validate(10, 3)) == "invalid batch: seq_starts is not monotonic at sequence 1 (7 then 6)");
  }
  SUBCASE("marker starts that go backwards") {
    Batch b = two_sequences();
    b.marker_starts = {0, 3, 2};
    CHECK(message_of(b.validate(10, 3)) ==
          "invalid batch: marker_starts is not monotonic at sequence 1 (3 then 2)");
  }
  SUBCASE("starts that do not cover the ids") {
    Batch b = two_sequences();
    b.ids.push_back(1);
    CHECK(message_of(b.validate(10, 3)) == "invalid batch: seq_starts ends at 6 but there are 7 ids");
  }
  SUBCASE("starts of the wrong length") {
    Batch b = two_sequences();
    b.seq_starts.pop_back();
    CHECK(message_of(b.validate(10, 3)) ==
          "invalid batch: seq_starts has 2 entries, expected 3 (one per sequence plus one)");
  }
  SUBCASE("no sequences at all") {
    Batch b;
    CHECK(message_of(b.validate(10, 3)) == "invalid batch: it has no sequences");
  }
}

}  // namespace laya
