// Post-processing for one sequence. Hugging Face truncates the content to max_length minus the
// number of special tokens the processor adds, dropping tokens from the end (laya-spec §3.10).
#include "tok/post_processor.h"

#include <algorithm>

namespace laya::tok {
namespace {

// A ["token", id] pair of BertProcessing / RobertaProcessing.
Result<int32_t> pair_id(const json::Value& spec, std::string_view key, const FieldPath& at) {
  const json::Value* v = spec.find(key);
  if (!v || !v->is_array() || v->items().size() != 2 || !v->items()[0].is_string()) {
    return at.invalid(key, "must be [\"token\", id]");
  }
  return read_id(v->items()[1], std::string(key) + "[1]", at);
}

}  // namespace

Result<PostProcessor> PostProcessor::parse(const json::Value& spec, const FieldPath& at) {
  PostProcessor p;
  if (!spec.is_null()) LAYA_RETURN_IF_ERROR(parse_into(spec, at, 0, p));
  return p;
}

Status PostProcessor::parse_template(const json::Value& spec, const FieldPath& at, PostProcessor& p) {
  const json::Value* single = spec.find("single");
  if (!single || !single->is_array()) return at.invalid("single", "must be an array");
  const json::Value* specials = spec.find("special_tokens");
  if (specials && !specials->is_object() && !specials->is_null()) {
    return at.invalid("special_tokens", "must be an object");
  }
  std::vector<int32_t> before, after;
  bool seen_sequence = false;
  const FieldPath single_at = at.child("single");
  for (size_t i = 0; i < single->items().size(); ++i) {
    const json::Value& item = single->items()[i];
    const FieldPath item_at = single_at.index(i);
    if (!item.is_object()) return invalid_checkpoint(item_at.name("") + " must be an object");
    if (const json::Value* seq = item.find("Sequence")) {
      const json::Value* id = seq->is_object() ? seq->find("id") : nullptr;
      if (!id || !id->is_string() || id->as_string() != "A" || seen_sequence) {
        return item_at.unsupported("Sequence", "must be the one sequence A of a single-sequence template");
      }
      seen_sequence = true;
    } else if (const json::Value* tok = item.find("SpecialToken")) {
      const json::Value* id = tok->is_object() ? tok->find("id") : nullptr;
      if (!id || !id->is_string()) return item_at.invalid("SpecialToken.id", "must be a string");
      const json::Value* entry = specials && specials->is_object() ? specials->find(id->as_string()) : nullptr;
      const json::Value* ids = entry && entry->is_object() ? entry->find("ids") : nullptr;
      if (!ids || !ids->is_array()) {
        return at.invalid("special_tokens", "has no ids for '" + id->as_string() + "', which single uses");
      }
      for (size_t k = 0; k < ids->items().size(); ++k) {
        LAYA_ASSIGN_OR_RETURN(const int32_t v, read_id(ids->items()[k], "[" + std::to_string(k) + "]",
                                                       at.child("special_tokens").child(id->as_string()).child("ids")));
        (seen_sequence ? after : before).push_back(v);
      }
    } else {
      return invalid_checkpoint(item_at.name("") + " must be {\"Sequence\": ...} or {\"SpecialToken\": ...}");
    }
  }
  if (!seen_sequence) return at.invalid("single", "has no sequence $A");
  // A later processor wraps the result of the earlier ones.
  p.prefix_.insert(p.prefix_.begin(), before.begin(), before.end());
  p.suffix_.insert(p.suffix_.end(), after.begin(), after.end());
  return {};
}

Status PostProcessor::parse_into(const json::Value& spec, const FieldPath& at, int depth, PostProcessor& p) {
  if (depth > 8) return at.unsupported("", "nests Sequence post-processors too deeply");
  LAYA_ASSIGN_OR_RETURN(const std::string type, read_type(spec, at));
  if (type == "TemplateProcessing") return parse_template(spec, at, p);
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    LAYA_ASSIGN_OR_RETURN(const int32_t cls, pair_id(spec, "cls", at));
    LAYA_ASSIGN_OR_RETURN(const int32_t sep, pair_id(spec, "sep", at));
    p.prefix_.insert(p.prefix_.begin(), cls);
    p.suffix_.push_back(sep);
    return {};
  }
  if (type == "ByteLevel") return {};
  if (type == "Sequence") {
    const json::Value* list = spec.find("processors");
    if (!list || !list->is_array()) return at.invalid("processors", "must be an array");
    const FieldPath list_at = at.child("processors");
    for (size_t i = 0; i < list->items().size(); ++i) {
      LAYA_RETURN_IF_ERROR(parse_into(list->items()[i], list_at.index(i), depth + 1, p));
    }
    return {};
  }
  return at.unsupported("type", "'" + type +
                                    "' is not supported (supported: TemplateProcessing, BertProcessing, "
                                    "RobertaProcessing, ByteLevel, Sequence)");
}

int32_t PostProcessor::max_added_id() const {
  int32_t max_id = -1;
  for (int32_t id : prefix_) max_id = std::max(max_id, id);
  for (int32_t id : suffix_) max_id = std::max(max_id, id);
  return max_id;
}

std::vector<int32_t> PostProcessor::apply(std::vector<int32_t> content, size_t max_length) const {
  const size_t room = max_length > added_count() ? max_length - added_count() : 0;
  if (content.size() > room) content.resize(room);
  std::vector<int32_t> out;
  out.reserve(added_count() + content.size());
  out.insert(out.end(), prefix_.begin(), prefix_.end());
  out.insert(out.end(), content.begin(), content.end());
  out.insert(out.end(), suffix_.begin(), suffix_.end());
  return out;
}

}  // namespace laya::tok
