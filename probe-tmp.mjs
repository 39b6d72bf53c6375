import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
const child = spawn(process.execPath, ['scripts/serve-demo.mjs', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((r) => { let t=''; child.stdout.on('data', (c) => { t += c; const m = /demo: (http:\S+)/.exec(t); if (m) r(m[1]); }); });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--enable-unsafe-swiftshader', '--disable-background-networking', '--no-first-run'] });
const page = await browser.newPage();
page.on('console', (m) => console.log('console:', m.text()));
page.on('pageerror', (e) => console.log('pageerror:', e.message));
await page.goto(url);
for (const backend of [process.argv[2] ?? 'webgpu']) {
  let t = Date.now();
  await page.selectOption('#backend', backend);
  await page.click('[data-testid=load]');
  await page.waitForSelector('body[data-loaded=true], #model-info [data-testid=error]', { timeout: 300000 });
  console.log('load', Date.now() - t, await page.locator('#model-info').textContent());
  t = Date.now();
  await page.click('[data-testid=ask]');
  const json = page.locator('[data-testid=answers] [data-testid=response-json]');
  const err = page.locator('[data-testid=answers] [data-testid=error]');
  await json.or(err).waitFor({ state: 'attached', timeout: 300000 });
  console.log('ask', Date.now() - t, await json.or(err).textContent());
  t = Date.now();
  await page.click('[data-testid=ask]');
  await page.waitForTimeout(100);
  await json.or(err).waitFor({ state: 'attached', timeout: 300000 });
  console.log('ask2', Date.now() - t);
}
await browser.close(); child.kill();
