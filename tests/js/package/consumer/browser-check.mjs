// Opens the bundled page in every browser engine (Chromium, Firefox, WebKit, or those LAYA_BROWSERS
// names; the seam of tests/js/helpers/browsers/) and prints what it computed, one line per engine;
// exit 0 when every engine's forward outputs match the fixture.
// Usage: node browser-check.mjs <page url> <screenshot path prefix>
import { selectedEngines } from '../../helpers/browsers/engines.mjs';

const [url, screenshot] = process.argv.slice(2);
let failed = false;
for (const engine of selectedEngines()) {
  const browser = await engine.launch();
  try {
    const page = await browser.open(url);
    // page.mjs sets window.result (a promise) when its module runs; index.html keeps the page's errors.
    const { result, errors } = await page.evaluate(async () => {
      for (const deadline = Date.now() + 60000; window.result === undefined && Date.now() < deadline;) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { result: await (window.result ?? { error: 'window.result was never set' }), errors: window.pageErrors };
    });
    if (screenshot) await page.screenshot(`${screenshot}-${engine.name}.png`);
    await page.close();
    console.log(`browser (${browser.version}): ${JSON.stringify(result)}${errors.length ? ` page errors: ${errors.join('; ')}` : ''}`);
    if (!(result.error === undefined && result.worst < 1e-4 && result.sequences === result.expectedSequences)) failed = true;
  } finally {
    await browser.close();
  }
}
process.exitCode = failed ? 1 : 0;
