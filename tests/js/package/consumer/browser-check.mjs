// Opens the bundled page in headless Debian Chromium and prints what it computed; exit 0 when its
// forward outputs match the fixture. Usage: node browser-check.mjs <page url> <screenshot path>
import { chromium } from 'playwright-core';

const [url, screenshot] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: process.env.LAYA_CHROMIUM ?? '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url);
  await page.waitForFunction(() => window.result !== undefined, null, { timeout: 60000 });
  const result = await page.evaluate(() => window.result);
  if (screenshot) await page.screenshot({ path: screenshot });
  console.log(`browser: ${JSON.stringify(result)}${errors.length ? ` page errors: ${errors.join('; ')}` : ''}`);
  process.exitCode = result.error === undefined && result.worst < 1e-4 && result.sequences === result.expectedSequences ? 0 : 1;
} finally {
  await browser.close();
}
