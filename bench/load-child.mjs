// One measured load in a fresh process: prints one JSON line. The baseline is the RSS
// after the wasm module and tokenizer were loaded once (loadPipeline, then disposed and collected),
// so "peak above baseline" is what the checkpoint's weights cost. Run with --expose-gc.
// With `raw` instead of a source it only reads model.safetensors into a fresh WebAssembly.Memory in
// 16 MB chunks, as the package's file reader does: the machine's floor for a load (page faults of
// fresh memory included), with no engine involved.
// With `write` it writes as many bytes as model.safetensors has to a new file in `into` (a folder),
// in 8 MiB writes, as a store does, then removes it: what storing a download costs this machine's
// kernel (page cache), whoever writes it.
// Usage: node --expose-gc bench/load-child.mjs <directory | http://base-url> [repo]
//        node bench/load-child.mjs raw <directory>
//        node bench/load-child.mjs write <directory> <into>
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

if (process.argv[2] === 'raw') {
  const file = path.join(process.argv[3], 'model.safetensors');
  const size = fs.statSync(file).size;
  const t0 = performance.now();
  const memory = new WebAssembly.Memory({ initial: Math.ceil(size / 65536) });
  const heap = new Uint8Array(memory.buffer);
  const fh = await fs.promises.open(file, 'r');
  for (let pos = 0; pos < size;) {
    const { bytesRead } = await fh.read(heap, pos, Math.min(16 << 20, size - pos), pos);
    pos += bytesRead;
  }
  await fh.close();
  console.log(JSON.stringify({ seconds: (performance.now() - t0) / 1000, bytes: size, peakRss: process.resourceUsage().maxRSS * 1024 }));
  process.exit(0);
}
if (process.argv[2] === 'write') {
  const size = fs.statSync(path.join(process.argv[3], 'model.safetensors')).size;
  const target = path.join(process.argv[4], `laya-write-${process.pid}.bin`);
  const piece = new Uint8Array(8 << 20).fill(7);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const fd = fs.openSync(target, 'w');
  try {
    for (let pos = 0; pos < size; pos += piece.byteLength) fs.writeSync(fd, piece, 0, Math.min(piece.byteLength, size - pos), pos);
  } finally {
    fs.closeSync(fd);
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  fs.rmSync(target);
  console.log(JSON.stringify({ seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, bytes: size }));
  process.exit(0);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { load, loadPipeline } = await import(path.join(root, 'dist/index.node.js'));
const [where, repo] = process.argv.slice(2);
const source = where.startsWith('http') ? { repo, hubUrl: where, revision: 'main' } : { directory: where };
const quiet = { onWarning: () => undefined };

const pipeline = await loadPipeline(source, quiet);
pipeline.dispose();
globalThis.gc?.();
await new Promise((r) => setTimeout(r, 50));
globalThis.gc?.();
const baselineRss = process.memoryUsage().rss;
const baselineMaxRss = process.resourceUsage().maxRSS * 1024;

let totalBytes = 0;
let firstByte = null;
let lastByte = null;
const t0 = performance.now();
const model = await load(source, {
  ...quiet,
  onProgress: (e) => {
    if (e.type === 'total') totalBytes = e.total;
    if (e.type === 'download' && e.file === 'model.safetensors' && e.loaded > 0 && firstByte === null) firstByte = performance.now();
    if (e.type === 'download' && e.file === 'model.safetensors' && e.loaded === e.total) lastByte = performance.now();
  },
});
const seconds = (performance.now() - t0) / 1000;
const peakRss = process.resourceUsage().maxRSS * 1024;
const mem = model.memory();
const afterRss = process.memoryUsage().rss;
console.log(JSON.stringify({
  seconds, firstByteSeconds: firstByte === null ? null : (firstByte - t0) / 1000,
  lastByteSeconds: lastByte === null ? null : (lastByte - t0) / 1000, totalBytes,
  baselineRss, baselineMaxRss, peakRss, afterRss, memory: mem,
}));
model.dispose();
