// Chromium: headless Debian Chromium driven by playwright-core over CDP (no browser download:
// docs/toolchain.md "JavaScript tooling"). Each page gets its own browser context, so its storage
// (Cache API, service workers) starts empty.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { chromium } from 'playwright-core';
import { pageExpression, pageResult } from './page-function.mjs';

export const kChromium = process.env.LAYA_CHROMIUM ?? '/usr/bin/chromium';

/**
 * The flags under which headless Debian Chromium exposes WebGPU on the CPU (SwiftShader, adapter
 * "google swiftshader", no shader-f16) to localhost pages, where no GPU is.
 */
export const kWebGpuFlags = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--enable-unsafe-swiftshader'];

/** Playwright's Browser for Chromium; `webgpu`: with kWebGpuFlags (and without --disable-gpu). */
export async function launchChromiumBrowser(options = {}) {
  if (!existsSync(kChromium)) {
    throw new Error(`browser tests need Chromium at ${kChromium}: apt-get install chromium (bash scripts/setup.sh does), or set LAYA_CHROMIUM`);
  }
  return chromium.launch({
    executablePath: kChromium,
    headless: true,
    args: ['--no-sandbox', ...(options.webgpu === true ? kWebGpuFlags : ['--disable-gpu']), '--disable-background-networking',
      '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
}

class ChromiumPage {
  constructor(context, page) {
    this.context = context;
    this.page = page;
  }

  async evaluate(fn, arg) { return pageResult('Chromium', await this.page.evaluate(pageExpression(fn, arg))); }
  async goto(url) { await this.page.goto(url); }
  async reload() { await this.page.reload(); }
  async screenshot(path) { await writeFile(path, await this.page.screenshot({ fullPage: true })); }
  async close() { await this.context.close(); }
}

export const chromiumEngine = {
  name: 'chromium',
  label: 'Chromium',
  package: 'chromium',
  /** The installed version, without starting a browser (for test titles). */
  installedVersion() {
    if (!existsSync(kChromium)) return 'not installed';
    return execFileSync(kChromium, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().replace(/^Chromium\s*/, '').replace(/\s.*$/, '');
  },
  async launch(options = {}) {
    const browser = await launchChromiumBrowser(options);
    return {
      engine: chromiumEngine,
      version: `Chromium ${browser.version()}`,
      async open(url, viewport = { width: 1000, height: 1400 }) {
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        await page.goto(url);
        return new ChromiumPage(context, page);
      },
      close: () => browser.close(),
    };
  },
};
