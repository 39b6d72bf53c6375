// BPE merging, unk / byte-fallback handling and merge parsing, on small models whose expected ids
// were worked out by hand (and agree with Hugging Face tokenizers 0.23.2).
#include "tok/bpe.h"

#include <doctest/doctest.h>

#include <string>

#include "tok_test_files.h"
#include "util/json.h"

using laya::tok::Bpe;
using Ids = std::vector<int32_t>;

namespace {

// <unk>=0 a=1 <0xC3>=2 <0xA9>=3 b=4 ab=5 aa=6 aaa=7; merges "a a" < "a b" < "aa a".
std::string model_json(const std::string& merges, const std::string& extra = "") {
  return R"({"type": "BPE", "dropout": null, "unk_token": "<unk>", "continuing_subword_prefix": null,
    "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": true, "ignore_merges": false,)" + extra +
         R"("vocab": {"<unk>": 0, "a": 1, "<0xC3>": 2, "<0xA9>": 3, "b": 4, "ab": 5, "aa": 6, "aaa": 7},
    "merges": )" + merges + "}";
}

laya::Result<Bpe> parse(const std::string& json) {
  auto v = laya::json::parse(json, "test");
  REQUIRE(v.ok());
  return Bpe::parse(v.value(), {"tokenizer.json", "model"});
}

Ids tokenize(const Bpe& bpe, const std::string& word) {
  Ids ids;
  bpe.tokenize(word, ids);
  return ids;
}

}  // namespace

TEST_CASE("the lowest-ranked pair merges first, the leftmost on ties, until no merge applies") {
  auto bpe = parse(model_json(R"(["a a", "a b", "aa a"])"));
  REQUIRE(bpe.ok());
  CHECK(tokenize(bpe.value(), "aaa") == Ids{7});      // a a a -> aa a -> aaa
  CHECK(tokenize(bpe.value(), "aaaa") == Ids{6, 6});  // both "a a" merge before "aa a" could
  CHECK(tokenize(bpe.value(), "aaaaa") == Ids{6, 7});
  CHECK(tokenize(bpe.value(), "aab") == Ids{6, 4});   // "a a" outranks "a b"
}

TEST_CASE("merges written as pairs read the same as merges written as strings") {
  auto bpe = parse(model_json(R"([["a", "a"], ["a", "b"], ["aa", "a"]])"));
  REQUIRE(bpe.ok());
  CHECK(tokenize(bpe.value(), "aaaaa") == Ids{6, 7});
}

TEST_CASE("a pending unk is emitted after byte-fallback bytes, as Hugging Face does") {
  auto bpe = parse(model_json(R"(["a a"])"));
  REQUIRE(bpe.ok());
  // ☃ has no byte tokens (unk); é falls back to its bytes; the unk waits for the next known char.
  CHECK(tokenize(bpe.value(), "\xE2\x98\x83\xC3\xA9" "a") == Ids{2, 3, 0, 1});
  CHECK(tokenize(bpe.value(), "xy") == Ids{0, 0});  // fuse_unk is false
}

TEST_CASE("ignore_merges takes a whole word found in the vocabulary as it is") {
  auto bpe = parse(model_json(R"(["a a", "a b", "aa a"])", R"("ignore_merges": true,)"));
  REQUIRE(bpe.ok());
  CHECK(tokenize(bpe.value(), "aaa") == Ids{7});
  CHECK(tokenize(bpe.value(), "aaaa") == Ids{6, 6});
}

TEST_CASE("merge lists that Hugging Face would reject are invalid checkpoints naming the merge") {
  auto mixed = parse(model_json(R"(["a a", ["a", "b"]])"));
  REQUIRE_FALSE(mixed.ok());
  CHECK(mixed.error().message.find("tokenizer.json: model.merges[1] mixes") == 0);
  auto missing = parse(model_json(R"(["a a", "b b"])"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == laya::ErrorCode::kInvalidCheckpoint);
  CHECK(missing.error().message == "tokenizer.json: model.merges[1] uses 'bb', which is not in the vocabulary");
  auto spaces = parse(model_json(R"(["a  a"])"));
  REQUIRE_FALSE(spaces.ok());
  CHECK(spaces.error().message.find("model.merges[0] must be two tokens separated by one space") != std::string::npos);
}

TEST_CASE("dropout and subword affixes are rejected as unsupported") {
  auto dropout = parse(model_json(R"(["a a"])", R"("dropout": 0.1,)"));
  REQUIRE_FALSE(dropout.ok());
  CHECK(dropout.error().code == laya::ErrorCode::kUnsupportedModel);
  CHECK(dropout.error().message.find("model.dropout") != std::string::npos);
}

TEST_CASE("a hostile 200000-character word merges in n log n time") {
  // A quadratic merge loop would take minutes here; this must finish in well under a second.
  const laya::tok::Tokenizer& english = laya::tok::testing::english();
  const std::string word(200000, 'a');
  const Ids ids = english.encode(word);
  REQUIRE_FALSE(ids.empty());
  CHECK(ids.size() < word.size() / 4);  // long merges of "a" runs exist in the vocabulary
  CHECK(english.encode(word) == ids);
  const std::string mixed = [] {
    std::string s;
    for (int i = 0; i < 50000; ++i) s += "xq";
    return s;
  }();
  CHECK_FALSE(english.encode(mixed).empty());
}
