// Normalizer steps; expected strings are Hugging Face's for the same normalizers (Prepend then
// Replace of " " by "▁" gives "▁a▁b▁▁c" for "a b  c", and nothing for "").
#include "tok/normalizer.h"

#include <doctest/doctest.h>

using laya::tok::Normalizer;

namespace {

laya::Result<Normalizer> parse(const char* json) {
  auto v = laya::json::parse(json, "test");
  REQUIRE(v.ok());
  return Normalizer::parse(v.value(), {"tokenizer.json", "normalizer"});
}

}  // namespace

TEST_CASE("a sequence applies its normalizers in order, Prepend only to non-empty text") {
  auto n = parse(R"({"type": "Sequence", "normalizers": [
      {"type": "Prepend", "prepend": "▁"},
      {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]})");
  REQUIRE(n.ok());
  CHECK(n.value().apply("a b  c") == "\xE2\x96\x81" "a" "\xE2\x96\x81" "b" "\xE2\x96\x81\xE2\x96\x81" "c");
  CHECK(n.value().apply("").empty());
}

TEST_CASE("Replace swaps non-overlapping occurrences from the left") {
  auto n = parse(R"({"type": "Replace", "pattern": {"String": "aa"}, "content": "b"})");
  REQUIRE(n.ok());
  CHECK(n.value().apply("aaa aaaa") == "ba bb");
}

TEST_CASE("a null normalizer is the identity and NFC composes") {
  auto none = Normalizer::parse(laya::json::Value(), {"tokenizer.json", "normalizer"});
  REQUIRE(none.ok());
  CHECK(none.value().is_identity());
  auto nfc = parse(R"({"type": "NFC"})");
  REQUIRE(nfc.ok());
  CHECK(nfc.value().apply("e\xCC\x81") == "\xC3\xA9");
}

TEST_CASE("regex patterns and unknown normalizers are unsupported, naming the field") {
  auto regex = parse(R"({"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "})");
  REQUIRE_FALSE(regex.ok());
  CHECK(regex.error().code == laya::ErrorCode::kUnsupportedModel);
  CHECK(regex.error().message.find("tokenizer.json: normalizer.pattern is not supported") == 0);
  auto nested = parse(R"({"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Lowercase"}]})");
  REQUIRE_FALSE(nested.ok());
  CHECK(nested.error().message.find("tokenizer.json: normalizer.normalizers[1].type 'Lowercase'") == 0);
}
