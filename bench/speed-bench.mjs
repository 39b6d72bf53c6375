// Issue 7: laya-wasm vs onnxruntime-web (wasm backend, same thread count) on random F16
// checkpoints shaped like ModernBERT-base and the English (ModernBERT-large) model, in one command.
// The ONNX model is the reference export (tools/reference/export_onnx.py, f32) of the same
// checkpoint. Per engine and model a fresh child process (bench/speed-child.mjs) loads, answers
// once (load-to-first-answer), then times questions of each length (median of --runs after a
// warm-up) and a call of 3 questions of 128 tokens. Prints ms/question, tokens/s, effective GF/s,
// the fraction of the GEMM ceiling when bench/gemm-ceiling has been built, peak memory, ratios,
// and the largest logit / act difference between the engines on one question.
// Usage: node bench/speed-bench.mjs [--runs N] [--lengths 64,128,256,512] [--models base-f16,english-f16]
//                                   [--threads 1,2] [--engines laya,laya-relaxed,laya-q8,ort]
// laya is the plain-SIMD module, laya-relaxed the relaxed-SIMD one (issue 15: fused multiply-add;
// its child runs with Node 20's --experimental-wasm-relaxed-simd); each is reported against its own
// GEMM ceiling (plain / relaxed), and both against onnxruntime-web. laya-q8 is the plain module on
// the same file loaded with { weights: 'q8' } (quantized while it streams), reported against laya.
// With several thread counts each runs both engines; times are process CPU time with 1 thread and
// wall time with more (CPU time then counts every thread).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCheckpoint, kShapes } from './gen-checkpoint.mjs';
import { machineLines, median } from './machine.mjs';
import { questionFlops } from './workload.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const args = process.argv.slice(2);
const flag = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const runs = Number(flag('--runs', '2'));
const threadCounts = flag('--threads', '1').split(',').map(Number);
const lengths = flag('--lengths', '64,128,256,512');
const models = flag('--models', 'base-f16,english-f16').split(',');
const engines = flag('--engines', 'laya,laya-relaxed,laya-q8,ort').split(',');
const kLayaEngines = ['laya', 'laya-relaxed', 'laya-q8'];
const ortVersion = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/onnxruntime-web/package.json'), 'utf8')).version;

for (const line of machineLines({ 'onnxruntime-web': ortVersion })) console.log(line);
console.log(`settings: runs ${runs} (median, after one warm-up), threads ${threadCounts.join(', ')}, lengths ${lengths}, models ${models.join(', ')}`);

// The GEMM ceilings (scripts/bench-gemm-ceiling.sh), if built: GF/s of an ideal 4x8 wasm SIMD kernel
// with mul + add (plain) and with relaxed_madd (relaxed). laya-relaxed is measured against the
// relaxed one, laya and onnxruntime-web against the plain one.
const kRelaxedFlag = '--experimental-wasm-relaxed-simd';
const ceilings = {};
for (const [kind, file, flags] of [['plain', 'gemm-ceiling.cjs', []], ['relaxed', 'gemm-ceiling-relaxed.cjs', [kRelaxedFlag]]]) {
  const js = path.join(root, 'build', 'bench', file);
  if (!fs.existsSync(js)) {
    console.log(`GEMM ceiling (${kind}): not built (npm run bench:gemm-ceiling builds and runs it)`);
    continue;
  }
  const out = execFileSync(process.execPath, [...flags, '--no-experimental-fetch', js], { encoding: 'utf8' });
  const m = out.match(/ceiling_gflops=([\d.]+)/);
  if (m) ceilings[kind] = Number(m[1]);
  console.log(`GEMM ceiling (${kind} wasm SIMD 4x8 f32 register tile, L1-resident): ${ceilings[kind]?.toFixed(2)} GF/s`);
}
const ceilingOf = (engine) => ceilings[engine === 'laya-relaxed' ? 'relaxed' : 'plain'] ?? null;

