// NFC as in UAX #15: decompose fully (Hangul algorithmically), stable-sort each run of non-starters
// by combining class, then compose each character with the last starter when not blocked.
#include "tok/nfc.h"

#include <algorithm>

#include "tok/unicode_tables.h"
#include "tok/utf8.h"

namespace laya::tok {
namespace {

constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount,
                   kSCount = kLCount * kNCount;

uint8_t combining_class(char32_t c) {
  if (c < 0x300) return 0;
  const CombiningClassRange* end = kCombiningClassRanges + kCombiningClassRangeCount;
  const CombiningClassRange* it = std::upper_bound(
      kCombiningClassRanges, end, c, [](char32_t v, const CombiningClassRange& r) { return v < r.first; });
  if (it == kCombiningClassRanges) return 0;
  --it;
  return c <= it->last ? it->ccc : 0;
}

void decompose(char32_t c, std::u32string& out) {
  if (c >= kSBase && c < kSBase + kSCount) {
    const char32_t s = c - kSBase;
    out.push_back(kLBase + s / kNCount);
    out.push_back(kVBase + (s % kNCount) / kTCount);
    if (s % kTCount != 0) out.push_back(kTBase + s % kTCount);
    return;
  }
  if (c >= 0xC0) {
    const Decomposition* end = kDecompositions + kDecompositionCount;
    const Decomposition* it = std::lower_bound(
        kDecompositions, end, c, [](const Decomposition& d, char32_t v) { return d.code_point < v; });
    if (it != end && it->code_point == c) {
      out.append(kDecompositionData + it->start, it->length);
      return;
    }
  }
  out.push_back(c);
}

// The primary composite of (first, second), or 0.
char32_t compose_pair(char32_t first, char32_t second) {
  if (first >= kLBase && first < kLBase + kLCount && second >= kVBase && second < kVBase + kVCount) {
    return kSBase + ((first - kLBase) * kVCount + (second - kVBase)) * kTCount;
  }
  if (first >= kSBase && first < kSBase + kSCount && (first - kSBase) % kTCount == 0 &&
      second > kTBase && second < kTBase + kTCount) {
    return first + (second - kTBase);
  }
  const Composition* end = kCompositions + kCompositionCount;
  const Composition* it = std::lower_bound(kCompositions, end, std::pair(first, second),
                                           [](const Composition& c, std::pair<char32_t, char32_t> v) {
                                             return std::pair(c.first, c.second) < v;
                                           });
  return it != end && it->first == first && it->second == second ? it->composite : 0;
}

}  // namespace

std::u32string nfc(std::u32string_view text) {
  std::u32string d;
  d.reserve(text.size() + 8);
  for (char32_t c : text) decompose(c, d);

  // Canonical ordering: stable sort of every run of non-starters by combining class.
  for (size_t i = 0; i < d.size();) {
    if (combining_class(d[i]) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < d.size() && combining_class(d[j]) != 0) ++j;
    std::stable_sort(d.begin() + i, d.begin() + j,
                     [](char32_t a, char32_t b) { return combining_class(a) < combining_class(b); });
    i = j;
  }

  // Canonical composition: a character joins the last starter unless a character between them has
  // a combining class >= its own (or is a starter).
  std::u32string out;
  out.reserve(d.size());
  size_t starter = std::u32string::npos;  // index in `out` of the last starter
  int last_ccc = -1;                      // class of the last character appended after it
  for (char32_t c : d) {
    const int ccc = combining_class(c);
    if (starter != std::u32string::npos) {
      const bool blocked = last_ccc != -1 && (last_ccc == 0 || last_ccc >= ccc);
      if (!blocked) {
        if (const char32_t composite = compose_pair(out[starter], c)) {
          out[starter] = composite;
          continue;
        }
      }
    }
    if (ccc == 0) {
      starter = out.size();
      last_ccc = -1;
    } else {
      last_ccc = ccc;
    }
    out.push_back(c);
  }
  return out;
}

std::string nfc(std::string_view text) {
  // Every code point below U+0300 is NFC and starts no composition with a following one there.
  bool simple = true;
  for (size_t i = 0; i < text.size() && simple; ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    simple = b < 0xCC;  // lead bytes >= 0xCC start code points >= U+0300
  }
  if (simple) return std::string(text);
  return encode_utf8(nfc(decode_utf8(text)));
}

}  // namespace laya::tok
