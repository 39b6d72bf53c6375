#!/usr/bin/env node
// `npm run demo -- --check`: proves the main job works. Serves the built demo (cross-origin
// isolated, as `npm run demo` serves it; --no-isolation without), opens it in a headless browser
// engine (--browser chromium, the default; firefox; webkit), loads the bundled default checkpoint,
// asks the page's sample questions, prints the engine, the build, the answer JSON and a
// screenshot path. Exit 0 only when the page answered. The engines are driven through the same seam
// as the browser tests (tests/js/helpers/browsers/: plain ES modules, so this script imports them
// as they are). --backend webgpu|auto picks the page's backend; Chromium then runs with WebGPU on
// SwiftShader (a CPU emulation of a GPU) so a page has an adapter here. Firefox and WebKitGTK have
// no WebGPU on Linux: --backend webgpu needs Chromium, and 'auto' runs on wasm there.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { engineNamed, kEngineNames } from '../tests/js/helpers/browsers/engines.mjs';
import { attributeOf, click, countOf, selectOption, textOf, waitForSelector } from '../tests/js/helpers/browsers/page-dom.mjs';

const kRepoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function startServer(args) {
  const child = spawn(process.execPath, [join(kRepoRoot, 'scripts', 'serve-demo.mjs'), '--port', '0', ...args],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolvePromise, reject) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const match = /laya-wasm demo: (http:\/\/\S+)/.exec(text);
      if (match) resolvePromise({ url: match[1], stop: () => child.kill('SIGTERM') });
    });
    child.on('exit', (code) => reject(new Error(`serve-demo exited with ${code}`)));
  });
}

/** Removes `--name value` from args; returns the value, or `fallback`. */
function takeOption(args, name, fallback) {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : fallback;
}

async function main() {
  const args = process.argv.slice(2);
  const backend = takeOption(args, '--backend', 'wasm');
  if (!['wasm', 'webgpu', 'auto'].includes(backend)) throw new Error(`--backend takes wasm, webgpu or auto, got ${backend}`);
  const name = takeOption(args, '--browser', 'chromium');
  if (!kEngineNames.includes(name)) throw new Error(`--browser takes ${kEngineNames.join(', ')}, got ${name}`);
  if (backend === 'webgpu' && name !== 'chromium') {
    throw new Error(`--backend webgpu needs --browser chromium: ${name} has no WebGPU on Linux`);
  }
  const engine = engineNamed(name);
  // Launched first: a missing engine fails before anything is served, saying what to install.
  const browser = await engine.launch({ webgpu: name === 'chromium' && backend !== 'wasm' });
  let server;
  try {
    server = await startServer(args);
    const page = await browser.open(server.url, { width: 1000, height: 1400 });
    await selectOption(page, '[data-testid=backend]', backend);
    await click(page, '[data-testid=load]');
    // SwiftShader compiles each GPU pipeline for seconds on first use: WebGPU gets longer.
    const timeout = backend === 'wasm' ? 60000 : 180000;
    await waitForSelector(page, 'body[data-loaded=true], #model-info [data-testid=error]', timeout);
    if (await countOf(page, '#model-info [data-testid=error]') > 0) {
      throw new Error(`the page could not load the default checkpoint: ${await textOf(page, '#model-info')}`);
    }
    await click(page, '[data-testid=ask]');
    const answer = '[data-testid=answers] [data-testid=response-json]';
    const error = '[data-testid=answers] [data-testid=error]';
    await waitForSelector(page, `${answer}, ${error}`, timeout);
    if (await countOf(page, error) > 0) throw new Error(`the page could not answer: ${await textOf(page, error)}`);
    const json = await textOf(page, answer);
    const ran = await textOf(page, '[data-testid=backend-info]');
    const env = await textOf(page, '[data-testid=env]');
    const shots = join(kRepoRoot, 'build', 'screenshots');
    mkdirSync(shots, { recursive: true });
    // Chromium's keeps the name it always had; the other engines' sit beside it.
    const shot = join(shots, name === 'chromium' ? 'demo-check.png' : `demo-check-${name}.png`);
    await page.screenshot(shot);
    console.log(`demo: ${server.url}`);
    console.log(`browser: ${browser.version}`);
    console.log(`environment: ${env}`);
    // "threaded (cross-origin isolated: the pthreads module on 2 threads)", as the page says it.
    const why = /Build: (.*)\.$/.exec(await textOf(page, '#model-info p:first-child') ?? '')?.[1];
    console.log(`build: ${await attributeOf(page, 'body', 'data-build')}${why ? ` (${why})` : ''}`);
    console.log(ran);
    console.log(`answer (bundled default checkpoint: random weights, meaningless by design):\n${json}`);
    console.log(`screenshot: ${shot}`);
    await page.close();
  } finally {
    await browser.close();
    server?.stop();
  }
}

main().catch((error) => {
  console.error(`demo --check failed: ${error.message}`);
  process.exit(1);
});
