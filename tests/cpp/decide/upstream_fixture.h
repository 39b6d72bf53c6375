// Loads the upstream recorded cases (tests/data/fixtures/upstream: cases.jsonl + recorded.jsonl, same
// order) for the decide tests, and the checkpoint config they were recorded with.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "util/json.h"

namespace laya::decide::testing {

inline std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::istringstream in(read_text_file(path));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

inline json::Value parse_or_fail(const std::string& text, const std::string& what) {
  auto v = json::parse(text, what, {.allow_nonfinite = true});
  REQUIRE_MESSAGE(v.ok(), (v.ok() ? "" : v.error().message));
  return std::move(v).value();
}

template <class T>
std::vector<T> numbers(const json::Value& array) {
  std::vector<T> out;
  for (const json::Value& v : array.items()) out.push_back(static_cast<T>(v.as_double()));
  return out;
}

struct RecordedQuestion {
  std::string qid;
  std::string type;    // "choice", "score" or "noul"
  json::Value pieces;  // head, options, state, head_ids, option_ids, state_ids
  std::vector<int32_t> ids, markers;
  std::vector<float> logits;  // shortest round-trip doubles of f32 values: exact as float
  std::vector<float> act;     // "act_probs": the raw act logits
};

struct UpstreamCase {
  std::string id;
  json::Value state, questions;   // the request
  std::vector<RecordedQuestion> recorded;
  json::Value answer;             // upstream's response
  std::string case_line, recorded_line;
};

inline const std::string& upstream_dir() {
  static const std::string dir = std::string(LAYA_FIXTURES_DIR) + "/upstream";
  return dir;
}

inline std::vector<UpstreamCase> load_upstream_cases() {
  const auto cases = read_lines(upstream_dir() + "/cases.jsonl");
  const auto recorded = read_lines(upstream_dir() + "/recorded.jsonl");
  REQUIRE(cases.size() == recorded.size());
  std::vector<UpstreamCase> out;
  for (size_t i = 0; i < cases.size(); ++i) {
    UpstreamCase c;
    c.case_line = cases[i];
    c.recorded_line = recorded[i];
    json::Value request = parse_or_fail(cases[i], "cases.jsonl");
    json::Value record = parse_or_fail(recorded[i], "recorded.jsonl");
    c.id = request.find("id")->as_string();
    REQUIRE(record.find("id")->as_string() == c.id);
    c.state = *request.find("state");
    c.questions = *request.find("questions");
    c.answer = *record.find("answer");
    for (const json::Value& q : record.find("questions")->items()) {
      RecordedQuestion r;
      r.qid = q.find("qid")->as_string();
      r.type = q.find("type")->as_string();
      r.pieces = *q.find("pieces");
      r.ids = numbers<int32_t>(*q.find("ids"));
      r.markers = numbers<int32_t>(*q.find("markers"));
      r.logits = numbers<float>(*q.find("logits"));
      r.act = numbers<float>(*q.find("act_probs"));
      c.recorded.push_back(std::move(r));
    }
    out.push_back(std::move(c));
  }
  return out;
}

inline json::Value upstream_config() {
  return parse_or_fail(read_text_file(upstream_dir() + "/english/rl_agent_config.json"), "rl_agent_config.json");
}

}  // namespace laya::decide::testing
