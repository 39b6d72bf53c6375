// The English tokenizer against the ids upstream Laya recorded (fixtures/upstream/recorded.jsonl:
// every head, option and state piece of every question) and laya-spec §4.3's spot checks.
#include <doctest/doctest.h>

#include <sstream>

#include "tok/tokenizer.h"
#include "tok_test_files.h"
#include "util/json.h"

using laya::tok::testing::english;
using laya::tok::testing::read_file;
using laya::tok::testing::fixture_path;

namespace {

std::vector<int32_t> ids_of(const laya::json::Value& list) {
  std::vector<int32_t> ids;
  for (const auto& v : list.items()) ids.push_back(static_cast<int32_t>(*v.as_int64()));
  return ids;
}

}  // namespace

TEST_CASE("every recorded piece of every upstream case encodes to the recorded ids") {
  std::istringstream lines(read_file(fixture_path("upstream/recorded.jsonl")));
  std::string line;
  size_t pieces = 0, cases = 0, mismatches = 0;
  const auto check = [&](const std::string& text, const laya::json::Value& expected, const std::string& where) {
    ++pieces;
    const std::vector<int32_t> got = english().encode(text);
    if (got != ids_of(expected)) {
      ++mismatches;
      FAIL_CHECK(where << ": ids differ for " << text.substr(0, 80));
    }
  };
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    auto parsed = laya::json::parse(line, "recorded.jsonl");
    REQUIRE(parsed.ok());
    const laya::json::Value& c = parsed.value();
    ++cases;
    const std::string id = c.find("id")->as_string();
    for (const auto& q : c.find("questions")->items()) {
      const laya::json::Value& p = *q.find("pieces");
      const std::string where = id + "/" + q.find("qid")->as_string();
      check(p.find("head")->as_string(), *p.find("head_ids"), where + " head");
      const auto& options = p.find("options")->items();
      const auto& option_ids = p.find("option_ids")->items();
      REQUIRE(options.size() == option_ids.size());
      for (size_t i = 0; i < options.size(); ++i) {
        check(options[i].as_string(), option_ids[i], where + " option " + std::to_string(i));
      }
      check(p.find("state")->as_string(), *p.find("state_ids"), where + " state");
    }
  }
  MESSAGE("checked " << pieces << " pieces of " << cases << " cases, " << mismatches << " mismatches");
  CHECK(cases == 134);
  CHECK(pieces > 1000);
  CHECK(mismatches == 0);
}

TEST_CASE("laya-spec §4.3 spot checks give the documented English ids") {
  CHECK(english().encode("choice question: Who should handle this?") ==
        std::vector<int32_t>{22122, 1953, 27, 8452, 943, 6016, 436, 32});
  CHECK(english().encode(" level 0: low") == std::vector<int32_t>{1268, 470, 27, 1698});
  const std::vector<int32_t> noul = english().encode("noul question: is it?");
  REQUIRE(noul.size() >= 4);
  CHECK(std::vector<int32_t>(noul.begin(), noul.begin() + 4) == std::vector<int32_t>{79, 3941, 1953, 27});
  // "  leading" -> the added two-space token 50276, then "leading".
  const std::vector<int32_t> leading = english().encode("  leading");
  REQUIRE(leading.size() == 2);
  CHECK(leading[0] == 50276);
}

TEST_CASE("the English tokenizer agrees with Hugging Face tokenizers on a corpus of hard inputs") {
  // tests/data/tok/english-hf-corpus.jsonl: ids from the real Hugging Face implementation (README).
  std::istringstream lines(read_file(laya::tok::testing::data_path("tok/english-hf-corpus.jsonl")));
  std::string line;
  size_t texts = 0, mismatches = 0;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    auto row = laya::json::parse(line, "english-hf-corpus.jsonl");
    REQUIRE(row.ok());
    ++texts;
    const std::string& text = row.value().find("text")->as_string();
    if (english().encode(text) != ids_of(*row.value().find("ids"))) {
      ++mismatches;
      FAIL_CHECK("ids differ for " << text.substr(0, 120));
    }
  }
  MESSAGE("checked " << texts << " texts, " << mismatches << " mismatches");
  CHECK(texts > 1600);
  CHECK(mismatches == 0);
}
