#!/usr/bin/env bash
# Runs tools/jsc-fault/drive.js in two jsc shells at once (one per core) and sums what they found.
# Usage: bash tools/jsc-fault/run.sh [rounds per shell, default 1000] [jsc options...]
# (LAYA_RELEASED_CHUNKS: the chunks released before each predict, drive.js, default 200;
# LAYA_MODULE_DIR: the folder of laya-core.js/.wasm, default dist/wasm)
# Needs: apt-get install libjavascriptcoregtk-4.0-bin (the jsc shell), and npm run build (dist/wasm).
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-1000}"
shift || true
command -v jsc >/dev/null || { echo "jsc-fault: no jsc shell: apt-get install libjavascriptcoregtk-4.0-bin" >&2; exit 2; }
module_dir="${LAYA_MODULE_DIR:-dist/wasm}"
[ -f "$module_dir/laya-core.wasm" ] || { echo "jsc-fault: no $module_dir/laya-core.wasm (npm run build makes dist/wasm)" >&2; exit 2; }
out="$(mktemp -d)"
for shell in 1 2; do
  jsc "$@" tools/jsc-fault/drive.js -- "$module_dir" "$rounds" 4 "${LAYA_RELEASED_CHUNKS:-200}" > "$out/$shell.log" 2>&1 &
done
wait
cat "$out"/1.log "$out"/2.log | grep -v ' rounds failed$' || true
echo "jsc $(dpkg-query -W -f '${Version}' libjavascriptcoregtk-4.0-18 2>/dev/null || echo '(version unknown)') $*: $(cat "$out"/*.log | grep ' rounds failed$' | awk '{f += $1; n += $3} END {print f " of " n " rounds failed"}')"
rm -r "$out"
