// The op graph a model builder emits and a backend lowers (ported from seed/plan.rs).
//
// A graph names its activations as values whose size is a row count times a width, and the row
// count is one of the three a batch has: tokens, sequences or markers. Nothing in a graph knows the
// batch size. The engine lowers a graph once per bucket, which fixes the row counts, and the
// planner (plan/layout.h) gives every value an offset in one arena.
#pragma once

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "graph/weights.h"

namespace laya {

// An activation in a graph, an index into Graph::values.
struct ValueId {
  uint32_t index = 0;
  friend bool operator==(ValueId, ValueId) = default;
};

// What a value has one row per.
enum class Rows { kTokens, kSeqs, kMarkers };

// The shape of a value: rows of `width` f32.
struct Shape {
  Rows rows = Rows::kTokens;
  int64_t width = 0;
};

// What a GEMM does to each output element after the bias.
enum class Epilogue {
  kNone,        // store it
  kGelu,        // store the exact (erf) GELU of it
  kRelu,        // store max(0, x)
  kAccumulate,  // add it to what `out` already holds: the residual connection
};

namespace ops {

// out[i] = table[ids[i]], token rows.
struct Embed {
  WeightId table;  // [vocab, width]
  ValueId out;
};

// LayerNorm over each row (biased variance), statistics in f64.
struct LayerNorm {
  ValueId x;
  WeightId w;                 // [width]
  std::optional<WeightId> b;  // [width], if the norm has a bias
  double eps = 1e-5;
  ValueId out;  // same shape as x
};

// out = epilogue(a · wᵀ + b) with w as [n, k].
struct Gemm {
  ValueId a;  // k wide
  WeightId w;  // [n, k]
  std::optional<WeightId> b;  // [n]
  Epilogue epilogue = Epilogue::kNone;
  ValueId out;  // n wide, as many rows as a
};

// Rotary embedding applied in place to the q and k parts of fused [q | k | v] token rows, with
// positions counted from the start of each sequence; dims j and j + 32 of each 64-wide head pair.
struct Rope {
  ValueId qkv;  // token rows, 3 · heads · 64 wide
  double theta = 10000.0;
};

// Self attention within each sequence over fused [q | k | v] rows, heads of 64, scale 1/8.
struct Attention {
  ValueId qkv;  // token rows, 3 · heads · 64 wide
  std::optional<int64_t> window;  // keys at most this far away on either side, or all of them
  ValueId out;  // token rows, heads · 64 wide
};

// out = gelu(x[:, :n]) * x[:, n:] with x twice as wide as out.
struct GeGlu {
  ValueId x;
  ValueId out;
};

// Adds table[qtype[s]] to every row of sequence s, in place.
struct AddType {
  ValueId h;  // token rows
  WeightId table;  // [types, width]
};

// The token row of each marker.
struct GatherMarkers {
  ValueId h;    // token rows
  ValueId out;  // marker rows
};

// Per sequence: its first row followed by [top1, top1 - top2, entropy / ln k, k / 255] over the
// softmax of its markers' logits (k = max(markers, 2)), Laya's act head input (laya-spec §3.8).
struct ActFeatures {
  ValueId h;       // token rows
  ValueId logits;  // marker rows, one wide
  ValueId out;     // sequence rows, h's width + 4
};

// Per sequence, the mean of its token rows (laya-spec §3.10).
struct MeanPool {
  ValueId h;    // token rows
  ValueId out;  // sequence rows, as wide as h
};

}  // namespace ops

// One step of a graph. Visit it with no catch-all, so adding an op lists every place to handle it.
using Op = std::variant<ops::Embed, ops::LayerNorm, ops::Gemm, ops::Rope, ops::Attention, ops::GeGlu,
                        ops::AddType, ops::GatherMarkers, ops::ActFeatures, ops::MeanPool>;

// The values an op reads and the values it writes. An in-place op lists its value in both.
struct OpUses {
  std::vector<ValueId> reads;
  std::vector<ValueId> writes;
};
OpUses uses(const Op& op);

// A model's forward pass as ops over values.
struct Graph {
  std::vector<Shape> values;  // the shape of every value
  std::vector<Op> ops;        // in the order they run
  std::optional<ValueId> logits;  // marker rows, one wide: one logit per option
  std::optional<ValueId> act;     // sequence rows, the act head's logits
  std::optional<ValueId> pooled;  // sequence rows, the pooled embedding of each sequence

  ValueId value(Rows rows, int64_t width);
  const Shape& shape(ValueId v) const { return values[v.index]; }
  void push(Op op) { ops.push_back(std::move(op)); }
  // The outputs that are set, in the order logits, act, pooled.
  std::vector<ValueId> outputs() const;
};

}  // namespace laya
