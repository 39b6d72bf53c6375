// npm run bench:browsers: the same English-shaped 128-token question (bench/workload.mjs) on the
// 0.84 GB English-shaped checkpoint (bench/gen-checkpoint.mjs english-f16) in Chromium, Firefox,
// WebKit and Node, in one command: the module each ran (plain / relaxed SIMD, threads), ms per
// question (best of the runs) on 1 thread and on the package's default thread count (a cross-origin-isolated page),
// the step-kind profile (model.profile()), and each figure's ratio to the fastest engine's.
// WebKitGTK gives pages no SharedArrayBuffer (its JavaScriptCore runs with useSharedArrayBuffer
// off), so its threads row is single-threaded; the row "webkit+sab" runs the same engine with
// JSC_useSharedArrayBuffer=1, as Safari runs isolated pages, to measure WebKit's threads.
// Usage: node bench/browsers/run.mjs [--runs N] [--engines chromium,firefox,webkit,webkit+sab,node] [--dist DIR]
// --dist measures another build's dist/ (e.g. a baseline checkout's) with this script.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCheckpoint, kShapes } from '../gen-checkpoint.mjs';
import { machineLines, runChild } from '../machine.mjs';
import { engineNamed } from '../../tests/js/helpers/browsers/engines.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const kQuestion = '128 tokens (bench/workload.mjs), English-shaped checkpoint (d 1024, 28 layers, 0.84 GB F16)';
const kAllRows = ['chromium', 'firefox', 'webkit', 'webkit+sab', 'node'];

function parseArgs(argv) {
  const options = { runs: 3, rows: kAllRows, dist: path.join(root, 'dist') };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs') options.runs = Number(argv[++i]);
    else if (argv[i] === '--engines') options.rows = argv[++i].split(',');
    else if (argv[i] === '--dist') options.dist = path.resolve(argv[++i]);
    else throw new Error(`bench:browsers: unknown argument ${argv[i]}`);
  }
  for (const row of options.rows) if (!kAllRows.includes(row)) throw new Error(`bench:browsers: no row "${row}" (${kAllRows.join(', ')})`);
  return options;
}

/** scripts/serve-demo.mjs (cross-origin isolated, its default), serving dist/, bench/ and the checkpoint; resolves to its origin. */
function startServer(checkpointDir, dist) {
  const server = spawn(process.execPath, [path.join(root, 'scripts/serve-demo.mjs'), '--port', '0',
    '--mount', `/bench/=${path.join(root, 'bench')}`, '--mount', `/checkpoint/=${checkpointDir}`, '--mount', `/dist/=${dist}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = /(http:\/\/[\d.]+:\d+)\//.exec(out);
      if (m) resolve({ origin: m[1], stop: () => server.kill('SIGTERM') });
    });
    server.on('exit', (code) => reject(new Error(`serve-demo exited ${code}: ${out}`)));
  });
}

/** The page's side: the package's browser build and the shared measure(). */
async function inPage({ threads, runs }) {
  const { load } = await import('/dist/index.browser.js');
  const { measure } = await import('/bench/browsers/measure.mjs');
  const result = await measure(load, { url: new URL('/checkpoint/', location.href).href }, { threads, runs });
  return { ...result, reported: navigator.hardwareConcurrency, isolated: crossOriginIsolated };
}

async function browserRow(row, origin, runs) {
  const engine = engineNamed(row === 'webkit+sab' ? 'webkit' : row);
  if (row === 'webkit+sab') process.env.JSC_useSharedArrayBuffer = '1';
  let session;
  try {
    session = await engine.launch();
  } finally {
    delete process.env.JSC_useSharedArrayBuffer;
  }
  try {
    const results = [];
    for (const threads of [1, undefined]) {
      // A fresh page per load, closed after it, so each load's memory is its own.
      const page = await session.open(`${origin}/bench/browsers/page/index.html`);
      try {
        results.push(await page.evaluate(inPage, { threads, runs }));
      } finally {
        await page.close();
      }
    }
    return { version: session.version + (row === 'webkit+sab' ? ' (JSC_useSharedArrayBuffer=1)' : ''), one: results[0], all: results[1] };
  } finally {
    await session.close();
  }
}

async function nodeRow(dir, runs, dist) {
  const child = (threads) => runChild([path.join(root, 'bench/browsers/node-child.mjs'), dir, threads, String(runs), dist], { label: `node (${threads})` });
  const one = await child('1');
  const all = await child('default');
  return { version: one.version, one, all };
}

function moduleName(r) {
  return `${r.simd} SIMD, ${r.threads > 1 ? `pthreads (${r.threads} threads)` : '1 thread'}`;
}

function profileText(p) {
  const main = ['gemm', 'attention', 'geglu', 'layer_norm'];
  const other = Object.entries(p).filter(([k]) => !main.includes(k)).reduce((s, [, v]) => s + v, 0);
  return [...main.map((k) => `${k} ${(p[k] ?? 0).toFixed(0)}`), `other ${other.toFixed(0)}`].join(', ');
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const dir = path.join(root, 'build', 'bench', 'english-f16');
  generateCheckpoint(dir, kShapes['english-f16'], 1234, console.log);
  const server = await startServer(dir, options.dist);
  const rows = [];
  try {
    for (const row of options.rows) {
      process.stderr.write(`bench:browsers: ${row}...\n`);
      const r = row === 'node' ? await nodeRow(dir, options.runs, options.dist) : await browserRow(row, server.origin, options.runs);
      rows.push({ row, ...r, oneMs: Math.min(...r.one.ms), allMs: Math.min(...r.all.ms) });
    }
  } finally {
    server.stop();
  }
  const fastestOne = Math.min(...rows.map((r) => r.oneMs));
  const fastestAll = Math.min(...rows.map((r) => r.allMs));
  const lines = [...machineLines(), `build measured: ${options.dist}`, `question: ${kQuestion}, ${options.runs} timed runs after one warm-up, best ms (the least disturbed by other load); pages cross-origin isolated`, ''];
  lines.push('engine       version                                     1 thread: module, ms, /fastest     default threads: module, ms, /fastest      gain');
  for (const r of rows) {
    lines.push([
      r.row.padEnd(12), r.version.padEnd(43),
      `${moduleName(r.one)}, ${r.oneMs.toFixed(0)} ms, ${(r.oneMs / fastestOne).toFixed(2)}x`.padEnd(36),
      `${moduleName(r.all)}, ${r.allMs.toFixed(0)} ms, ${(r.allMs / fastestAll).toFixed(2)}x`.padEnd(44),
      `${(r.oneMs / r.allMs).toFixed(2)}x`,
    ].join(' '));
  }
  lines.push('', 'step-kind profile (ms, one question, model.profile()):');
  for (const r of rows) {
    lines.push(`  ${r.row.padEnd(11)} 1 thread: ${profileText(r.one.profile)}`);
    lines.push(`  ${''.padEnd(11)} ${String(r.all.threads).padStart(1)} thread${r.all.threads > 1 ? 's' : ' '}: ${profileText(r.all.profile)}`);
  }
  const warnings = rows.flatMap((r) => [...r.one.warnings, ...r.all.warnings].map((w) => `  ${r.row}: ${w}`));
  if (warnings.length > 0) lines.push('', 'warnings:', ...[...new Set(warnings)]);
  const reported = rows.filter((r) => r.all.reported !== undefined).map((r) => `${r.row} ${r.all.reported}`);
  lines.push('', `navigator.hardwareConcurrency: ${reported.join(', ')}`);
  console.log(lines.join('\n'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
