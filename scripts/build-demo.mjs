#!/usr/bin/env node
// Builds the demo page into build/demo/: type-checks web/demo, bundles the page (ESM), the package's
// own worker (web/src/worker/laya-worker.ts, ESM: the page's load({ worker: true }) starts it from
// `new URL('./laya-worker.js', import.meta.url)`, so it sits beside app.js) and the service worker
// with esbuild from the package's browser entry, copies the HTML and CSS, and refuses any bundle
// that pulls in a Node module ("node:" import).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const kRepoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const kDemo = join(kRepoRoot, 'web', 'demo');
const out = resolve(process.argv[2] ?? join(kRepoRoot, 'build', 'demo'));

execFileSync(process.execPath, [join(kRepoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(kDemo, 'tsconfig.json')],
  { stdio: 'inherit' });

// Built beside the output and renamed into place file by file, so a server reading build/demo
// while another build runs (parallel tests) never sees a half-written file.
mkdirSync(out, { recursive: true });
const staging = mkdtempSync(`${out}.staging-`);
try {
  const kWorker = join(kRepoRoot, 'web', 'src', 'worker', 'laya-worker.ts');
  const bundles = [[join(kDemo, 'main.ts'), 'app.js', 'esm'], [kWorker, 'laya-worker.js', 'esm'], [join(kDemo, 'sw.ts'), 'sw.js', 'iife']];
  for (const [entry, file, format] of bundles) {
    const result = await esbuild.build({
      entryPoints: [entry], outfile: join(staging, file), bundle: true, format, platform: 'browser',
      target: 'es2022', sourcemap: true, metafile: true, logLevel: 'warning', conditions: ['browser'],
      // sw.js is a classic script (iife), where import.meta is empty; it reads none.
      logOverride: { 'empty-import-meta': 'silent' },
      // The package's default ES-module glue (web/src/browser/esm-module.ts imports ../wasm/*.mjs,
      // which exist only in dist/) stays out of the bundles: the demo passes wasm.moduleUrl, so
      // that import never runs.
      external: ['../wasm/*'],
    });
    const nodeImports = Object.values(result.metafile.inputs).flatMap((input) => input.imports)
      .filter((i) => i.path.startsWith('node:') || (i.external && !i.path.startsWith('../wasm/')));
    const text = readFileSync(join(staging, file), 'utf8');
    if (nodeImports.length > 0 || /\bfrom\s*["']node:|import\(\s*["']node:|require\(\s*["']node:/.test(text)) {
      throw new Error(`build-demo: ${file} imports Node modules: ${nodeImports.map((i) => i.path).join(', ') || 'node: in the output'}`);
    }
  }
  for (const file of ['index.html', 'demo.css']) copyFileSync(join(kDemo, file), join(staging, file));
  for (const file of readdirSync(staging)) renameSync(join(staging, file), join(out, file));
} finally {
  rmSync(staging, { recursive: true, force: true });
}
console.log(`demo built: ${out}`);
