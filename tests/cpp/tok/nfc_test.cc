// NFC against Hugging Face tokenizers' NFC normalizer (tests/data/tok/nfc-hf.txt): every code
// point alone and inside probes exposing combining classes, compositions and Hangul, plus random
// mark sequences; and UAX #15 examples.
#include "tok/nfc.h"

#include <doctest/doctest.h>

#include <map>
#include <sstream>

#include "tok/utf8.h"
#include "tok_test_files.h"

using laya::tok::nfc;

namespace {

std::u32string parse_cps(const std::string& hex_list, char sep) {
  std::u32string out;
  std::istringstream in(hex_list);
  std::string item;
  while (std::getline(in, item, sep)) {
    if (!item.empty()) out.push_back(static_cast<char32_t>(std::stoul(item, nullptr, 16)));
  }
  return out;
}

// The probes of scripts/gen_tok_hf_fixtures.cjs: prefix and suffix around each code point.
const std::pair<std::u32string, std::u32string> kProbes[] = {
    {U"", U""}, {U"\u0301", U""}, {U"", U"\u0334"}, {U"a", U"\u0301"},
    {U"\u1100", U""}, {U"", U"\u1161"}, {U"\uAC00", U""}, {U"", U"\u11A8"},
};

}  // namespace

TEST_CASE("NFC matches Hugging Face on every code point in every probe") {
  std::istringstream lines(laya::tok::testing::read_file(laya::tok::testing::data_path("tok/nfc-hf.txt")));
  std::map<std::pair<int, char32_t>, std::u32string> changed;
  std::vector<std::pair<std::u32string, std::u32string>> random;
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string probe, input, rest;
    fields >> probe >> input;
    std::getline(fields, rest);
    if (probe == "r") {
      random.emplace_back(parse_cps(input, ','), parse_cps(rest, ' '));
    } else {
      changed[{std::stoi(probe), static_cast<char32_t>(std::stoul(input, nullptr, 16))}] = parse_cps(rest, ' ');
    }
  }
  REQUIRE(changed.size() > 1000);
  size_t checked = 0, mismatches = 0;
  for (int p = 0; p < 8; ++p) {
    const auto& [prefix, suffix] = kProbes[p];
    for (char32_t c = 0; c <= 0x10FFFF; ++c) {
      if ((c >= 0xD800 && c <= 0xDFFF) || c == 1) continue;
      const std::u32string input = prefix + c + suffix;
      const auto it = changed.find({p, c});
      const std::u32string& expected = it == changed.end() ? input : it->second;
      ++checked;
      if (nfc(input) != expected && ++mismatches <= 10) {
        FAIL_CHECK("probe " << p << " U+" << std::hex << static_cast<uint32_t>(c));
      }
    }
  }
  for (const auto& [input, expected] : random) {
    ++checked;
    if (nfc(input) != expected && ++mismatches <= 20) FAIL_CHECK("random sequence differs: " << line);
  }
  MESSAGE("checked " << checked << " strings (" << random.size() << " random), " << mismatches << " mismatches");
  CHECK(mismatches == 0);
}

TEST_CASE("NFC composes, reorders marks and composes Hangul as UAX 15 shows") {
  CHECK(nfc(std::string("cafe\xCC\x81")) == "caf\xC3\xA9");                      // e + U+0301 -> é
  CHECK(nfc(std::u32string(U"\u1E0B\u0323")) == U"\u1E0D\u0307");                // ḋ + dot below
  CHECK(nfc(std::u32string(U"\u212B")) == U"\u00C5");                            // Angstrom sign
  CHECK(nfc(std::u32string(U"\u1100\u1161\u11A8")) == U"\uAC01");                // Hangul LVT
  // A mark of lower class between does not block the composition: á then U+0334, either order.
  CHECK(nfc(std::u32string(U"a\u0334\u0301")) == U"\u00E1\u0334");
  CHECK(nfc(std::u32string(U"a\u0301\u0334")) == U"\u00E1\u0334");
}

TEST_CASE("NFC leaves text below U+0300 untouched and replaces nothing else") {
  const std::string ascii = "plain ASCII, tabs\tand \xC2\xA0 Latin-1 \xC3\xBF";
  CHECK(nfc(ascii) == ascii);
  CHECK(nfc(std::string()).empty());
}
