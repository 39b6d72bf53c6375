// The schema planner of upstream's structured.py (laya-spec-current §10.1-10.3). Every problem is
// upstream's SchemaError, a ValueError, so it is invalid_request with the same text. The
// projection of answers back onto values is in decision.cc.
#include "decide/structured.h"

#include <optional>
#include <string_view>

#include "decide/pyjson.h"
#include "decide/pyrepr.h"

namespace laya::decide {
namespace {

// A Python dict built from a JSON object: duplicate keys merged, insertion order kept.
using Dict = std::vector<json::Member>;

Dict dict_of(const json::Value& object) {
  Dict out;
  for (const json::Member* m : dict_members(object)) out.push_back(*m);
  return out;
}

const json::Value* get(const Dict& dict, std::string_view key) {
  for (const json::Member& m : dict) {
    if (m.first == key) return &m.second;
  }
  return nullptr;
}

// `{**base, **top}` without `skipped`: a key already in base keeps its place and takes top's value.
void lay_over(Dict& base, const Dict& top, std::string_view skipped) {
  for (const json::Member& m : top) {
    if (m.first == skipped) continue;
    bool replaced = false;
    for (json::Member& b : base) {
      if (b.first == m.first) {
        b.second = m.second;
        replaced = true;
      }
    }
    if (!replaced) base.push_back(m);
  }
}

Dict without(const Dict& dict, std::string_view key) {
  Dict out;
  lay_over(out, dict, key);
  return out;
}

// Python's truth value of a JSON value.
bool truthy(const json::Value* v) {
  if (v == nullptr) return false;
  switch (v->kind()) {
    case json::Kind::kNull: return false;
    case json::Kind::kBool: return v->as_bool();
    case json::Kind::kNumber: return v->as_double() != 0;
    case json::Kind::kString: return !v->as_string().empty();
    case json::Kind::kArray: return !v->items().empty();
    case json::Kind::kObject: return !v->members().empty();
  }
  return false;
}

bool is_string(const json::Value* v, std::string_view s) { return v != nullptr && v->is_string() && v->as_string() == s; }

PlannedField field_of(const std::string& name, QType type) {
  PlannedField field;
  field.name = name;
  field.type = type;
  return field;
}

class Planner {
 public:
  explicit Planner(const json::Value& root) : root_(root) {}

  Result<PlannedField> plan(const std::string& name, const json::Value& property, std::vector<json::Value> refs) const {
    const std::string path = "properties." + name;
    if (!property.is_object()) {
      return invalid_request(path + ": property must be an object, got " + python_type_name(property));
    }
    Dict d = dict_of(property);
    while (const json::Value* ref = get(d, "$ref")) {
      for (const json::Value& seen : refs) {
        if (python_key_equal(seen, *ref)) {
          return invalid_request(path + ": $ref " + python_repr(*ref) + " is recursive; flatten the schema");
        }
      }
      const json::Value* target = resolve(*ref);
      if (target == nullptr) {
        return invalid_request(path + ": $ref " + python_repr(*ref) +
                               " does not resolve to an entry of this schema's '$defs' or 'definitions'");
      }
      refs.push_back(*ref);
      Dict merged = without(dict_of(*target), "description");
      lay_over(merged, d, "$ref");
      d = std::move(merged);
    }
    if (get(d, "const") == nullptr && get(d, "enum") == nullptr && get(d, "type") == nullptr) {
      const json::Value* all_of = get(d, "allOf");
      if (all_of != nullptr && all_of->is_array() && all_of->items().size() == 1 && all_of->items()[0].is_object()) {
        Dict merged = dict_of(all_of->items()[0]);
        lay_over(merged, d, "allOf");
        return plan(name, json::Value::object(std::move(merged)), std::move(refs));
      }
      const json::Value* any_of = get(d, "anyOf");
      const json::Value* branches = truthy(any_of) ? any_of : get(d, "oneOf");
      if (truthy(branches)) return plan_optional(name, d, *branches, std::move(refs));
    }
    return plan_typed(name, d);
  }

