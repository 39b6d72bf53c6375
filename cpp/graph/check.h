// The checks of a graph against its weights that do not depend on the batch: every backend runs
// them once per graph, before any bucket (the CPU executor at create, the outside backend at load).
// Each op checks its own shapes (its check(), graph/ops.cc) through an OpChecker, which names the op
// and the numbers in every message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/weights.h"
#include "util/status.h"

namespace laya {

// What a weight table holds. kBound: the CPU binder's table, every weight's data present and the
// vectors converted to aligned F32. kPlanned: the header's view (ModelPlan), dtypes as stored and
// data possibly elsewhere (on a GPU), so only names, shapes and dtypes can be checked.
enum class WeightForm { kBound, kPlanned };

// Checks everything about a graph that does not depend on the bucket: value and weight ids in
// range, shapes of values against each other and against the weights, bound vectors as F32,
// every value written before it is read, outputs of the right kind. Weight problems are
// invalid_checkpoint errors, graph problems internal ones.
Status check_graph(const Graph& graph, const WeightTable& weights, WeightForm form = WeightForm::kBound);

// The checks an op's check() is written in; `where` ("op 12 (Gemm)") starts every message.
class OpChecker {
 public:
  OpChecker(const Graph& g, const WeightTable& w, WeightForm form, std::string where)
      : g_(g), w_(w), bound_(form == WeightForm::kBound), where_(std::move(where)) {}

  Error graph_error(const std::string& what) const { return internal_error(where_ + ": " + what); }
  Error weight_error(const std::string& what) const { return invalid_checkpoint(where_ + ": " + what); }

  // Value `v` exists; and has rows of kind `want`; and is `want` wide (`why` says why).
  Status value(ValueId v, const char* role) const;
  Status rows(ValueId v, const char* role, Rows want) const;
  Status width(ValueId v, const char* role, int64_t want, const std::string& why) const;
  // Fused [q | k | v] token rows of 64-wide heads: 3 · heads · 64 wide.
  Status qkv(ValueId v) const;
  // A weight of exactly `want` dims; for vectors (`vector`), also F32 (the binder converts them).
  Result<const WeightView*> weight(WeightId id, const char* role, const std::vector<int64_t>& want, bool vector) const;
  // A matrix with `cols` columns and at least one row (a lookup table: its rows are ids, so it is
  // stored in rows).
  Result<const WeightView*> matrix(WeightId id, const char* role, int64_t cols) const;

 private:
  // The weight `id` names, with data unless it is empty.
  Result<const WeightView*> lookup(WeightId id, const char* role) const;

  const Graph& g_;
  const WeightTable& w_;
  bool bound_;
  std::string where_;
};

}  // namespace laya
