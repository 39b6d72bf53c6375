#!/usr/bin/env bash
# The npm package as a user gets it: `npm pack` (needs npm run build), installed into a fresh
# temporary project (offline: no dependencies), then used from a Node ESM script, from TypeScript
# (the shipped declarations), through `npx laya-wasm forward`, and from an esbuild-bundled page in
# Chromium, Firefox and WebKit (tests/js/helpers/browsers/); every forward output is checked against the tiny reference fixture (1e-4).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
checkpoint="$repo/tests/data/fixtures/reference/tiny-fanin/checkpoint"
consumer="$repo/tests/js/package/consumer"
[ -f "$repo/dist/index.node.js" ] && [ -f "$repo/dist/wasm/laya-core.wasm" ] || {
  echo "package-test: dist/ is not built (npm run build)" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/laya-package-test.XXXXXX")"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== npm pack"
tarball="$(cd "$repo" && npm pack --silent --pack-destination "$work" | tail -n 1)"
echo "$tarball"
if tar -tzf "$work/$tarball" | grep -v '^package/dist/\|^package/package.json$\|^package/README.md$\|^package/LICENSE' ; then
  echo "package-test: the tarball holds files outside dist/ (listed above)" >&2; exit 1
fi

echo "== a fresh project installs the tarball"
mkdir "$work/project"
cd "$work/project"
npm init -y >/dev/null
npm pkg set type=module >/dev/null
npm install --prefer-offline --no-audit --no-fund --silent "$work/$tarball"

echo "== Node: import 'laya-wasm'"
cp "$consumer/node-check.mjs" .
node node-check.mjs "$checkpoint"

echo "== TypeScript: the shipped declarations"
cat > consumer.ts <<'TS'
import { load, LayaError, type LayaModel, type LayaResponse } from 'laya-wasm';
export async function ask(dir: string): Promise<LayaResponse> {
  const model: LayaModel = await load({ directory: dir }, { wasm: { moduleUrl: new URL('./x.js', import.meta.url) } });
  try {
    return await model.predict('text', { q: { type: 'noul', instructions: 'ok?' } });
  } catch (error) {
    throw error instanceof LayaError ? new Error(error.code) : error;
  } finally {
    model.dispose();
  }
}
TS
node "$repo/node_modules/typescript/bin/tsc" --noEmit --strict --module nodenext --moduleResolution nodenext \
  --target es2022 --skipLibCheck false --types node --typeRoots "$repo/node_modules/@types" consumer.ts
echo "types: ok"

echo "== CLI: npx laya-wasm forward"
node -e "const f=require('$checkpoint/../fixture.json'); require('fs').writeFileSync('inputs.json', JSON.stringify({inputs: f.inputs, embed_inputs: f.embed_inputs}))"
npx --no-install laya-wasm forward --model "$checkpoint" --inputs inputs.json --out out.json
node "$consumer/compare-forward.mjs" out.json "$checkpoint/../fixture.json"

echo "== browser: a page bundled with esbuild from the installed package"
mkdir -p site/js
cp "$consumer/page.mjs" "$consumer/index.html" .
cp index.html site/
"$repo/node_modules/.bin/esbuild" page.mjs --bundle --format=esm --platform=browser --target=es2022 \
  --outfile=site/js/app.js --log-level=warning
if grep -q '"node:\|from "node:\|require("node:' site/js/app.js; then
  echo "package-test: the browser bundle imports Node modules" >&2; exit 1
fi
# esbuild bundles the ES-module glue but, unlike Vite and webpack (tests/js/bundlers/), does not
# emit the files it finds with new URL(..., import.meta.url): they go beside the bundle by hand.
cp node_modules/laya-wasm/dist/wasm/*.wasm node_modules/laya-wasm/dist/wasm/*.mjs site/js/
node "$repo/scripts/serve-demo.mjs" --port 0 --mount "/app/=$work/project/site" --mount "/ckpt/=$checkpoint" \
  --mount "/fixture/=$checkpoint/.." > server.log &
server_pid=$!
for _ in $(seq 50); do grep -q 'laya-wasm demo:' server.log && break; sleep 0.1; done
origin="$(sed -n 's|laya-wasm demo: \(http://[^/]*\)/.*|\1|p' server.log)"
[ -n "$origin" ] || { echo "package-test: the server did not start" >&2; cat server.log >&2; exit 1; }
mkdir -p "$repo/build/screenshots"
node "$consumer/browser-check.mjs" "$origin/app/index.html" "$repo/build/screenshots/package-page"
echo "package test: ok"
