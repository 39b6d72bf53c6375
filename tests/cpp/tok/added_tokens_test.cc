// Added-token extraction with Hugging Face semantics. The expected splits of the first cases are
// the ones in Hugging Face's own added_vocabulary.rs tests; the rest were checked against the real
// implementation (tokenizers 0.23.2).
#include "tok/added_tokens.h"

#include <doctest/doctest.h>

#include "tok_test_files.h"

using laya::tok::AddedToken;
using laya::tok::AddedVocabulary;
using laya::tok::Normalizer;
using laya::tok::Segment;
using Ids = std::vector<int32_t>;

namespace {

AddedToken token(std::string content, int32_t id) {
  AddedToken t;
  t.content = std::move(content);
  t.id = id;
  t.normalized = false;
  return t;
}

// "text" for text segments, "#id" for tokens.
std::vector<std::string> show(const std::vector<Segment>& segments) {
  std::vector<std::string> out;
  for (const Segment& s : segments) out.push_back(s.id >= 0 ? "#" + std::to_string(s.id) : s.text);
  return out;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("added tokens split the text and leave the gaps as text") {
  const Normalizer none;
  AddedVocabulary v({token("my", 0), token("name", 1), token("[CLS]", 2), token("[SEP]", 3)}, none);
  CHECK(show(v.extract_and_normalize("[CLS] My name is Anthony [SEP]", none)) ==
        Strings{"#2", " My ", "#1", " is Anthony ", "#3"});
}

TEST_CASE("single_word tokens only match when no word character touches them") {
  const Normalizer none;
  AddedToken mask = token("<mask>", 0);
  mask.single_word = true;
  AddedVocabulary v({mask}, none);
  CHECK(show(v.extract_and_normalize("<mask> My name <mask> A<mask> <mask>ony <mask>", none)) ==
        Strings{"#0", " My name ", "#0", " A<mask> <mask>ony ", "#0"});
  // Punctuation is not a word character; a combining mark is.
  CHECK(show(v.extract_and_normalize("<mask>, <mask>- \xE2\x97\x8C\xCC\xB0<mask>", none)) ==
        Strings{"#0", ", ", "#0", "- \xE2\x97\x8C\xCC\xB0<mask>"});
}

TEST_CASE("lstrip and rstrip swallow any Unicode white space beside the match") {
  const Normalizer none;
  AddedToken mask = token("<mask>", 0);
  mask.lstrip = mask.rstrip = mask.single_word = true;
  AddedVocabulary v({mask}, none);
  // The second match may not re-take the tab the first one swallowed.
  CHECK(show(v.extract_and_normalize("Hi <mask> there\t<mask>\t<mask>\xE2\x80\x80", none)) ==
        Strings{"Hi", "#0", "there", "#0", "#0"});
}

TEST_CASE("leftmost match wins, then the longest among those starting there") {
  const Normalizer none;
  AddedVocabulary v({token("ab", 0), token("abc", 1), token("bcd", 2)}, none);
  CHECK(show(v.extract_and_normalize("xabcd", none)) == Strings{"x", "#1", "d"});
  CHECK(show(v.extract_and_normalize("xbcd", none)) == Strings{"x", "#2"});
}

TEST_CASE("normalized tokens are matched after normalization, the others on the raw text") {
  laya::json::Value spec =
      laya::json::parse(R"({"type": "Replace", "pattern": {"String": "X"}, "content": "y"})", "test").value();
  auto normalizer = Normalizer::parse(spec, {"test", "normalizer"});
  REQUIRE(normalizer.ok());
  AddedToken raw = token("X!", 0);
  AddedToken normalized = token("yy", 1);
  normalized.normalized = true;
  AddedVocabulary v({raw, normalized}, normalizer.value());
  // "X!" is taken before normalization; "XX" becomes "yy" and then matches.
  CHECK(show(v.extract_and_normalize("aX!bXXc", normalizer.value())) == Strings{"a", "#0", "b", "#1", "c"});
  // A normalized token's own pattern is normalized too: "Xy" matches as "yy".
  AddedToken pattern = token("Xy", 2);
  pattern.normalized = true;
  AddedVocabulary w({pattern}, normalizer.value());
  CHECK(show(w.extract_and_normalize("yy", normalizer.value())) == Strings{"#2"});
}

TEST_CASE("a match inside the spaces an rstrip token swallowed is still emitted, as in Hugging Face") {
  // English tokenizer with [MASK] given rstrip and normalized (so it shares a trie with the space
  // tokens): HF gives [MASK] then the three-space token 50275 again, then x.
  std::string json = laya::tok::testing::read_file(
      laya::tok::testing::fixture_path("upstream/english/tokenizer/tokenizer.json"));
  const size_t mask = json.find("\"content\": \"[MASK]\"");
  REQUIRE(mask != std::string::npos);
  for (const std::string flag : {"\"rstrip\": false", "\"normalized\": false"}) {
    const size_t at = json.find(flag, mask);
    REQUIRE(at != std::string::npos);
    json.replace(at, flag.size(), flag.substr(0, flag.size() - 5) + "true");
  }
  auto t = laya::tok::Tokenizer::load(json, laya::tok::testing::read_file(laya::tok::testing::fixture_path(
                                                "upstream/english/tokenizer/tokenizer_config.json")));
  REQUIRE(t.ok());
  CHECK(t.value().encode("[MASK]   x") == Ids{50284, 50275, 89});
  CHECK(t.value().encode("a [MASK]  b") == Ids{66, 50284, 50276, 67});
}

TEST_CASE("English [MASK] strips the space before it and keeps the one after") {
  CHECK(laya::tok::testing::english().encode("a [MASK] b") == Ids{66, 50284, 270});
}
