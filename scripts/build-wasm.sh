#!/usr/bin/env bash
# Builds the two wasm modules with Emscripten and places them where the package loads them from,
# dist/wasm/: laya-core.js/.wasm (SIMD, single-threaded: the `wasm` preset) and laya-core-mt.js/
# .wasm/.worker.js (SIMD + pthreads: the `wasm-mt` preset), chosen at load (web/src/core/).
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs
for preset in wasm wasm-mt; do
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" --target laya_core_module -j"$(nproc)"
done
mkdir -p dist/wasm
cp build/wasm/cpp/bind/laya-core.js build/wasm/cpp/bind/laya-core.wasm dist/wasm/
cp build/wasm-mt/cpp/bind/laya-core-mt.js build/wasm-mt/cpp/bind/laya-core-mt.wasm \
   build/wasm-mt/cpp/bind/laya-core-mt.worker.js dist/wasm/
# The generated loaders are CommonJS; the package is "type": "module".
echo '{"type": "commonjs"}' > dist/wasm/package.json
