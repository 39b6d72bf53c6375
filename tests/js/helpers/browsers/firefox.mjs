// Firefox: stock Firefox ESR (Debian's firefox-esr) driven over WebDriver BiDi by puppeteer-core.
// Playwright cannot drive it (its Firefox is a patched build); puppeteer-core speaks the standard
// protocol stock Firefox ships. Each page gets its own user context (fresh storage). With
// launch({ profileDir }) Firefox runs on that profile folder and pages open in its default context,
// whose storage is on disk: kept across reloads and relaunches (a user context's is not found again
// after a relaunch, its id being new).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import puppeteer from 'puppeteer-core';
import { pageExpression, pageResult } from './page-function.mjs';

export const kFirefox = process.env.LAYA_FIREFOX ?? '/usr/bin/firefox-esr';

class FirefoxPage {
  constructor(context, page) {
    this.context = context;
    this.page = page;
  }

  async evaluate(fn, arg) { return pageResult('Firefox', await this.page.evaluate(pageExpression(fn, arg))); }
  async goto(url) { await this.page.goto(url, { timeout: 0 }); }
  async reload() { await this.page.reload({ timeout: 0 }); }
  async screenshot(path) { await writeFile(path, await this.page.screenshot({ fullPage: true })); }
  async close() { await (this.context ?? this.page).close(); }
}

export const firefoxEngine = {
  name: 'firefox',
  label: 'Firefox',
  package: 'firefox-esr',
  installedVersion() {
    if (!existsSync(kFirefox)) return 'not installed';
    return execFileSync(kFirefox, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().replace(/^Mozilla Firefox\s*/, '');
  },
  async launch(options = {}) {
    if (!existsSync(kFirefox)) {
      throw new Error(`browser tests need Firefox ESR at ${kFirefox}: apt-get install firefox-esr (bash scripts/setup.sh does), or set LAYA_FIREFOX`);
    }
    if (options.webgpu === true) throw new Error('Firefox has no WebGPU on Linux: WebGPU tests run in Chromium only');
    // protocolTimeout 0: a long evaluate (a model load on a loaded machine) is bounded by Jest's
    // test timeout, not by the driver's own 180 s default.
    const persistent = options.profileDir !== undefined;
    const browser = await puppeteer.launch({ browser: 'firefox', executablePath: kFirefox, headless: true, protocolTimeout: 0,
      ...(persistent ? { userDataDir: options.profileDir } : {}) });
    return {
      engine: firefoxEngine,
      version: `Firefox ${(await browser.version()).replace(/^firefox\//i, '')}${persistent ? ' (persistent profile)' : ''}`,
      async open(url, viewport = { width: 1000, height: 1400 }) {
        const context = persistent ? undefined : await browser.createBrowserContext();
        const page = await (context ?? browser).newPage();
        await page.setViewport(viewport);
        await page.goto(url, { timeout: 0 });
        return new FirefoxPage(context, page);
      },
      close: () => browser.close(),
    };
  },
};
