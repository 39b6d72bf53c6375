// One measured process of bench/q8-bench.mjs: loads a checkpoint (or, for `baseline`, only the
// wasm module, configs and tokenizer), answers one question of 128 tokens `runs` times through
// model.forward (one thread), prints one JSON line. Its peak RSS is read by /usr/bin/time -v.
// Usage: node bench/q8-child.mjs <baseline|stored|q8> <directory> [runs]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { question } from './workload.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { load, loadPipeline } = await import(path.resolve(process.env.LAYA_DIST ?? path.join(root, 'dist'), 'index.node.js'));
const [mode, directory, runsText = '3'] = process.argv.slice(2);
// LAYA_CORE_JS: another build of laya-core.js than dist/wasm's.
const wasm = process.env.LAYA_CORE_JS ? { wasm: { moduleUrl: process.env.LAYA_CORE_JS } } : {};
const quiet = { onWarning: () => undefined, threads: 1, ...wasm };
if (mode === 'baseline') {
  const pipeline = await loadPipeline({ directory }, quiet);
  pipeline.dispose();
  console.log(JSON.stringify({ mode }));
  process.exit(0);
}
const t0 = performance.now();
const model = await load({ directory }, { ...quiet, ...(mode === 'q8' ? { weights: 'q8' } : {}) });
const loadSeconds = (performance.now() - t0) / 1000;
const inputs = { inputs: [question(128, 7)] };
const ms = [];
let logits = null;
for (let i = 0; i < Number(runsText); ++i) {
  const c0 = process.cpuUsage();
  const out = await model.forward(inputs);
  const c = process.cpuUsage(c0);
  ms.push((c.user + c.system) / 1000);
  logits = out.expected[0].logits;
}
const memory = model.memory();
model.dispose();
console.log(JSON.stringify({ mode, loadSeconds, ms, logits, weightsBytes: memory.weightsBytes }));
