// Typed answers from a question's raw option logits and act logits, as upstream's
// Agent._decode_answers builds them (laya-spec §5): the temperature of the question's bucket, numpy's
// f32 softmax, the per-type fields, entropy confidence, answer_confidence, the act probability,
// every number through Python's round(x, 4), emitted as json.dumps text in upstream's key order.
#pragma once

#include <array>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "decide/confidence.h"
#include "decide/question.h"
#include "util/json.h"
#include "util/status.h"

namespace laya::decide {

inline constexpr double kTemperatureMin = 0.5;  // TEMP_MIN
inline constexpr double kTemperatureMax = 5.0;  // TEMP_MAX

// clamp_temperature(t): float(t) confined to [0.5, 5]; 1.0 when float(t) fails or is not finite.
double clamp_temperature(const json::Value& raw);

// temp_bucket: "<type>:2" for k <= 2, ":3-5", ":6-10", ":11+".
std::string temperature_bucket(QType type, size_t option_count);

// The checkpoint's calibration, already clamped (laya-spec §5.1).
struct Calibration {
  std::array<double, 3> by_type{1.0, 1.0, 1.0};              // `temperature` (choice, score, noul)
  std::vector<std::pair<std::string, double>> by_options;  // `temperature_by_options`, key order

  // temperature_by_options[bucket] when present, else temperature[type].
  double temperature(QType type, size_t option_count) const;
};

struct LoadedCalibration {
  Calibration calibration;
  // Upstream's RuntimeWarning text when a value was changed, empty otherwise.
  std::string warning;
};

// Reads `temperature` (absent: [1, 1, 1]) and `temperature_by_options` (absent: {}) of
// rl_agent_config.json. Values never fail (they are clamped, with the warning); a `temperature`
// that is not a list of 3, or a `temperature_by_options` that is not an object, is
// invalid_checkpoint.
Result<LoadedCalibration> load_calibration(const json::Value& rl_agent_config);

// One question's answer before rounding.
struct Answer {
  std::vector<float> probabilities;  // calibrated, option order
  size_t choice = 0;                 // argmax of probabilities, the first on ties
  double score = 0;                  // Σ i·p_i in f64 (score questions)
  double confidence = 0;             // entropy confidence (choice, score) or max(p1, 1 − p1) (noul)
  double answer_confidence = 0;      // max(p)
  double act_probability = 0;        // softmax(act)[0]
};

// Fails (invalid_checkpoint: only bad weights produce it) when a logit or act logit is not finite,
// naming the question: upstream never returns non-finite probabilities. `logits` holds one value
// per option in slot order (the order of the markers); with an `option_order` the softmax runs in
// slot order and the probabilities are put back in the caller's order before anything else reads
// them. A count that does not match is internal.
Result<Answer> compute_answer(const Question& q, std::span<const float> logits, std::span<const float> act_logits,
                              double temperature);

// Which fields an answer object carries and how.
struct AnswerFields {
  bool answer_confidence = true;  // 0.3.7 has no such field
  bool rendered_legend = false;   // legend values as render_criterion text (0.3.22 on), not echoed
};

// The number the min_confidence gate compares: the rounded answer_confidence when the answer
// carries one, else the rounded confidence.
double gated_value(const Answer& a, const AnswerFields& fields);

// Appends the answer object, e.g. {"type": "noul", "noul": 0.25, "confidence": 0.75,
// "answer_confidence": 0.75, "action": {"act_probability": 1.0}}, then the gate's keys when a
// gate ran.
void append_answer_json(std::string& out, const Question& q, const Answer& a, const AnswerFields& fields,
                        const GateVerdict* gate = nullptr);

}  // namespace laya::decide
