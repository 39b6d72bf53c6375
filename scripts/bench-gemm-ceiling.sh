#!/usr/bin/env bash
# Builds bench/gemm_ceiling.cc with em++ (wasm SIMD128, -O3) into build/bench/ and runs it in Node:
# the GF/s of an ideal 4x8 register tile, the ceiling npm run bench reports efficiency against.
# Twice, side by side: plain SIMD (mul + add; gemm-ceiling.cjs) and relaxed SIMD (relaxed_madd;
# gemm-ceiling-relaxed.cjs, its opcode rewritten and checked by scripts/relaxed-simd-rewrite.mjs,
# run with Node 20's --experimental-wasm-relaxed-simd), then their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# em++'s JS optimiser loads Debian's acorn from here (the same as scripts/test.sh sets).
export NODE_PATH=/usr/share/nodejs
mkdir -p build/bench
em++ -O3 -msimd128 -std=c++20 -sEXIT_RUNTIME=1 bench/gemm_ceiling.cc -o build/bench/gemm-ceiling.cjs
em++ -O3 -msimd128 -mrelaxed-simd -DLAYA_RELAXED_SIMD -std=c++20 -sEXIT_RUNTIME=1 bench/gemm_ceiling.cc \
  -o build/bench/gemm-ceiling-relaxed.cjs
node scripts/relaxed-simd-rewrite.mjs build/bench/gemm-ceiling-relaxed.wasm
# Emscripten 3.1.6 would fetch() a file path: --no-experimental-fetch.
plain=$(node --no-experimental-fetch build/bench/gemm-ceiling.cjs | tee /dev/stderr | sed -n 's/^ceiling_gflops=\([0-9.]*\).*/\1/p')
relaxed=$(node --experimental-wasm-relaxed-simd --no-experimental-fetch build/bench/gemm-ceiling-relaxed.cjs | tee /dev/stderr |
  sed -n 's/^ceiling_gflops=\([0-9.]*\).*/\1/p')
echo "ceilings: plain ${plain} GF/s, relaxed ${relaxed} GF/s, relaxed / plain $(node -e "console.log(($relaxed / $plain).toFixed(2))")"
