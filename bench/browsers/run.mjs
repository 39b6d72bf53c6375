// npm run bench:browsers: the same English-shaped 128-token question (bench/workload.mjs) on the
// 0.84 GB English-shaped checkpoint (bench/gen-checkpoint.mjs english-f16) in Chromium, Firefox,
// WebKit and Node, in one command: the module each ran (plain / relaxed SIMD, threads), ms per
// question (best of the runs) on 1 thread and on the package's default thread count (a cross-origin-isolated page),
// the step-kind profile (model.profile()), and each figure's ratio to the fastest engine's.
// WebKitGTK gives pages no SharedArrayBuffer (its JavaScriptCore runs with useSharedArrayBuffer
// off), so its threads row is single-threaded; the row "webkit+sab" runs the same engine with
// JSC_useSharedArrayBuffer=1, as Safari runs isolated pages, to measure WebKit's threads.
// Each browser row is measured twice with the same build, engine and thread count: the model
// loaded on the page's thread, and loaded with { worker: true } (the package's own worker, as the
// demo runs it); the worker's ms, its ratio to the page's and its step profile (which the worker
// model reports as of its last call) sit beside the page's, so a reader sees which steps lose time.
// Usage: node bench/browsers/run.mjs [--runs N] [--engines chromium,firefox,webkit,webkit+sab,node]
//          [--dist DIR] [--shape NAME] [--no-worker]
// --dist measures another build's dist/ (e.g. a baseline checkout's) with this script; --shape
// another bench/gen-checkpoint.mjs shape (small-f16: a quick check that every row runs);
// --no-worker leaves the worker out (half the time).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCheckpoint, kShapes } from '../gen-checkpoint.mjs';
import { machineLines, runChild } from '../machine.mjs';
import { kQuestionTokens } from './measure.mjs';
import { startServer } from './serve.mjs';
import { engineNamed } from '../../tests/js/helpers/browsers/engines.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const kShapeText = (name, s) => `${name} checkpoint (d ${s.d}, ${s.layers} layers, F16)`;
const kAllRows = ['chromium', 'firefox', 'webkit', 'webkit+sab', 'node'];

function parseArgs(argv) {
  const options = { runs: 3, rows: kAllRows, dist: path.join(root, 'dist'), shape: 'english-f16', worker: true };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs') options.runs = Number(argv[++i]);
    else if (argv[i] === '--engines') options.rows = argv[++i].split(',');
    else if (argv[i] === '--dist') options.dist = path.resolve(argv[++i]);
    else if (argv[i] === '--shape') options.shape = argv[++i];
    else if (argv[i] === '--no-worker') options.worker = false;
    else throw new Error(`bench:browsers: unknown argument ${argv[i]}`);
  }
  if (!kShapes[options.shape]) throw new Error(`bench:browsers: no shape "${options.shape}" (${Object.keys(kShapes).join(', ')})`);
  for (const row of options.rows) if (!kAllRows.includes(row)) throw new Error(`bench:browsers: no row "${row}" (${kAllRows.join(', ')})`);
  return options;
}

/** The page's side: the package's browser build and the shared measure(). */
async function inPage({ threads, runs, worker }) {
  const { load } = await import('/dist/index.browser.js');
  const { measure } = await import('/bench/browsers/measure.mjs');
  const result = await measure(load, { url: new URL('/checkpoint/', location.href).href }, { threads, runs, worker });
  return { ...result, reported: navigator.hardwareConcurrency, isolated: crossOriginIsolated };
}

