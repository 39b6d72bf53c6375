// The whole request pipeline on upstream's recorded cases (fixtures/upstream, English configs and
// tokenizer, no weights): the session's tokenizer + build_sequence give exactly the recorded ids and
// markers, and the answer rebuilt from the recorded logits is byte for byte upstream's JSON.
#include "decide/pyjson.h"
#include "decide/upstream_fixture.h"
#include "session/fixture_files.h"

namespace laya {
namespace {

TEST_CASE("every recorded case: the same ids and markers, and the same answer JSON byte for byte") {
  const std::string english = decide::testing::upstream_dir() + "/english";
  Session session;
  // The encoder config and tokenizer are upstream's; the checkpoint holds no weights here.
  testing::configure_from(session, english);
  const decide::Dialect dialect = decide::Dialect::v0_3_7();

  int cases = 0, questions = 0, sequence_mismatches = 0, answer_mismatches = 0;
  for (const auto& c : decide::testing::load_upstream_cases()) {
    ++cases;
    auto prepared = session.prepare(c.state, c.questions, dialect);
    REQUIRE_MESSAGE(prepared.ok(), c.id << ": " << (prepared.ok() ? "" : prepared.error().message));
    REQUIRE(prepared.value().rows.size() == c.recorded.size());
    std::vector<decide::RowOutput> outputs;
    for (size_t i = 0; i < c.recorded.size(); ++i) {
      ++questions;
      const auto& row = prepared.value().rows[i];
      if (row.ids != c.recorded[i].ids || row.markers != c.recorded[i].markers) {
        if (++sequence_mismatches <= 5) MESSAGE(c.id << " " << c.recorded[i].qid << ": ids or markers differ");
      }
      outputs.push_back({c.recorded[i].logits, c.recorded[i].act});
    }
    auto answer = session.answer(prepared.value(), outputs, dialect);
    REQUIRE(answer.ok());
    const std::string want = decide::dumps(c.answer, false);
    if (answer.value() != want && ++answer_mismatches <= 5) {
      MESSAGE(c.id << "\n got " << answer.value() << "\nwant " << want);
    }
  }
  MESSAGE("checked " << cases << " cases, " << questions << " questions");
  CHECK(cases == 134);
  CHECK(questions == 445);
  CHECK(sequence_mismatches == 0);
  CHECK(answer_mismatches == 0);
}

}  // namespace
}  // namespace laya
