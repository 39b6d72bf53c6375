// A tiny graph for the graph checks and the lowering tests: embed, norm, a GEMM, RoPE, attention
// over one head, a residual GEMM and a mean pool, with random weights of three dtypes.
#pragma once

#include <random>
#include <vector>

#include "graph/graph.h"
#include "kernels/kernel_test_util.h"

namespace laya::testing {

// A tiny graph: embed, norm, a GEMM, attention over one head, and an output.
struct TinyGraph {
  std::mt19937 rng{1};
  testing::RandomMatrix table = testing::random_matrix(rng, DType::kF16, 10, 8);
  std::vector<float> norm = testing::random_floats(rng, 8);
  testing::RandomMatrix wqkv = testing::random_matrix(rng, DType::kBF16, 192, 8);
  testing::RandomMatrix wo = testing::random_matrix(rng, DType::kF32, 8, 64);
  Graph g;
  WeightTable w;
  ValueId h, n, qkv, o;

  TinyGraph() {
    w.push_back({"table", DType::kF16, {10, 8}, table.data()});
    w.push_back({"norm", DType::kF32, {8}, reinterpret_cast<const std::byte*>(norm.data())});
    w.push_back({"wqkv", DType::kBF16, {192, 8}, wqkv.data()});
    w.push_back({"wo", DType::kF32, {8, 64}, wo.data()});
    h = g.value(Rows::kTokens, 8);
    n = g.value(Rows::kTokens, 8);
    qkv = g.value(Rows::kTokens, 192);
    o = g.value(Rows::kTokens, 64);
    ValueId pooled = g.value(Rows::kSeqs, 8);
    g.push(ops::Embed{WeightId{0}, h});
    g.push(ops::LayerNorm{h, WeightId{1}, std::nullopt, 1e-5, n});
    g.push(ops::Gemm{n, WeightId{2}, std::nullopt, Epilogue::kNone, qkv});
    g.push(ops::Rope{qkv, 10000.0});
    g.push(ops::Attention{qkv, 2, o});
    g.push(ops::Gemm{o, WeightId{3}, std::nullopt, Epilogue::kAccumulate, h});
    g.push(ops::MeanPool{h, pooled});
    g.pooled = pooled;
  }
};

}  // namespace laya::testing