 private:
  // #/$defs/<name> or #/definitions/<name> of the root schema, when it is an object.
  const json::Value* resolve(const json::Value& ref) const {
    if (!ref.is_string()) return nullptr;
    const std::string& text = ref.as_string();
    for (std::string_view defs : {"$defs", "definitions"}) {
      const std::string prefix = "#/" + std::string(defs) + "/";
      if (text.compare(0, prefix.size(), prefix) != 0) continue;
      const json::Value* table = root_.find(defs);
      const json::Value* entry = table != nullptr && table->is_object() ? table->find(text.substr(prefix.size())) : nullptr;
      return entry != nullptr && entry->is_object() ? entry : nullptr;
    }
    return nullptr;
  }

  // Optional[X]: the one branch that is not {"type": "null"}, with the outer description.
  Result<PlannedField> plan_optional(const std::string& name, const Dict& outer, const json::Value& branches,
                                     std::vector<json::Value> refs) const {
    std::vector<const json::Value*> kept;
    if (branches.is_array()) {
      for (const json::Value& b : branches.items()) {
        if (b.is_object() && !is_string(b.find("type"), "null")) kept.push_back(&b);
      }
    }
    if (kept.size() != 1) {
      return invalid_request("properties." + name + ": only 'Optional[...]' unions (one non-null branch) are supported, got " +
                             std::to_string(kept.size()));
    }
    Dict branch = dict_of(*kept[0]);
    const json::Value* description = get(outer, "description");
    if (get(branch, "description") == nullptr && description != nullptr) branch.emplace_back("description", *description);
    return plan(name, json::Value::object(std::move(branch)), std::move(refs));
  }

  static json::Value instructions(const Dict& d, std::string fallback) {
    const json::Value* description = get(d, "description");
    return truthy(description) ? *description : json::Value::string(std::move(fallback));
  }

  static PlannedField noul(const std::string& name, const Dict& d) {
    PlannedField field = field_of(name, QType::kNoul);
    field.question = json::Value::object({{"type", json::Value::string("noul")},
                                          {"instructions", instructions(d, "Is `" + name + "` true?")}});
    return field;
  }

  static Result<PlannedField> plan_enum(const std::string& name, const Dict& d, std::vector<json::Value> values) {
    const std::string path = "properties." + name;
    if (values.size() > kMaxOptions) {
      return invalid_request(path + ": " + std::to_string(values.size()) + " options exceeds MAX_OPTIONS=" +
                             std::to_string(kMaxOptions));
    }
    if (values.empty()) return invalid_request(path + ": 'enum' must not be empty");
    bool all_bool = true;
    for (const json::Value& v : values) all_bool = all_bool && v.is_bool();
    if (all_bool) return noul(name, d);
    PlannedField field = field_of(name, QType::kChoice);
    std::vector<json::Member> criteria;
    for (const json::Value& v : values) {
      std::string label = v.is_null() ? "null" : python_str(v);
      for (const std::string& earlier : field.labels) {
        if (earlier == label) return invalid_request(path + ": enum values produce duplicate choice labels");
      }
      criteria.emplace_back(label, json::Value());
      field.labels.push_back(std::move(label));
    }
    field.enum_values = std::move(values);
    field.question = json::Value::object({{"type", json::Value::string("choice")},
                                          {"instructions", instructions(d, "What is `" + name + "`?")},
                                          {"criteria", json::Value::object(std::move(criteria))}});
    return field;
  }

