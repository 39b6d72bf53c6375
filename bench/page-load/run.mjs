#!/usr/bin/env node
// `npm run bench:page-load`: how long a page takes to load the English-shaped checkpoint
// (0.84 GB F16, bench/gen-checkpoint.mjs english-f16) from a local server, in Chromium, Firefox and
// WebKitGTK, beside Node loading the same directory, all in one command:
//   wire     the page's plain fetch of model.safetensors, read to its end and dropped (the floor;
//            its peak memory is the engine's own buffering of a download, which no page avoids)
//   first    load() with options.cache on an empty store (download + store in one pass)
//   stored   load() in a new browser on the same profile, from the store (a 304 revalidation,
//            then the store's bytes)
// for each store (the Cache API and the OPFS), each load in a browser of its own, with peak memory
// above the page's baseline (the RSS of the browser's processes, all descendants of this one,
// sampled every 50 ms, above their RSS with the bench page open before the load: summed, and of
// the one process that grew most, the page's), the CPU seconds spent (the browser and the server)
// and the ratios to the targets: first <= 1.5x max(wire, Node), stored <= 1.3x Node. Before the
// browsers, Node writes the file's size to a new file: what storing costs the machine's kernel. (performance.
// measureUserAgentSpecificMemory is not used: in Chromium it leaves out the wasm memory.)
// Also, where asked: the store 'none' (cache off: the load alone, what storing costs on top), and
// --wire-mbps N, the server sending the weights at N MB/s at most (a real link, not loopback), and
// --worker, every load with { worker: true } (the package's worker, from dist/, as the demo loads).
// Usage: node bench/page-load/run.mjs [--engines chromium,firefox,webkit] [--stores cache-api,opfs,none]
//          [--model english-f16] [--node-runs 3] [--wire-mbps N] [--worker]
import { copyFileSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import { Transform } from 'node:stream';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { generateCheckpoint, kShapes } from '../gen-checkpoint.mjs';
import { machineLines, median, runChild } from '../machine.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const args = process.argv.slice(2);
const flag = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const engines = flag('--engines', 'chromium,firefox,webkit').split(',');
const stores = flag('--stores', 'cache-api,opfs').split(',');
const modelName = flag('--model', 'english-f16');
const nodeRuns = Number(flag('--node-runs', '3'));
const wireMbps = flag('--wire-mbps', undefined) === undefined ? undefined : Number(flag('--wire-mbps'));
const inWorker = args.includes('--worker');
const gb = (bytes) => `${(bytes / 1e9).toFixed(2)} GB`;
const fail = (message) => { console.error(`bench:page-load: ${message}`); process.exit(1); };

if (!existsSync(join(root, 'dist', 'wasm', 'laya-core.js'))) fail('dist/wasm/laya-core.js is missing: run npm run build first');
for (const line of machineLines()) console.log(line);
const dir = join(root, 'build', 'bench', modelName);
const gen = generateCheckpoint(dir, kShapes[modelName], 1234, console.log);
if (gen.reused) console.log(`checkpoint: reused ${dir}`);
const fileBytes = statSync(join(dir, 'model.safetensors')).size;
console.log(`checkpoint: ${modelName}, model.safetensors ${(fileBytes / 1e9).toFixed(3)} GB`);
if (wireMbps !== undefined) console.log(`the server sends the weights at ${wireMbps} MB/s at most`);
if (inWorker) console.log('every load with { worker: true }: the package worker from dist/');

// The page: bundled from the package's browser sources, the wasm module from dist/wasm/.
const out = join(root, 'build', 'page-load');
mkdirSync(out, { recursive: true });
await esbuild.build({ entryPoints: [join(here, 'page.mjs')], outfile: join(out, 'app.js'), bundle: true, format: 'esm',
  platform: 'browser', target: 'es2022', conditions: ['browser'], logLevel: 'warning', external: ['../wasm/*'] });
copyFileSync(join(here, 'index.html'), join(out, 'index.html'));

// One server: /page/ (the bench page), /dist/ (the wasm module), /bench/<model>/resolve/main/ (the
// checkpoint in the Hub layout, with Content-Length, an ETag and 304 to a matching If-None-Match).
const repo = `bench/${modelName}`;
const kTypes = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
const server = createServer((req, res) => {
  const url = decodeURIComponent((req.url ?? '').split('?')[0]);
  const routes = [['/page/', out], ['/dist/', join(root, 'dist')], [`/${repo}/resolve/main/`, dir]];
  const route = routes.find(([prefix]) => url.startsWith(prefix));
  const file = route === undefined ? null : resolve(route[1], url.slice(route[0].length) || 'index.html');
  if (file === null || !file.startsWith(route[1] + sep) || !existsSync(file) || !statSync(file).isFile()) { res.writeHead(404).end(); return; }
  const stat = statSync(file);
  const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
  const headers = { 'content-type': kTypes[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream', etag,
    'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp', 'cache-control': 'no-cache' };
  if (req.headers['if-none-match'] === etag) { res.writeHead(304, headers).end(); return; }
  res.writeHead(200, { ...headers, 'content-length': String(stat.size) });
  const body = createReadStream(file, { highWaterMark: 4 << 20 });
  (wireMbps === undefined || stat.size < 1e6 ? body : body.pipe(paced(wireMbps))).pipe(res);
});

/** Passes bytes on no faster than `mbps` MB/s (each chunk waits until the rate allows it). */
function paced(mbps) {
  const start = performance.now();
  let sent = 0;
  return new Transform({
    transform(chunk, _encoding, done) {
      sent += chunk.length;
      const due = start + (sent / (mbps * 1e6)) * 1000;
      setTimeout(() => done(null, chunk), Math.max(0, due - performance.now()));
    },
  });
}
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${server.address().port}`;
const weightsUrl = `${origin}/${repo}/resolve/main/model.safetensors`;
const moduleUrl = `${origin}/dist/wasm/laya-core.js`;

// Node's directory load, each in a fresh process (bench/load-child.mjs), the baseline of both targets.
const nodeLoads = [];
for (let i = 0; i < nodeRuns; ++i) nodeLoads.push(await runChild(['--expose-gc', join(here, '..', 'load-child.mjs'), dir], { label: 'node load child' }));
const nodeSeconds = median(nodeLoads.map((r) => r.seconds));
console.log(`\nNode, directory load: ${nodeSeconds.toFixed(2)} s (median of ${nodeRuns}: ${nodeLoads.map((r) => r.seconds.toFixed(2)).join(' ')})`);
// What storing the file costs this machine whoever writes it: the file's size written to a new file
// beside the browsers' profiles, each after a 3 s pause. The pause matters on a VM: the kernel's CPU
// cost is far higher when the page cache's pages are new to the guest than right after another
// file was removed (its pages reused before the guest gave them back).
const diskWrites = [];
for (let i = 0; i < nodeRuns; ++i) {
  await new Promise((r) => setTimeout(r, 3000));
  diskWrites.push(await runChild([join(here, '..', 'load-child.mjs'), 'write', dir, tmpdir()], { label: 'write child' }));
}
const diskWrite = diskWrites.sort((a, b) => a.seconds - b.seconds)[Math.floor(diskWrites.length / 2)];
console.log(`Node, writing ${gb(fileBytes)} to a new file (median of ${nodeRuns}): ${diskWrite.seconds.toFixed(2)} s, CPU ${diskWrite.cpuSeconds.toFixed(2)} s ` +
  `(${diskWrites.map((r) => r.seconds.toFixed(2)).join(' ')} s)`);

/** RSS of every descendant of this process (the browser and its helpers), by pid, with its command's name. */
function descendantsRss() {
  const children = new Map();
  const rss = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      // utime + stime (clock ticks: 100 a second on Linux), for the CPU a measurement took.
      rss.set(Number(name), { bytes: Number(fields[21]) * 4096, cpu: (Number(fields[11]) + Number(fields[12])) / 100,
        name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) });
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch { /* gone */ }
  }
  const mine = new Map();
  const stack = [...(children.get(process.pid) ?? [])];
  while (stack.length > 0) {
    const pid = stack.pop();
    if (rss.has(pid)) mine.set(pid, rss.get(pid));
    stack.push(...(children.get(pid) ?? []));
  }
  return mine;
}

/** A process's name with Chromium's --type (its processes all share one name), read once per process. */
function processName(pid, name) {
  try {
    const type = /--type=([\w-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '))?.[1];
    return type === undefined ? name : `${name} ${type}`;
  } catch {
    return name;
  }
}

const totalOf = (sample) => [...sample.values()].reduce((sum, p) => sum + p.bytes, 0);
/** CPU seconds so far of the browser's processes and of this one (the server). */
const cpuOf = (sample) => [...sample.values()].reduce((sum, p) => sum + p.cpu, 0) +
  (process.cpuUsage().user + process.cpuUsage().system) / 1e6;

/**
 * `fn()` while sampling descendantsRss() every 50 ms: its result, the peak of the processes' sum
 * above `baseline` (the browser's RSS with the bench page open before any load: an upper bound, a
 * previous document's memory that the engine has not yet freed counts too), and the one process
 * whose own peak above its baseline is largest: the page's (renderer, content or web process) in
 * a load, the network's in a wire read; the "page memory" of the targets.
 */
async function withPeakRss(baseline, fn) {
  let peak = 0;
  const own = new Map();
  const sample = () => {
    const now = descendantsRss();
    peak = Math.max(peak, totalOf(now));
    for (const [pid, p] of now) {
      const was = own.get(pid) ?? { base: baseline.get(pid)?.bytes ?? 0, peak: 0, name: processName(pid, p.name) };
      own.set(pid, { ...was, peak: Math.max(was.peak, p.bytes) });
    }
  };
  sample();
  const cpuBefore = cpuOf(descendantsRss());
  const started = performance.now();
  const timer = setInterval(sample, 50);
  try {
    const result = await fn();
    sample();
    const cpuSeconds = cpuOf(descendantsRss()) - cpuBefore;
    // The page's work can outlast its timed part (a load's commit, until model.stored).
    const busySeconds = (performance.now() - started) / 1000;
    const top = [...own.values()].map((p) => ({ name: p.name, above: Math.max(0, p.peak - p.base) })).sort((a, b) => b.above - a.above)[0];
    return { ...result, peakAbove: Math.max(0, peak - totalOf(baseline)), topProcess: top, cpuSeconds, busySeconds };
  } finally {
    clearInterval(timer);
  }
}

/**
 * A launched engine through the browser seam (tests/js/helpers/browsers/), on the persistent
 * profile `profileDir`, as a real page stores: the seam's default sessions keep storage in memory
 * (Chromium's fresh contexts, with a quota too small for 0.84 GB) or ephemeral (WebKit's WebDriver
 * session, whose Cache API entries a reload did not find), and a reload there re-downloads.
 */
async function launch(name, profileDir) {
  const { engineNamed } = await import(pathToFileURL(join(root, 'tests', 'js', 'helpers', 'browsers', 'engines.mjs')).href);
  // WebKit with the storage features Safari has on (WebKitGTK ships them off: no OPFS otherwise).
  return engineNamed(name).launch({ profileDir, safariStorage: true });
}

const pageUrl = `${origin}/page/index.html`;
const ready = (page) => page.evaluate(async () => {
  for (let i = 0; i < 600 && document.body?.dataset.ready !== 'true'; i++) await new Promise((r) => setTimeout(r, 50));
  return document.body?.dataset.ready === 'true';
});
/** The process that grew most in a measurement, and by how much. */
const topLine = (measured) => `${measured.topProcess.name} ${gb(measured.topProcess.above)} (${(measured.topProcess.above / fileBytes).toFixed(2)}x)`;
/** CPU seconds a measurement took in the browser and the server, and the mean cores busy while it ran. */
const cpuLine = (measured) => `CPU ${measured.cpuSeconds.toFixed(2)} s in ${measured.busySeconds.toFixed(2)} s (${(measured.cpuSeconds / measured.busySeconds).toFixed(2)} cores)`;

/**
 * `fn(page)` in a browser of its own on `profileDir`, started for it and closed after it: so a
 * load's peak memory counts nothing of an earlier load or of the wire read (a reloaded page's
 * old memory is freed when the engine gets round to it, and counted until then), and the load
 * after a "reload" is what a returning visitor gets, a new browser on the same profile.
 */
async function inFreshBrowser(name, profileDir, fn) {
  const browser = await launch(name, profileDir);
  try {
    const page = await browser.open(pageUrl);
    if (!await ready(page)) throw new Error('the bench page did not start');
    return { version: browser.version, result: await fn(page) };
  } finally {
    await browser.close().catch(() => undefined);
  }
}

/** One load in a fresh browser, with the peak RSS of the browser's processes above theirs with the page open. */
function measuredLoad(name, profileDir, arg) {
  return inFreshBrowser(name, profileDir, (page) => withPeakRss(descendantsRss(), () => page.evaluate((a) => window.pageLoadBench.load(a), arg)));
}

const rows = [];
// A fresh profile per engine and store: an origin's quota (1 GB in WebKitGTK) is shared by its
// stores, and a store emptied on the same profile did not give its 0.84 GB back in time for the
// other store's first load (it then loaded unstored: "the browser gives this site 0.2 GB").
for (const [name, store] of engines.flatMap((engine) => stores.map((one) => [engine, one]))) {
  const profileDir = mkdtempSync(join(tmpdir(), `laya-page-load-${name}-`));
  try {
    const arg = { hubUrl: origin, repo, store, moduleUrl, inWorker };
    const { version, result: first } = await measuredLoad(name, profileDir, arg);
    console.log(`\n${version}`);
    // Unstored, the second load is the first again: not measured.
    const { result: stored } = store === 'none' ? { result: null } : await measuredLoad(name, profileDir, arg);
    // The wire time and the reads of the store alone, in a browser of their own after the loads.
    const { result: probes } = await inFreshBrowser(name, profileDir, async (page) => ({
      wire: await withPeakRss(descendantsRss(), () => page.evaluate((url) => window.pageLoadBench.wire(url), weightsUrl)),
      opfs: store === 'opfs' ? await page.evaluate(() => window.pageLoadBench.readOpfs()) : undefined,
      cache: store === 'cache-api' ? await page.evaluate((url) => window.pageLoadBench.readStore(url), weightsUrl) : undefined,
    }));
    const { wire } = probes;
    console.log(`  wire: ${wire.seconds.toFixed(2)} s (${(wire.bytes / 1e6 / wire.seconds).toFixed(0)} MB/s), peak RSS above the page's ${gb(wire.peakAbove)} ` +
      `(${(wire.peakAbove / fileBytes).toFixed(2)}x the file: the engine's own buffering of a download read and dropped; ${topLine(wire)}), ${cpuLine(wire)}`);
    const target = Math.max(wire.seconds, nodeSeconds);
    const row = { engine: version, store, wire: wire.seconds, wirePeak: wire.peakAbove, first: first.seconds, stored: stored?.seconds,
      firstRatio: first.seconds / target, storedRatio: stored === null ? undefined : stored.seconds / nodeSeconds,
      firstStatus: first.weightsStatus, storedStatus: stored?.weightsStatus, storedFromStore: stored?.weightsFromStore,
      firstPeak: first.peakAbove, storedPeak: stored?.peakAbove, firstTop: first.topProcess, firstCpu: first.cpuSeconds, storedCpu: stored?.cpuSeconds, wireCpu: wire.cpuSeconds, storedTop: stored?.topProcess, wireTop: wire.topProcess, warnings: [...first.warnings, ...stored?.warnings ?? []] };
    rows.push(row);
    console.log(`  ${store}: first ${first.seconds.toFixed(2)} s (${row.firstRatio.toFixed(2)}x max(wire, Node); target <= 1.5x), ` +
      (stored === null ? '' : `stored ${stored.seconds.toFixed(2)} s (${row.storedRatio.toFixed(2)}x Node; target <= 1.3x; weights answered ${first.weightsStatus ?? '(in the worker)'}, then ${stored.weightsStatus ?? '(in the worker)'}, ` +
        `${stored.weightsFromStore ? 'read from the store' : 'NOT read from the store'}), `) +
      `peak RSS above the page's: first ${gb(first.peakAbove)} (${(first.peakAbove / fileBytes).toFixed(2)}x the file)` +
      (stored === null ? '' : `, stored ${gb(stored.peakAbove)} (${(stored.peakAbove / fileBytes).toFixed(2)}x)`) +
      `; of one process: first ${topLine(first)}` + (stored === null ? '' : `, stored ${topLine(stored)}`));
    for (const [label, load] of [['first', first], ['stored', stored]].filter(([, l]) => l !== null)) {
      const { weightsFirst, weightsLast, stored: storedAt } = load.phases;
      console.log(`    ${label}: the weights' first bytes in at ${weightsFirst?.toFixed(2)} s, all in at ${weightsLast?.toFixed(2)} s, loaded at ${load.seconds.toFixed(2)} s, ${cpuLine(load)}` +
        (label === 'first' ? `, stored (model.stored) at ${storedAt?.toFixed(2)} s` : ''));
    }
    for (const w of row.warnings) console.log(`    warning: ${w}`);
    const { opfs, cache } = probes;
    if (opfs?.found) {
      console.log(`    reading the stored weights alone as a File: ${opfs.slices.map((s) => `${s.mib} MiB slices ${s.inFlight} at once ${s.seconds.toFixed(2)} s`).join(', ')}, ` +
        `file.stream() ${opfs.stream.seconds.toFixed(2)} s in ${opfs.stream.chunks} chunks`);
      row.readOpfs = opfs;
    }
    if (cache !== undefined && !cache.found) console.log('    reading the stored weights alone: the Cache API has no entry for them in this fresh page');
    if (cache?.cacheStream !== undefined) {
      console.log(`    reading the stored weights alone: cache.match() ${cache.matchSeconds.toFixed(2)} s, then its body stream ${cache.cacheStream.seconds.toFixed(2)} s in ${cache.cacheStream.chunks} chunks ` +
        `(${(cache.cacheStream.meanChunk / 1024).toFixed(0)} KiB each), Blob in 16 MiB slices ${cache.cacheSlices.seconds.toFixed(2)} s ` +
        `(of which response.blob() ${cache.cacheSlices.blobSeconds.toFixed(2)} s)`);
      row.readStore = cache;
    }
  } catch (error) {
    console.log(`\n${name} ${store}: not measured: ${error.stack ?? error.message}`);
    rows.push({ engine: name, store, error: error.message });
  } finally {
    rmSync(profileDir, { recursive: true, force: true });
  }
}
server.close();
// The table for the README: one row per engine and store.
console.log(`\n| engine | store | wire | first load | from the store | first / max(wire, Node) (<= 1.5) | store / Node (<= 1.3) | peak RSS above the page, first / stored (wire) |`);
console.log('|---|---|---|---|---|---|---|---|');
console.log(`| Node ${process.version} | directory | | ${nodeSeconds.toFixed(2)} s | | | | |`);
for (const r of rows.filter((row) => row.error === undefined)) {
  const fromStore = r.stored === undefined ? '(not stored) |' : `${r.stored.toFixed(2)} s${r.storedFromStore ? '' : ' (not from the store)'} |`;
  console.log(`| ${r.engine} | ${r.store} | ${r.wire.toFixed(2)} s | ${r.first.toFixed(2)} s | ${fromStore} ${r.firstRatio.toFixed(2)}x | ` +
    `${r.storedRatio === undefined ? '' : `${r.storedRatio.toFixed(2)}x`} | ${(r.firstPeak / fileBytes).toFixed(2)}x${r.storedPeak === undefined ? '' : ` / ${(r.storedPeak / fileBytes).toFixed(2)}x`} ` +
    `(${(r.wirePeak / fileBytes).toFixed(2)}x) the file |`);
}
console.log(`\nload average after: ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`summary: ${JSON.stringify({ nodeSeconds, diskWrite, fileBytes, rows })}`);
process.exit(rows.some((r) => r.error !== undefined) ? 1 : 0);
