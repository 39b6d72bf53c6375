#!/usr/bin/env bash
# Builds the four wasm modules with Emscripten and places them where the package loads them from,
# dist/wasm/: laya-core.js/.wasm (SIMD, single-threaded: the `wasm` preset), laya-core-mt.js/.wasm/
# .worker.js (SIMD + pthreads: the `wasm-mt` preset), and their relaxed-SIMD builds (fused
# multiply-add: `wasm-relaxed`, `wasm-mt-relaxed`) laya-core-relaxed.* and laya-core-mt-relaxed.*,
# chosen at load (web/src/core/). The relaxed builds' link step rewrites the pre-standard opcode
# and checks it (scripts/relaxed-simd-rewrite.mjs). Each module also comes as an ES module for
# browsers and bundlers, laya-core*.mjs (+ laya-core-mt*.worker.mjs, its module workers), which
# loads the same .wasm (cpp/bind/CMakeLists.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs
for preset in wasm wasm-mt wasm-relaxed wasm-mt-relaxed; do
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" --target laya_core_module laya_core_esm -j"$(nproc)"
done
mkdir -p dist/wasm
cp build/wasm/cpp/bind/laya-core.js build/wasm/cpp/bind/laya-core.wasm dist/wasm/
cp build/wasm-mt/cpp/bind/laya-core-mt.js build/wasm-mt/cpp/bind/laya-core-mt.wasm \
   build/wasm-mt/cpp/bind/laya-core-mt.worker.js dist/wasm/
cp build/wasm-relaxed/cpp/bind/laya-core-relaxed.js build/wasm-relaxed/cpp/bind/laya-core-relaxed.wasm dist/wasm/
cp build/wasm-mt-relaxed/cpp/bind/laya-core-mt-relaxed.js build/wasm-mt-relaxed/cpp/bind/laya-core-mt-relaxed.wasm \
   build/wasm-mt-relaxed/cpp/bind/laya-core-mt-relaxed.worker.js dist/wasm/
# The ES modules: the glue and, for the threaded builds, its module worker. They fetch the .wasm
# copied above, so it must be the very file their own link wrote.
for built in build/wasm/cpp/bind/esm/laya-core build/wasm-mt/cpp/bind/esm/laya-core-mt \
             build/wasm-relaxed/cpp/bind/esm/laya-core-relaxed build/wasm-mt-relaxed/cpp/bind/esm/laya-core-mt-relaxed; do
  name="$(basename "$built")"
  cmp -s "$built.wasm" "dist/wasm/$name.wasm" || {
    echo "build-wasm: $built.wasm differs from dist/wasm/$name.wasm: the ES-module and CommonJS links no longer agree" >&2
    exit 1; }
  cp "$built.mjs" dist/wasm/
  case "$name" in *-mt*) cp "$built.worker.mjs" dist/wasm/ ;; esac
done
# The generated .js loaders are CommonJS; the package is "type": "module" (.mjs are ES modules either way).
echo '{"type": "commonjs"}' > dist/wasm/package.json
