#!/usr/bin/env node
// `npm run demo -- --check`: proves the main job works. Serves the built demo, opens it in
// headless Debian Chromium (playwright-core, no browser download), loads the bundled default
// checkpoint, asks the page's sample questions, prints the answer JSON and a screenshot path.
// Exit 0 only when the page answered. --backend webgpu|auto picks the page's backend and launches
// Chromium with WebGPU on SwiftShader (a CPU emulation of a GPU) so a page has an adapter here.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const kRepoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const kChromium = process.env.LAYA_CHROMIUM ?? '/usr/bin/chromium';
// As tests/js/helpers/chromium.ts kWebGpuFlags: headless Debian Chromium's WebGPU without a GPU.
const kWebGpuFlags = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--enable-unsafe-swiftshader'];

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

async function main() {
  if (!existsSync(kChromium)) throw new Error(`demo --check needs Chromium at ${kChromium} (apt-get install chromium)`);
  const args = process.argv.slice(2);
  const at = args.indexOf('--backend');
  const backend = at >= 0 ? args.splice(at, 2)[1] : 'wasm';
  if (!['wasm', 'webgpu', 'auto'].includes(backend)) throw new Error(`--backend takes wasm, webgpu or auto, got ${backend}`);
  const server = await startServer(args);
  const browser = await chromium.launch({ executablePath: kChromium, headless: true,
    args: ['--no-sandbox', ...(backend === 'wasm' ? ['--disable-gpu'] : kWebGpuFlags), '--disable-background-networking', '--no-first-run'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 1400 } });
    page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
    await page.goto(server.url);
    await page.selectOption('[data-testid=backend]', backend);
    await page.click('[data-testid=load]');
    // SwiftShader compiles each GPU pipeline for seconds on first use: WebGPU gets longer.
    const timeout = backend === 'wasm' ? 60000 : 180000;
    await page.waitForSelector('body[data-loaded=true], #model-info [data-testid=error]', { timeout });
    if (await page.locator('#model-info [data-testid=error]').count() > 0) {
      throw new Error(`the page could not load the default checkpoint: ${await page.locator('#model-info').textContent()}`);
    }
    await page.click('[data-testid=ask]');
    const json = await page.locator('[data-testid=response-json]').textContent({ timeout });
    const ran = await page.locator('[data-testid=backend-info]').textContent();
    const env = await page.locator('[data-testid=env]').textContent();
    const shots = join(kRepoRoot, 'build', 'screenshots');
    mkdirSync(shots, { recursive: true });
    const shot = join(shots, 'demo-check.png');
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`demo: ${server.url}`);
    console.log(`environment: ${env}`);
    console.log(ran);
    console.log(`answer (bundled default checkpoint: random weights, meaningless by design):\n${json}`);
    console.log(`screenshot: ${shot}`);
  } finally {
    await browser.close();
    server.stop();
  }
}

main().catch((error) => {
  console.error(`demo --check failed: ${error.message}`);
  process.exit(1);
});