function child(engine, dir, onnx, threads) {
  return new Promise((resolve, reject) => {
    const flags = engine === 'laya-relaxed' ? [kRelaxedFlag] : [];
    const p = spawn(process.execPath, [...flags, '--expose-gc', path.join(here, 'speed-child.mjs'), engine, dir, onnx, String(runs), String(threads), lengths],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.on('exit', (code) => {
      const line = out.trim().split('\n').pop();
      if (code !== 0 || !line) reject(new Error(`${engine} child exited ${code}: ${out.slice(-500)}`));
      else resolve(JSON.parse(line));
    });
  });
}

for (const name of models) {
  const shape = { ...kShapes[name], globalEvery: 3, window: 128 };
  const dir = path.join(root, 'build', 'bench', name);
  generateCheckpoint(dir, kShapes[name], 1234, console.log);
  const onnx = path.join(root, 'build', 'bench', 'onnx', `${name}.onnx`);
  if (engines.includes('ort')) {
    fs.mkdirSync(path.dirname(onnx), { recursive: true });
    execFileSync('/usr/bin/python3', [path.join(root, 'tools/reference/export_onnx.py'), dir, onnx], { stdio: ['ignore', 'inherit', 'ignore'] });
  }
  const fileBytes = fs.statSync(path.join(dir, 'model.safetensors')).size;
  console.log(`\n== ${name}: d ${shape.d}, ${shape.layers} layers, heads ${shape.heads}, intermediate ${shape.inter}, vocab ${shape.vocab}; F16 file ${(fileBytes / 1e9).toFixed(3)} GB`);
  const byThreads = {};
  for (const threads of threadCounts) {
    const res = {};
    byThreads[threads] = res;
    for (const engine of engines) {
      try { res[engine] = await child(engine, dir, onnx, threads); } catch (e) { console.log(`${engine}: FAILED ${e.message}`); }
    }
    report(shape, res, threads);
  }
  for (const engine of kLayaEngines.filter((e) => threadCounts.length > 1 && engines.includes(e))) {
    const [a, b] = [threadCounts[0], threadCounts.at(-1)];
    const ra = byThreads[a][engine], rb = byThreads[b][engine];
    if (ra && rb) {
      const speedups = lengths.split(',').map(Number).map((L) => `${L}: ${(time(ra, L, a) / time(rb, L, b)).toFixed(2)}x`);
      console.log(`  ${engine} ${b} threads vs ${a}: ${speedups.join(', ')} (wall time with ${b}, CPU time with ${a})`);
    }
  }
}

// A run's median time at length L: CPU time with one thread (what the engine itself spent on a
// shared machine), wall time with more.
function time(r, L, threads) { return threads > 1 ? median(r.perLength[L]) : median(r.perLengthCpu[L]); }

function report(shape, res, threads) {
  const clock = threads > 1 ? 'wall' : 'cpu';
  console.log(`  -- ${threads} thread${threads > 1 ? 's' : ''} (times: ${clock})`);
  const row = (label, r, ceiling) => {
    const parts = [];
    for (const L of lengths.split(',').map(Number)) {
      const cpu = time(r, L, threads), wall = median(r.perLength[L]);
      const gf = questionFlops(shape, L) / (cpu / 1000) / 1e9;
      parts.push(`${L}: ${cpu.toFixed(0)} ms ${clock} (${wall.toFixed(0)} wall), ${(L / (cpu / 1000)).toFixed(0)} tok/s, ${gf.toFixed(2)} GF/s${ceiling ? ` = ${((gf / ceiling) * 100).toFixed(0)}% of ceiling` : ''}`);
    }
    console.log(`  ${label.padEnd(18)} ${parts.join(' | ')}`);
  };
  for (const engine of engines) {
    const r = res[engine];
    if (!r) continue;
    const ceiling = ceilingOf(engine);
    console.log(`  [${engine} ${r.version}${r.simd ? `, ${r.simd}-SIMD module` : ''}${ceiling ? `; % of the ${engine === 'laya-relaxed' ? 'relaxed' : 'plain'} ceiling` : ''}]`);
    row('per question', r, ceiling);
    const callCpu = threads > 1 ? median(r.callMs) : median(r.callCpuMs), callWall = median(r.callMs);
    const callGf = (questionFlops(shape, r.callLength) * r.callQuestions) / (callCpu / 1000) / 1e9;
    console.log(`  ${'call of 3 x 128'.padEnd(18)} ${callCpu.toFixed(0)} ms ${clock} (${callWall.toFixed(0)} wall) = ${(callCpu / r.callQuestions).toFixed(0)} ms/question, ${(r.callQuestions * r.callLength / (callCpu / 1000)).toFixed(0)} tok/s, ${callGf.toFixed(2)} GF/s`);
    console.log(`  ${'load'.padEnd(18)} ${r.loadSeconds.toFixed(2)} s wall; load to first answer (128 tokens) ${r.firstAnswerSeconds.toFixed(2)} s wall`);
    const mem = r.memory ? `; wasm memory ${(r.memory.wasmMemoryBytes / 1e9).toFixed(3)} GB (weights ${(r.memory.weightsBytes / 1e9).toFixed(3)}, arena ${(r.memory.arenaBytes / 1e6).toFixed(1)} MB, scratch ${(r.memory.scratchBytes / 1e6).toFixed(1)} MB)` : '';
    console.log(`  ${'peak memory'.padEnd(18)} RSS ${(r.peakRss / 1e9).toFixed(3)} GB${mem}`);
    if (!r.profiles || Object.keys(r.profiles).length === 0) {
      console.log(`  ${'time by step kind'.padEnd(18)} not collected (onnxruntime-web has no per-op timer here)`);
    }
    for (const [L, p] of Object.entries(r.profiles ?? {})) {
      // One extra run per length with the engine's per-step timer on (model.setProfiling).
      const total = p.steps.reduce((a, s) => a + s.ms, 0);
      const kinds = [...p.steps].sort((a, b) => b.ms - a.ms).map((s) => {
        const gf = s.gflop > 0 ? `, ${(s.gflop / (s.ms / 1000)).toFixed(1)} GF/s${ceiling ? ` = ${((s.gflop / (s.ms / 1000) / ceiling) * 100).toFixed(0)}%` : ''}` : '';
        return `${s.kind} ${s.ms.toFixed(0)} ms (${((s.ms / total) * 100).toFixed(1)}%${gf})`;
      });
      console.log(`  ${(L === String(lengths.split(',')[0]) ? 'time by step kind' : '').padEnd(18)} ${L}: ${kinds.join(', ')}`);
    }
  }
  const diff = (a, b) => Math.max(...a.map((x, i) => Math.abs(x - b[i]) / Math.max(1, Math.abs(b[i]))));
  for (const engine of kLayaEngines) {
    const laya = res[engine];
    if (!laya || !res.ort) continue;
    const ratios = lengths.split(',').map(Number).map((L) => `${L}: ${(time(res.ort, L, threads) / time(laya, L, threads)).toFixed(2)}x`);
    const call = threads > 1 ? median(res.ort.callMs) / median(laya.callMs) : median(res.ort.callCpuMs) / median(laya.callCpuMs);
    console.log(`  ratio ORT / ${engine} ${clock} time (>1: ${engine} faster): ${ratios.join(', ')}, call ${call.toFixed(2)}x; load-to-first-answer (wall) ${(res.ort.firstAnswerSeconds / laya.firstAnswerSeconds).toFixed(2)}x`);
    console.log(`  parity ${engine} vs ORT (128-token question): logits max rel diff ${diff(laya.parity.logits, res.ort.parity.logits).toExponential(2)}, act ${diff(laya.parity.act, res.ort.parity.act).toExponential(2)}`);
  }
  for (const [engine, what] of [['laya-relaxed', 'relaxed'], ['laya-q8', 'q8']]) {
    if (!res.laya || !res[engine]) continue;
    const ratios = lengths.split(',').map(Number).map((L) => `${L}: ${(time(res.laya, L, threads) / time(res[engine], L, threads)).toFixed(2)}x`);
    console.log(`  ratio laya / ${engine} ${clock} time (>1: ${what} faster): ${ratios.join(', ')}`);
    console.log(`  parity ${engine} vs laya (128-token question): logits max rel diff ${diff(res[engine].parity.logits, res.laya.parity.logits).toExponential(2)}, act ${diff(res[engine].parity.act, res.laya.parity.act).toExponential(2)}`);
  }
}
