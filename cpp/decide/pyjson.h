// Python's json.dumps over a parsed JSON value, byte for byte: separators ", " and ": ", members
// in order with Python's dict semantics for duplicate keys, ints exactly as written, floats as
// repr(float(text)), NaN / Infinity literals, ensure_ascii on or off. Upstream renders states,
// criteria and structured instructions with it (laya-spec §4.1, §4.2), and every byte counts.
#pragma once

#include <string>
#include <vector>

#include "util/json.h"

namespace laya::decide {

// The members of an object as the dict json.loads builds from them: a repeated key keeps its first
// position and takes its last value. Linear time (states can be large). The pointers point into
// `object`.
std::vector<const json::Member*> dict_members(const json::Value& object);

// json.dumps(v, ensure_ascii=ensure_ascii) of the value json.loads would have built.
std::string dumps(const json::Value& v, bool ensure_ascii);
void append_dumps(std::string& out, const json::Value& v, bool ensure_ascii);

// An object key as json.dumps writes a non-str dict key: true/false/null, ints, float reprs.
std::string json_key(const json::Value& scalar);

// Upstream's render_criterion: a str as is, anything else json.dumps(ensure_ascii=False).
std::string render_criterion(const json::Value& v);

}  // namespace laya::decide
