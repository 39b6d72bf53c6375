// UTF-8 decoding with WHATWG replacement (one U+FFFD per maximal invalid subpart) and the error
// that names the first bad byte.
#include "tok/utf8.h"

#include <doctest/doctest.h>

using namespace laya::tok;

TEST_CASE("valid UTF-8 decodes and re-encodes unchanged") {
  const std::string text = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xEF\xBF\xBD";  // a é € 😀 U+FFFD
  CHECK(decode_utf8(text) == U"a\u00E9\u20AC\U0001F600\uFFFD");
  CHECK(encode_utf8(decode_utf8(text)) == text);
  CHECK(sanitize_utf8(text) == text);
  CHECK(utf8_error(text, "text").ok());
}

TEST_CASE("invalid sequences become one replacement character per maximal subpart") {
  // The WHATWG / Unicode 'best practice' examples: truncated sequences, overlongs, surrogates.
  CHECK(decode_utf8(std::string("\xE2\x82")) == U"\uFFFD");             // truncated 3-byte: one
  CHECK(decode_utf8(std::string("\xE2\x82" "a")) == U"\uFFFDa");
  CHECK(decode_utf8(std::string("\xC0\xAF")) == U"\uFFFD\uFFFD");       // overlong lead: two
  CHECK(decode_utf8(std::string("\xED\xA0\x80")) == U"\uFFFD\uFFFD\uFFFD");  // a surrogate
  CHECK(decode_utf8(std::string("\xF4\x90\x80\x80")) == U"\uFFFD\uFFFD\uFFFD\uFFFD");  // > U+10FFFF
  CHECK(decode_utf8(std::string("\x80\xFF")) == U"\uFFFD\uFFFD");
  CHECK(sanitize_utf8(std::string("ok\xFF")) == "ok\xEF\xBF\xBD");
}

TEST_CASE("the UTF-8 error names what was checked and the byte offset") {
  const laya::Status s = utf8_error(std::string("abc\xE2\x82"), "state");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().code == laya::ErrorCode::kInvalidRequest);
  CHECK(s.error().message == "state is not valid UTF-8 (invalid byte sequence at byte 3)");
}
