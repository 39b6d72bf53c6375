// q8 weights on the English shape (docs/q8-format.md): size, peak memory and speed of
//   - the F16 checkpoint as stored,
//   - its q8 conversion (`laya-wasm quantize`), loaded as it is,
//   - the F16 checkpoint loaded with { weights: 'q8' } (quantized while it streams in),
// each in a fresh process under /usr/bin/time -v (peak RSS), against the Node baseline (a process
// that loads the wasm module, configs and tokenizer only). Targets: q8 <= 1.12 bytes per parameter;
// peak RSS of loading and answering one question <= 0.6 x the F16 file + the baseline (both q8
// ways); forward time of one 128-token question no slower than F16 beyond noise.
// Usage: npm run build && node bench/q8-bench.mjs [--runs N] [--model english-f16|base-f16]
// (LAYA_CORE_JS=<laya-core.js> and LAYA_DIST=<dir> use other builds than dist/wasm's and dist's.)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCheckpoint, kShapes } from './gen-checkpoint.mjs';
import { machineLines, median } from './machine.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const args = process.argv.slice(2);
const flag = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const runs = flag('--runs', '3');
const modelName = flag('--model', 'english-f16');
const dir = path.join(root, 'build', 'bench', modelName);
const q8Dir = path.join(root, 'build', 'bench', modelName.replace(/-f16$/, '') + '-q8');

for (const line of machineLines()) console.log(line);
generateCheckpoint(dir, kShapes[modelName], 1234, console.log);
const f16Bytes = fs.statSync(path.join(dir, 'model.safetensors')).size;
const stamp = path.join(q8Dir, 'source-stamp');
const sourceStamp = `${f16Bytes} ${fs.statSync(path.join(dir, 'model.safetensors')).mtimeMs}`;
if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== sourceStamp) {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-v', process.execPath, path.resolve(process.env.LAYA_DIST ?? path.join(root, 'dist'), 'cli.js'), 'quantize', '--model', dir, '--out', q8Dir,
    ...(process.env.LAYA_CORE_JS ? ['--wasm', process.env.LAYA_CORE_JS] : [])],
    { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`quantize failed: ${r.stderr}`);
  const rss = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)[1]) * 1024;
  console.log(`quantize: ${((performance.now() - t0) / 1000).toFixed(1)} s, peak RSS ${(rss / 1e6).toFixed(0)} MB; ${r.stdout.trim()}`);
  fs.writeFileSync(stamp, sourceStamp);
}
const q8Bytes = fs.statSync(path.join(q8Dir, 'model.safetensors')).size;
const s = kShapes[modelName];
let params = 0;
for (const [, shape] of (await import('./gen-checkpoint.mjs')).tensorList(s)) params += shape.reduce((a, b) => a * b, 1);
console.log(`size: F16 ${f16Bytes} bytes (${(f16Bytes / params).toFixed(4)} per parameter), q8 ${q8Bytes} bytes ` +
            `(${(q8Bytes / params).toFixed(4)} per parameter, target <= 1.12), ${params} parameters`);

function child(mode, directory) {
  const r = spawnSync('/usr/bin/time', ['-v', process.execPath, path.join(here, 'q8-child.mjs'), mode, directory, runs], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${mode} ${directory}: ${r.stderr}`);
  const rss = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)[1]) * 1024;
  return { ...JSON.parse(r.stdout.trim().split('\n').pop()), peakRss: rss };
}

const baseline = child('baseline', dir);
console.log(`Node baseline (module, configs, tokenizer): peak RSS ${(baseline.peakRss / 1e6).toFixed(0)} MB`);
const limit = baseline.peakRss + 0.6 * f16Bytes;
const rows = [['F16 as stored', child('stored', dir)], ['q8 file', child('stored', q8Dir)], ["F16 with weights: 'q8'", child('q8', dir)]];
for (const [name, r] of rows) {
  const above = r.peakRss - baseline.peakRss;
  console.log(`${name}: peak RSS ${(r.peakRss / 1e6).toFixed(0)} MB, ${(above / f16Bytes).toFixed(3)} x the F16 file above the baseline` +
              `${name === 'F16 as stored' ? '' : ` (target <= 0.6: ${r.peakRss <= limit ? 'met' : 'NOT met'})`}; weights ${(r.weightsBytes / 1e6).toFixed(0)} MB; ` +
              `load ${r.loadSeconds.toFixed(1)} s; forward of one 128-token question ${median(r.ms).toFixed(0)} ms CPU (median of ${r.ms.length}: ${r.ms.map((x) => x.toFixed(0)).join(', ')})`);
}
const [, f16] = rows[0];
const [, q8file] = rows[1];
const [, q8stream] = rows[2];
console.log(`speed: q8 / F16 forward time ${(median(q8file.ms) / median(f16.ms)).toFixed(3)} (file), ${(median(q8stream.ms) / median(f16.ms)).toFixed(3)} (streamed)`);
const same = JSON.stringify(q8file.logits) === JSON.stringify(q8stream.logits);
let worst = 0;
for (let i = 0; i < f16.logits.length; ++i) worst = Math.max(worst, Math.abs(f16.logits[i] - q8file.logits[i]));
console.log(`q8 file and weights: 'q8' logits identical: ${same}; largest logit difference q8 vs F16: ${worst.toExponential(3)}`);