  static Result<PlannedField> plan_score(const std::string& name, const Dict& d) {
    const std::string path = "properties." + name;
    const json::Value* minimum = get(d, "minimum");
    const json::Value* maximum = get(d, "maximum");
    auto int_of = [](const json::Value* v) {
      return v != nullptr && v->is_number() && v->is_integer() ? v->as_int64() : std::nullopt;
    };
    const std::optional<int64_t> lo = int_of(minimum);
    const std::optional<int64_t> hi = int_of(maximum);
    if (!lo || !hi) {
      return invalid_request(path + ": a numeric field needs integer 'minimum' and 'maximum' to become a score");
    }
    if (*hi < *lo) {
      return invalid_request(path + ": 'maximum' " + std::to_string(*hi) + " is below 'minimum' " + std::to_string(*lo));
    }
    const int64_t levels = *hi - *lo + 1;
    if (levels > kMaxScoreLevels) {
      return invalid_request(path + ": " + std::to_string(levels) + " levels exceeds MAX_SCORE_LEVELS=" +
                             std::to_string(kMaxScoreLevels) + "; narrow the range or use an enum");
    }
    PlannedField field = field_of(name, QType::kScore);
    field.minimum = *lo;
    std::vector<json::Value> criteria;
    for (int64_t level = *lo; level <= *hi; ++level) criteria.push_back(json::Value::string(std::to_string(level)));
    field.question = json::Value::object(
        {{"type", json::Value::string("score")},
         {"instructions", instructions(d, "Score `" + name + "` from " + std::to_string(*lo) + " to " + std::to_string(*hi))},
         {"criteria", json::Value::array(std::move(criteria))}});
    return field;
  }

  static Result<PlannedField> plan_typed(const std::string& name, const Dict& d) {
    const std::string path = "properties." + name;
    if (const json::Value* constant = get(d, "const")) return plan_enum(name, d, {*constant});
    const json::Value* values = get(d, "enum");
    if (values != nullptr && values->is_array()) return plan_enum(name, d, values->items());
    const json::Value* type = get(d, "type");
    std::optional<std::string> t;
    if (type != nullptr && type->is_string()) t = type->as_string();
    if (type != nullptr && type->is_array()) {
      std::vector<const json::Value*> non_null;
      for (const json::Value& member : type->items()) {
        if (!is_string(&member, "null")) non_null.push_back(&member);
      }
      if (non_null.size() > 1) {
        return invalid_request(path + ": 'type' has multiple non-null types; unions are not supported");
      }
      if (non_null.size() == 1 && non_null[0]->is_string()) t = non_null[0]->as_string();
    }
    if (t == "boolean") return noul(name, d);
    if (t == "string") return invalid_request(path + ": a free string cannot be a fixed option set; use 'enum' or a boolean");
    if (t == "integer" || t == "number") return plan_score(name, d);
    if (t == "array") return invalid_request(path + ": arrays are not supported; ask one field per element");
    if (t == "object") return invalid_request(path + ": nested objects are not supported; flatten the schema");
    return invalid_request(path + ": unsupported schema " + python_repr(json::Value::object(d)));
  }

  const json::Value& root_;
};

}  // namespace

Result<DecisionPlan> plan_schema(const json::Value& schema) {
  if (!schema.is_object()) {
    return invalid_request(std::string("expected a JSON schema object, got ") + python_type_name(schema));
  }
  const json::Value* type = schema.find("type");
  const json::Value* properties = schema.find("properties");
  if ((type != nullptr && !is_string(type, "object")) || properties == nullptr) {
    return invalid_request("the top level must be an object with 'properties'");
  }
  if (!properties->is_object() || properties->members().empty()) {
    return invalid_request("'properties' must be a non-empty object");
  }
  const std::vector<const json::Member*> members = dict_members(*properties);
  if (members.size() > kMaxProperties) {
    return invalid_request(std::to_string(members.size()) + " properties exceeds MAX_PROPERTIES=" +
                           std::to_string(kMaxProperties));
  }
  const Planner planner(schema);
  DecisionPlan out;
  std::vector<json::Member> questions;
  for (const json::Member* m : members) {
    LAYA_ASSIGN_OR_RETURN(PlannedField field, planner.plan(m->first, m->second, {}));
    questions.emplace_back(field.name, field.question);
    out.fields.push_back(std::move(field));
  }
  out.questions = json::Value::object(std::move(questions));
  return out;
}

}  // namespace laya::decide
