#!/usr/bin/env bash
# The main job: `npm run demo` sets up, builds (wasm module, package, demo bundle, the bundled
# default checkpoint: random weights, real English tokenizer) and serves the demo on
# http://127.0.0.1:8080 until Ctrl-C, cross-origin isolated (COOP/COEP headers: the page may run
# the threaded module; docs/demo-isolation.md).
#   --check         serve on a free port, answer a sample request in a headless browser, print it, exit
#   --browser E     with --check: the engine, chromium (default), firefox or webkit
#   --no-isolation  serve without COOP/COEP: not cross-origin isolated, the single-threaded module
#   --port N        another port;  --no-build  serve what is already built
#   --backend B     with --check: the page's backend, wasm (default), webgpu or auto (WebGPU on SwiftShader here)
set -euo pipefail
cd "$(dirname "$0")/.."

check=0
build=1
serve_args=()
check_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --no-build) build=0 ;;
    --no-isolation) serve_args+=(--no-isolation) ;;
    --port) serve_args+=(--port "$2"); shift ;;
    --backend) check_args+=(--backend "$2"); shift ;;
    --browser) check_args+=(--browser "$2"); shift ;;
    *) echo "demo: unknown option $1 (--check, --no-isolation, --port N, --no-build, --backend B, --browser E)" >&2; exit 2 ;;
  esac
  shift
done

if [ "$build" = 1 ]; then
  bash scripts/setup.sh
  npm run build --silent
  node scripts/build-demo.mjs
  node scripts/make-default-checkpoint.mjs
fi

if [ "$check" = 1 ]; then
  exec node scripts/demo-check.mjs "${serve_args[@]}" "${check_args[@]}"
fi
exec node scripts/serve-demo.mjs "${serve_args[@]}"
