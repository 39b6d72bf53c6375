// Load throughput and peak memory of the English-large-shaped random F16 checkpoint,
// from a local directory and from a local HTTP server in the Hugging Face URL layout. Each load
// runs in a fresh child process (bench/load-child.mjs) so peak RSS is that load's alone.
// Targets: peak RSS above baseline <= 1.1x file size; >= 1 GB/s from a local file in Node.
// Usage: node bench/load-bench.mjs [--runs N] [--model english-f16|base-f16]
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCheckpoint, kShapes } from './gen-checkpoint.mjs';
import { machineLines, median, runChild } from './machine.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const args = process.argv.slice(2);
const flag = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const runs = Number(flag('--runs', '3'));
const modelName = flag('--model', 'english-f16');
const dir = path.join(root, 'build', 'bench', modelName);

for (const line of machineLines()) console.log(line);
const gen = generateCheckpoint(dir, kShapes[modelName], 1234, console.log);
if (gen.reused) console.log(`checkpoint: reused ${dir}`);
const fileBytes = fs.statSync(path.join(dir, 'model.safetensors')).size;
console.log(`checkpoint: ${modelName}, model.safetensors ${(fileBytes / 1e9).toFixed(3)} GB (${fileBytes} bytes)`);

// The Hub layout: /<repo>/resolve/<revision>/<file>, served from `dir` with Content-Length.
const repo = `bench/${modelName}`;
const server = http.createServer((req, res) => {
  const prefix = `/${repo}/resolve/main/`;
  const url = decodeURIComponent((req.url ?? '').split('?')[0]);
  const file = url.startsWith(prefix) ? path.join(dir, url.slice(prefix.length)) : null;
  if (file === null || !file.startsWith(dir + path.sep) || !fs.existsSync(file)) { res.writeHead(404).end(); return; }
  const size = fs.statSync(file).size;
  res.writeHead(200, { 'Content-Length': size, 'Content-Type': 'application/octet-stream' });
  if (req.method === 'HEAD') { res.end(); return; }
  fs.createReadStream(file, { highWaterMark: 4 << 20 }).pipe(res);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const hubUrl = `http://127.0.0.1:${server.address().port}`;

function child(where) {
  const childArgs = where === 'raw' ? ['raw', dir] : [where, repo];
  return runChild(['--expose-gc', path.join(here, 'load-child.mjs'), ...childArgs], { label: `load child for ${where}` });
}

const gb = (b) => (b / 1e9).toFixed(3);
const results = {};
{
  // The floor: the same file read into fresh wasm memory by plain Node, no engine.
  const rs = [];
  for (let i = 0; i < runs; ++i) rs.push(await child('raw'));
  const sec = median(rs.map((r) => r.seconds));
  console.log(`\nfloor, plain fs reads into a fresh WebAssembly.Memory (no engine): ${sec.toFixed(2)} s -> ${(fileBytes / 1e9 / sec).toFixed(3)} GB/s (runs ${rs.map((r) => r.seconds.toFixed(2)).join(' ')})`);
}
for (const [label, where] of [['directory', dir], ['http 127.0.0.1', hubUrl]]) {
  const rs = [];
  for (let i = 0; i < runs; ++i) rs.push(await child(where));
  results[label] = rs;
  const sec = median(rs.map((r) => r.seconds));
  const stream = median(rs.map((r) => r.lastByteSeconds - r.firstByteSeconds));
  const above = median(rs.map((r) => r.peakRss - r.baselineRss));
  const r0 = rs[0];
  console.log(`\n${label}: ${runs} runs (median)`);
  console.log(`  load() wall            ${sec.toFixed(2)} s  -> ${(fileBytes / 1e9 / sec).toFixed(3)} GB/s (target >= 1 GB/s from a local file)`);
  console.log(`  weights stream only    ${stream.toFixed(2)} s  -> ${(fileBytes / 1e9 / stream).toFixed(3)} GB/s (first to last byte of model.safetensors)`);
  console.log(`  before first weight    ${median(rs.map((r) => r.firstByteSeconds)).toFixed(2)} s (module, configs, tokenizer, header plan)`);
  console.log(`  baseline RSS           ${gb(median(rs.map((r) => r.baselineRss)))} GB (module + tokenizer loaded once, disposed)`);
  console.log(`  peak RSS               ${gb(median(rs.map((r) => r.peakRss)))} GB; above baseline ${gb(above)} GB = ${(above / fileBytes).toFixed(3)}x file (target <= 1.1x)`);
  console.log(`  wasm memory            ${gb(r0.memory.wasmMemoryBytes)} GB = ${(r0.memory.wasmMemoryBytes / fileBytes).toFixed(3)}x file; weights ${gb(r0.memory.weightsBytes)} GB, arena with scratch ${gb(r0.memory.arenaBytes + (r0.memory.scratchBytes ?? 0))}`);
  console.log(`  runs (s): ${rs.map((r) => r.seconds.toFixed(2)).join(' ')}`);
}
server.close();
if (args.includes('--json')) console.log(JSON.stringify(results));
