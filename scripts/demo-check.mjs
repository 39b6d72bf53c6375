#!/usr/bin/env node
// `npm run demo -- --check`: proves the main job works. Serves the built demo, opens it in
// headless Debian Chromium (playwright-core, no browser download), loads the bundled default
// checkpoint, asks the page's sample questions, prints the answer JSON and a screenshot path.
// Exit 0 only when the page answered.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const kRepoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const kChromium = process.env.LAYA_CHROMIUM ?? '/usr/bin/chromium';

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
  const server = await startServer(process.argv.slice(2));
  const browser = await chromium.launch({ executablePath: kChromium, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 1400 } });
    page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
    await page.goto(server.url);
    await page.click('[data-testid=load]');
    await page.waitForSelector('body[data-loaded=true]', { timeout: 60000 });
    await page.click('[data-testid=ask]');
    const json = await page.locator('[data-testid=response-json]').textContent({ timeout: 60000 });
    const env = await page.locator('[data-testid=env]').textContent();
    const shots = join(kRepoRoot, 'build', 'screenshots');
    mkdirSync(shots, { recursive: true });
    const shot = join(shots, 'demo-check.png');
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`demo: ${server.url}`);
    console.log(`environment: ${env}`);
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
