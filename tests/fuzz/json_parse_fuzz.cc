// libFuzzer harness: the ordered JSON parser (util/json.h) on arbitrary bytes, with and without
// Python's non-finite literals and a small depth limit. A parsed value must survive being walked.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "util/json.h"

namespace {

// Touches every value the way the engine reads them: numbers converted, objects merged as dicts.
size_t walk(const laya::json::Value& v) {
  size_t n = 1;
  if (v.is_number()) {
    volatile double d = v.as_double();
    (void)d;
    (void)v.as_int64();
  } else if (v.is_array()) {
    for (const auto& item : v.items()) n += walk(item);
  } else if (v.is_object()) {
    for (const auto& member : v.members()) n += walk(member.second);
    n += v.python_dict_members().size();
  }
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (laya::json::ParseOptions options : {laya::json::ParseOptions{}, laya::json::ParseOptions{8, true}}) {
    auto parsed = laya::json::parse(text, "fuzz.json", options);
    if (parsed.ok()) {
      walk(parsed.value());
    } else if (parsed.error().message.empty()) {
      __builtin_trap();  // every rejection names what failed
    }
  }
  return 0;
}