/** The page's and (with `worker`) the package worker's measurement, each in a fresh page of its own. */
async function browserRow(row, origin, runs, worker) {
  const engine = engineNamed(row === 'webkit+sab' ? 'webkit' : row);
  if (row === 'webkit+sab') process.env.JSC_useSharedArrayBuffer = '1';
  let session;
  try {
    session = await engine.launch();
  } finally {
    delete process.env.JSC_useSharedArrayBuffer;
  }
  try {
    const measured = async (threads, inWorker) => {
      // A fresh page per load, closed after it, so each load's memory is its own.
      const page = await session.open(`${origin}/bench/browsers/page/index.html`);
      try {
        return await page.evaluate(inPage, { threads, runs, worker: inWorker });
      } finally {
        await page.close();
      }
    };
    // Page and worker one after the other for each thread count, so a change in the machine's load
    // between them is as short as it can be.
    const one = await measured(1, false);
    const workerOne = worker ? await measured(1, true) : undefined;
    const all = await measured(undefined, false);
    const workerAll = worker ? await measured(undefined, true) : undefined;
    return { version: session.version + (row === 'webkit+sab' ? ' (JSC_useSharedArrayBuffer=1)' : ''), one, all, workerOne, workerAll };
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

const kMainSteps = ['gemm', 'attention', 'geglu', 'layer_norm'];

function profileText(p) {
  const other = Object.entries(p).filter(([k]) => !kMainSteps.includes(k)).reduce((s, [, v]) => s + v, 0);
  return [...kMainSteps.map((k) => `${k} ${(p[k] ?? 0).toFixed(0)}`), `other ${other.toFixed(0)}`].join(', ');
}

/** The worker's profile beside the page's, step by step: every step kind either reports, worker ms / page ms. */
function profileRatioText(page, worker) {
  const kinds = [...new Set([...Object.keys(page), ...Object.keys(worker)])].sort((a, b) => (page[b] ?? 0) - (page[a] ?? 0));
  return kinds.map((k) => `${k} ${(page[k] ?? 0).toFixed(1)}/${(worker[k] ?? 0).toFixed(1)} (${page[k] ? ((worker[k] ?? 0) / page[k]).toFixed(2) : '-'}x)`).join(', ');
}

const best = (measured) => (measured === undefined ? undefined : Math.min(...measured.ms));

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const dir = path.join(root, 'build', 'bench', options.shape);
  generateCheckpoint(dir, kShapes[options.shape], 1234, console.log);
  const server = await startServer(root, dir, options.dist);
  const rows = [];
  try {
    for (const row of options.rows) {
      process.stderr.write(`bench:browsers: ${row}...\n`);
      const r = row === 'node' ? await nodeRow(dir, options.runs, options.dist) : await browserRow(row, server.origin, options.runs, options.worker);
      rows.push({ row, ...r, oneMs: best(r.one), allMs: best(r.all), workerOneMs: best(r.workerOne), workerAllMs: best(r.workerAll) });
    }
  } finally {
    server.stop();
  }
  const fastestOne = Math.min(...rows.map((r) => r.oneMs));
  const fastestAll = Math.min(...rows.map((r) => r.allMs));
  const lines = [...machineLines(), `build measured: ${options.dist}`, `question: ${kQuestionTokens} tokens (bench/workload.mjs), ${kShapeText(options.shape, kShapes[options.shape])}, ${options.runs} timed runs after one warm-up, best ms (the least disturbed by other load); pages cross-origin isolated`, ''];
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
  const workerRows = rows.filter((r) => r.workerOne !== undefined);
  if (workerRows.length > 0) {
    lines.push('', 'worker column: the same question with load(source, { worker: true }) (the package worker), same engine, build and threads:');
    lines.push('engine       1 thread: page ms, worker ms, worker/page     default threads: page ms, worker (module), worker/page');
    for (const r of workerRows) {
      lines.push([
        r.row.padEnd(12),
        `${r.oneMs.toFixed(0)}, ${r.workerOneMs.toFixed(0)} (${moduleName(r.workerOne)}), ${(r.workerOneMs / r.oneMs).toFixed(2)}x`.padEnd(52),
        `${r.allMs.toFixed(0)}, ${r.workerAllMs.toFixed(0)} (${moduleName(r.workerAll)}), ${(r.workerAllMs / r.allMs).toFixed(2)}x`,
      ].join(' '));
    }
    lines.push('', 'step profile, page ms / worker ms (worker/page), one question each, model.profile():');
    for (const r of workerRows) {
      lines.push(`  ${r.row.padEnd(11)} 1 thread: ${profileRatioText(r.one.profile, r.workerOne.profile)}`);
      lines.push(`  ${''.padEnd(11)} default:  ${profileRatioText(r.all.profile, r.workerAll.profile)}`);
    }
    lines.push('', 'load (ms, cache off), page / worker: ' + workerRows.map((r) => `${r.row} ${r.one.loadMs.toFixed(0)} / ${r.workerOne.loadMs.toFixed(0)}`).join(', '));
  }
  const warnings = rows.flatMap((r) => [r.one, r.all, r.workerOne, r.workerAll].filter(Boolean).flatMap((m) => m.warnings).map((w) => `  ${r.row}: ${w}`));
  if (warnings.length > 0) lines.push('', 'warnings:', ...[...new Set(warnings)]);
  const reported = rows.filter((r) => r.all.reported !== undefined).map((r) => `${r.row} ${r.all.reported}`);
  lines.push('', `navigator.hardwareConcurrency: ${reported.join(', ')}`);
  console.log(lines.join('\n'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
