// Chromium: headless Debian Chromium driven by playwright-core over CDP (no browser download:
// docs/toolchain.md "JavaScript tooling"). Each page gets its own browser context, so its storage
// (Cache API, service workers) starts empty; such a context keeps it in memory, with a small quota
// (a 0.84 GB cache.put fails). launch({ profileDir }) runs on a persistent user data dir instead
// (launchPersistentContext): pages share its one context and its storage is on disk, kept across
// reloads and relaunches.
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
  return chromium.launch(launchOptions(options));
}

function launchOptions(options) {
  if (!existsSync(kChromium)) {
    throw new Error(`browser tests need Chromium at ${kChromium}: apt-get install chromium (bash scripts/setup.sh does), or set LAYA_CHROMIUM`);
  }
  return {
    executablePath: kChromium,
    headless: true,
    args: ['--no-sandbox', ...(options.webgpu === true ? kWebGpuFlags : ['--disable-gpu']), '--disable-background-networking',
      '--disable-component-update', '--no-first-run', '--disable-sync'],
  };
}

/** A session on the persistent profile `options.profileDir`: one context, each page a tab of it. */
async function launchPersistent(options) {
  const context = await chromium.launchPersistentContext(options.profileDir, launchOptions(options));
  // The tab a persistent context opens with: closed once a page of ours is open.
  const blank = context.pages();
  return {
    engine: chromiumEngine,
    version: `Chromium ${context.browser()?.version() ?? chromiumEngine.installedVersion()} (persistent profile)`,
    async open(url, viewport = { width: 1000, height: 1400 }) {
      const page = await context.newPage();
      for (const tab of blank.splice(0)) await tab.close();
      await page.setViewportSize(viewport);
      await page.goto(url);
      return new ChromiumPage({ close: () => page.close() }, page);
    },
    close: () => context.close(),
  };
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
    if (options.profileDir !== undefined) return launchPersistent(options);
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
