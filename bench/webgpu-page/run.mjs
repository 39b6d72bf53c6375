#!/usr/bin/env node
// `npm run bench:webgpu-page`: bundles the bench page (main.mjs, with esbuild, from the package's
// browser sources) into build/webgpu-page/ and serves it with scripts/serve-demo.mjs at /bench/,
// beside dist/ (the wasm modules) and the bundled default checkpoint at /default-checkpoint/.
// Open the printed URL in a browser with WebGPU; --checkpoint DIR also serves a checkpoint folder
// at /checkpoint/. --headless runs the page once in headless Debian Chromium with WebGPU on
// SwiftShader (a CPU emulation: its numbers only prove that the page and the GPU path run), prints
// the page's report and exits 0 only when the table is complete.
// Usage: node bench/webgpu-page/run.mjs [--port 8090] [--checkpoint DIR] [--headless]
//          [--backend webgpu|wasm] [--lengths 64,128,256,512] [--runs 3] [--timeout-s 600]
//          [--gemm auto|scalar|t32x32|t32x64|t64x64|t128x64|t64x128|t32x128] [--f16 auto|off]
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const out = join(root, 'build', 'webgpu-page');
const args = process.argv.slice(2);
const flag = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const headless = args.includes('--headless');
const checkpoint = flag('--checkpoint', undefined);
const kChromium = process.env.LAYA_CHROMIUM ?? '/usr/bin/chromium';
// The flags under which headless Debian Chromium has a WebGPU adapter without a GPU (tests/js/helpers/chromium.ts).
const kWebGpuFlags = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--enable-unsafe-swiftshader'];

function fail(message) {
  console.error(`bench:webgpu-page: ${message}`);
  process.exit(1);
}

if (!existsSync(join(root, 'dist', 'wasm', 'laya-core.js'))) fail('dist/wasm/laya-core.js is missing: run npm run build first');
if (!existsSync(join(root, 'build', 'default-checkpoint', 'model.safetensors'))) fail('no default checkpoint: run node scripts/make-default-checkpoint.mjs');
mkdirSync(out, { recursive: true });
await esbuild.build({
  entryPoints: [join(here, 'main.mjs')], outfile: join(out, 'app.js'), bundle: true, format: 'esm', platform: 'browser',
  target: 'es2022', conditions: ['browser'], logLevel: 'warning',
  // As in scripts/build-demo.mjs: the page passes wasm.moduleUrl, so the ES-module glue import never runs.
  external: ['../wasm/*'],
});
copyFileSync(join(here, 'index.html'), join(out, 'index.html'));

const mounts = ['--mount', `/bench/=${out}`, ...(checkpoint === undefined ? [] : ['--mount', `/checkpoint/=${resolve(checkpoint)}`])];
const server = spawn(process.execPath, [join(root, 'scripts', 'serve-demo.mjs'), '--port', flag('--port', headless ? '0' : '8090'), ...mounts],
  { stdio: ['ignore', 'pipe', 'inherit'] });
const origin = await new Promise((resolvePromise, reject) => {
  let text = '';
  server.stdout.on('data', (chunk) => {
    text += chunk;
    const match = /laya-wasm demo: (http:\/\/[^/\s]+)/.exec(text);
    if (match) resolvePromise(match[1]);
  });
  server.on('exit', (code) => reject(new Error(`serve-demo exited with ${code}`)));
});
const page = `${origin}/bench/`;
const checkpointUrl = checkpoint === undefined ? '/default-checkpoint/' : '/checkpoint/';
if (!headless) {
  console.log(`bench page: ${page}?url=${encodeURIComponent(checkpointUrl)} (Ctrl-C stops the server)`);
} else {
  const { chromium } = await import('playwright-core');
  if (!existsSync(kChromium)) fail(`--headless needs Chromium at ${kChromium} (apt-get install chromium, or set LAYA_CHROMIUM)`);
  const browser = await chromium.launch({ executablePath: kChromium, headless: true,
    args: ['--no-sandbox', ...kWebGpuFlags, '--disable-background-networking', '--no-first-run'] });
  let ok = false;
  try {
    const tab = await browser.newPage();
    tab.on('pageerror', (error) => console.error(`page error: ${error.message}`));
    const query = new URLSearchParams({ run: '1', url: checkpointUrl, backend: flag('--backend', 'webgpu'),
      lengths: flag('--lengths', '64,128,256,512'), runs: flag('--runs', '3'), gemm: flag('--gemm', 'auto'), f16: flag('--f16', 'auto') });
    await tab.goto(`${page}?${query}`);
    await tab.waitForSelector('body[data-done=true], body[data-done=error]', { timeout: Number(flag('--timeout-s', '600')) * 1000 });
    console.log(`page: ${page}?${query}`);
    console.log(await tab.locator('#out').textContent());
    ok = (await tab.getAttribute('body', 'data-done')) === 'true';
  } finally {
    await browser.close();
    server.kill('SIGTERM');
  }
  process.exit(ok ? 0 : 1);
}
