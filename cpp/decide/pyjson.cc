// json.dumps over json::Value: the structure is walked as json.loads would have built it (objects
// through dict_members), numbers are respelled the way Python prints what it parsed.
#include "decide/pyjson.h"

#include <cassert>
#include <string_view>
#include <unordered_map>

#include "decide/pyfloat.h"
#include "decide/pyrepr.h"

namespace laya::decide {

std::vector<const json::Member*> dict_members(const json::Value& object) {
  std::vector<const json::Member*> out;
  std::unordered_map<std::string_view, size_t> position;
  for (const json::Member& m : object.members()) {
    auto [it, inserted] = position.emplace(m.first, out.size());
    if (inserted) out.push_back(&m);
    else out[it->second] = &m;  // same key text, later value
  }
  return out;
}

std::string json_key(const json::Value& scalar) {
  switch (scalar.kind()) {
    case json::Kind::kNull: return "null";
    case json::Kind::kBool: return scalar.as_bool() ? "true" : "false";
    case json::Kind::kNumber:
      return scalar.is_integer() ? python_number_repr(scalar) : float_json(scalar.as_double());
    case json::Kind::kString: return scalar.as_string();
    case json::Kind::kArray:
    case json::Kind::kObject: break;
  }
  assert(false && "dict keys are scalars");
  return {};
}

void append_dumps(std::string& out, const json::Value& v, bool ensure_ascii) {
  switch (v.kind()) {
    case json::Kind::kNull: out += "null"; return;
    case json::Kind::kBool: out += v.as_bool() ? "true" : "false"; return;
    case json::Kind::kNumber:
      out += v.is_integer() ? python_number_repr(v) : float_json(v.as_double());
      return;
    case json::Kind::kString: json::append_quoted(out, v.as_string(), ensure_ascii); return;
    case json::Kind::kArray: {
      out += '[';
      bool first = true;
      for (const json::Value& item : v.items()) {
        if (!first) out += ", ";
        first = false;
        append_dumps(out, item, ensure_ascii);
      }
      out += ']';
      return;
    }
    case json::Kind::kObject: {
      out += '{';
      bool first = true;
      for (const json::Member* m : dict_members(v)) {
        if (!first) out += ", ";
        first = false;
        json::append_quoted(out, m->first, ensure_ascii);
        out += ": ";
        append_dumps(out, m->second, ensure_ascii);
      }
      out += '}';
      return;
    }
  }
}

std::string dumps(const json::Value& v, bool ensure_ascii) {
  std::string out;
  append_dumps(out, v, ensure_ascii);
  return out;
}

std::string render_criterion(const json::Value& v) {
  return v.is_string() ? v.as_string() : dumps(v, /*ensure_ascii=*/false);
}

}  // namespace laya::decide
