// The GPT-2 split, alternative by alternative in the pattern's order (the first that matches at a
// position wins, as in a backtracking regex engine), and the byte map.
#include "tok/byte_level.h"

#include <array>

#include "tok/unicode_tables.h"
#include "tok/utf8.h"

namespace laya::tok {
namespace {

enum class Kind : uint8_t { kLetter, kNumber, kSpace, kOther };

Kind kind_of(char32_t c) {
  const uint8_t classes = char_classes(c);
  if (classes & kClassWhiteSpace) return Kind::kSpace;
  if (classes & kClassLetter) return Kind::kLetter;
  if (classes & kClassNumber) return Kind::kNumber;
  return Kind::kOther;
}

// Length of a contraction ('s 't 're 've 'm 'll 'd, lower case only) at i, or 0.
size_t contraction(const std::u32string& cps, size_t i) {
  if (cps[i] != U'\'' || i + 1 >= cps.size()) return 0;
  const char32_t a = cps[i + 1];
  if (a == U's' || a == U't' || a == U'm' || a == U'd') return 2;
  if (i + 2 < cps.size()) {
    const char32_t b = cps[i + 2];
    if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) return 3;
  }
  return 0;
}

}  // namespace

std::vector<std::pair<size_t, size_t>> gpt2_split(std::string_view text) {
  std::u32string cps;
  std::vector<size_t> offsets;  // byte offset of each code point, plus the end
  cps.reserve(text.size());
  offsets.reserve(text.size() + 1);
  for (size_t pos = 0; pos < text.size();) {
    offsets.push_back(pos);
    cps.push_back(decode_utf8(text, pos));
  }
  offsets.push_back(text.size());
  std::vector<Kind> kinds(cps.size());
  for (size_t i = 0; i < cps.size(); ++i) kinds[i] = kind_of(cps[i]);

  std::vector<std::pair<size_t, size_t>> out;
  const size_t n = cps.size();
  const auto run = [&](size_t from, Kind kind) {
    while (from < n && kinds[from] == kind) ++from;
    return from;
  };
  for (size_t i = 0; i < n;) {
    size_t end = i + contraction(cps, i);
    if (end == i) {
      // " ?\p{L}+", " ?\p{N}+", " ?[^\s\p{L}\p{N}]+": the optional space is taken when the class follows.
      for (Kind kind : {Kind::kLetter, Kind::kNumber, Kind::kOther}) {
        if (cps[i] == U' ' && i + 1 < n && kinds[i + 1] == kind) {
          end = run(i + 1, kind);
        } else if (kinds[i] == kind) {
          end = run(i, kind);
        }
        if (end != i) break;
      }
    }
    if (end == i) {
      // "\s+(?!\S)" then "\s+": a run of white space leaves its last character to the next word
      // unless the run ends the text or is a single character.
      const size_t space_end = run(i, Kind::kSpace);
      end = (space_end == n || space_end - i == 1) ? space_end : space_end - 1;
    }
    out.emplace_back(offsets[i], offsets[end]);
    i = end;
  }
  return out;
}

std::string byte_level_encode(std::string_view bytes) {
  static const std::array<std::string, 256> table = [] {
    std::array<std::string, 256> t;
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
      append_utf8(t[b], printable ? static_cast<char32_t>(b) : next++);
    }
    return t;
  }();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char b : bytes) out += table[static_cast<uint8_t>(b)];
  return out;
}

}  // namespace laya::tok
