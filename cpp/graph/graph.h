// The op graph a model builder emits and a backend lowers (ported from seed/plan.rs).
//
// A graph names its activations as values whose size is a row count times a width, and the row
// count is one of the three a batch has: tokens, sequences or markers. Nothing in a graph knows the
// batch size. The engine lowers a graph once per bucket, which fixes the row counts, and the
// planner (plan/layout.h) gives every value an offset in one arena.
//
// Each op struct is its own descriptor: besides its fields it carries its name (kName), the values
// it reads and writes (uses), the weights it reads and how (weights), the checks of its shapes
// (check, graph/check.h) and its arithmetic (flops). Code over ops calls these on whichever op it
// holds, so a new op that lacks one does not compile; graph/ops.cc has the bodies.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include "graph/weights.h"
#include "util/status.h"

namespace laya {

// Attention heads are 64 wide in every Laya encoder and head (laya-spec §3.3).
inline constexpr int64_t kHeadDim = 64;

class OpChecker;
struct Graph;

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

// How many rows each kind of value has, for a batch or for a bucket of batches.
struct RowCounts {
  int64_t tokens = 0;
  int64_t seqs = 0;
  int64_t markers = 0;

  int64_t of(Rows rows) const {
    switch (rows) {
      case Rows::kTokens: return tokens;
      case Rows::kSeqs: return seqs;
      case Rows::kMarkers: return markers;
    }
    return 0;
  }
  friend bool operator==(const RowCounts&, const RowCounts&) = default;
};

// A batch as an op's arithmetic sees it: its row counts, and where each sequence starts
// (seqs + 1 token offsets).
struct BatchRows {
  RowCounts rows;
  std::span<const int32_t> seq_starts;
};

// The values an op reads and the values it writes. An in-place op lists its value in both.
struct OpUses {
  std::vector<ValueId> reads;
  std::vector<ValueId> writes;
};

// The weights an op reads, by how it reads them: matrices multiplied in a GEMM (the loader may
// rearrange them into panels), tables whose rows are looked up by id (they stay in rows), and 1-D
// vectors (norm weights, biases).
struct OpWeights {
  std::vector<WeightId> matrices;
  std::vector<WeightId> tables;
  std::vector<WeightId> vectors;
};

// The members every op declares (see the file comment). `OpChecker` names the op in its messages.
#define LAYA_OP_DESCRIPTOR(name)                                       \
  static constexpr const char* kName = name;                          \
  OpUses uses() const;                                                \
  OpWeights weights() const;                                          \
  Status check(const Graph& graph, const OpChecker& checker) const;  \
  double flops(const Graph& graph, const BatchRows& batch) const;

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
  LAYA_OP_DESCRIPTOR("Embed")
  WeightId table;  // [vocab, width]
  ValueId out;
};

// LayerNorm over each row (biased variance), statistics in f64.
struct LayerNorm {
  LAYA_OP_DESCRIPTOR("LayerNorm")
  ValueId x;
  WeightId w;                 // [width]
  std::optional<WeightId> b;  // [width], if the norm has a bias
  double eps = 1e-5;
  ValueId out;  // same shape as x
};

// out = epilogue(a · wᵀ + b) with w as [n, k].
struct Gemm {
  LAYA_OP_DESCRIPTOR("Gemm")
  ValueId a;  // k wide
  WeightId w;  // [n, k]
  std::optional<WeightId> b;  // [n]
  Epilogue epilogue = Epilogue::kNone;
  ValueId out;  // n wide, as many rows as a
};

// Rotary embedding applied in place to the q and k parts of fused [q | k | v] token rows, with
// positions counted from the start of each sequence; dims j and j + 32 of each 64-wide head pair.
struct Rope {
  LAYA_OP_DESCRIPTOR("Rope")
  ValueId qkv;  // token rows, 3 · heads · 64 wide
  double theta = 10000.0;
};

// Self attention within each sequence over fused [q | k | v] rows, heads of 64, scale 1/8.
struct Attention {
  LAYA_OP_DESCRIPTOR("Attention")
  ValueId qkv;  // token rows, 3 · heads · 64 wide
  std::optional<int64_t> window;  // keys at most this far away on either side, or all of them
  ValueId out;  // token rows, heads · 64 wide
};

// out = gelu(x[:, :n]) * x[:, n:] with x twice as wide as out.
struct GeGlu {
  LAYA_OP_DESCRIPTOR("GeGlu")
  ValueId x;
  ValueId out;
};

// Adds table[qtype[s]] to every row of sequence s, in place.
struct AddType {
  LAYA_OP_DESCRIPTOR("AddType")
  ValueId h;  // token rows
  WeightId table;  // [types, width]
};

// The token row of each marker.
struct GatherMarkers {
  LAYA_OP_DESCRIPTOR("GatherMarkers")
  ValueId h;    // token rows
  ValueId out;  // marker rows
};

// Per sequence: its first row followed by [top1, top1 - top2, entropy / ln k, k / 255] over the
// softmax of its markers' logits (k = max(markers, 2)), Laya's act head input (laya-spec §3.8).
struct ActFeatures {
  LAYA_OP_DESCRIPTOR("ActFeatures")
  ValueId h;       // token rows
  ValueId logits;  // marker rows, one wide
  ValueId out;     // sequence rows, h's width + 4
};

// Per sequence, the mean of its token rows (laya-spec §3.10).
struct MeanPool {
  LAYA_OP_DESCRIPTOR("MeanPool")
  ValueId h;    // token rows
  ValueId out;  // sequence rows, as wide as h
};

}  // namespace ops

// One step of a graph. Visit it with no catch-all, so adding an op lists every place to handle it.
using Op = std::variant<ops::Embed, ops::LayerNorm, ops::Gemm, ops::Rope, ops::Attention, ops::GeGlu,
                        ops::AddType, ops::GatherMarkers, ops::ActFeatures, ops::MeanPool>;

// The descriptor of whichever op `op` holds.
const char* op_name(const Op& op);
OpUses uses(const Op& op);
OpWeights weights_of(const Op& op);
double op_flops(const Op& op, const Graph& graph, const BatchRows& batch);

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

#undef LAYA_OP_DESCRIPTOR

}  // namespace laya
