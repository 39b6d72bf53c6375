// Character-class lookup over the generated kClassRanges (unicode_tables.h): binary search, with
// the ASCII answers cached since nearly all text is ASCII.
#include <algorithm>
#include <array>

#include "tok/unicode_tables.h"

namespace laya::tok {
namespace {

uint8_t search(char32_t c) {
  const ClassRange* end = kClassRanges + kClassRangeCount;
  const ClassRange* it =
      std::upper_bound(kClassRanges, end, c, [](char32_t v, const ClassRange& r) { return v < r.first; });
  if (it == kClassRanges) return 0;
  --it;
  return c <= it->last ? it->classes : 0;
}

const std::array<uint8_t, 128>& ascii_classes() {
  static const std::array<uint8_t, 128> table = [] {
    std::array<uint8_t, 128> t{};
    for (char32_t c = 0; c < 128; ++c) t[c] = search(c);
    return t;
  }();
  return table;
}

}  // namespace

uint8_t char_classes(char32_t c) { return c < 128 ? ascii_classes()[c] : search(c); }

}  // namespace laya::tok
