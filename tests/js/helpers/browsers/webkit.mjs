// WebKit (Safari's engine): Debian's WebKitGTK, WebKitWebDriver driving its MiniBrowser with
// --automation, on a private Xvfb display the driver starts itself. Playwright's WebKit is its own
// build, not the stock engine; classic WebDriver is what WebKitGTK ships. Each page is a window of
// one browser (a window, not a tab: a background tab is not painted, so its screenshot never comes);
// windows share storage, so tests that need fresh storage use a fresh origin. That storage is
// ephemeral (MiniBrowser's automation mode): launch({ profileDir }) runs MiniBrowser without
// WebDriver instead, over its remote inspector, with storage that outlives it (webkit-inspector.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { spawnGroup, stopGroup } from './child-processes.mjs';
import { pageExpression, pageResult } from './page-function.mjs';
import { launchPersistentWebKit } from './webkit-inspector.mjs';
import { WebDriverClient, WebDriverSession } from './webdriver-client.mjs';
import { startXvfb } from './xvfb.mjs';

export const kWebKitDriver = process.env.LAYA_WEBKIT_DRIVER ?? '/usr/bin/WebKitWebDriver';
export const kMiniBrowser = process.env.LAYA_MINIBROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/**
 * The storage features Safari (17+) turns on and WebKitGTK 2.50 ships off (`MiniBrowser
 * --features=help`): navigator.storage (estimate, persist) and the origin private file system with
 * createWritable(). LaunchOptions.safariStorage asks for them.
 */
export const kSafariStorageFeatures = ['StorageAPI', 'StorageAPIEstimate', 'FileSystem', 'FileSystemWritableStream', 'AccessHandle'];

function miniBrowserArgs(options) {
  return options.safariStorage === true ? [`--features=${kSafariStorageFeatures.map((f) => `+${f}`).join(',')}`] : [];
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

class WebKitPage {
  constructor(browser, handle) {
    this.browser = browser;
    this.handle = handle;
  }

  /** Runs `command` with this page's tab the driver's current window. */
  async on(command) {
    return this.browser.inWindow(this.handle, command);
  }

  async evaluate(fn, arg) {
    const body = `const done = arguments[arguments.length - 1]; ${pageExpression(fn, arg)}.then(done, (e) => done(JSON.stringify({ error: String(e) })));`;
    return pageResult('WebKit', await this.on((s) => s.executeAsync(body, [])));
  }

  async goto(url) { await this.on((s) => s.navigate(url)); }
  async reload() { await this.on((s) => s.refresh()); }
  /**
   * The whole page: WebDriver's screenshot is the viewport, so the window is grown to the page's
   * height for the shot (the X display need not be that tall), then given back its size.
   */
  async screenshot(path) {
    const height = await this.evaluate(() => document.documentElement.scrollHeight);
    const png = await this.on(async (s) => {
      const rect = await s.call('GET', '/window/rect');
      const chrome = rect.height - await this.evaluateHere(s, 'return window.innerHeight');
      if (height + chrome > rect.height) await s.setWindowRect({ width: rect.width, height: height + chrome });
      try {
        return await s.screenshot();
      } finally {
        await s.setWindowRect({ width: rect.width, height: rect.height });
      }
    });
    await writeFile(path, Buffer.from(png, 'base64'));
  }

  /** A synchronous script in the current window (inside on(), which holds the driver). */
  evaluateHere(session, body) {
    return session.call('POST', '/execute/sync', { script: body, args: [] });
  }

  async close() {
    await this.on((s) => s.closeWindow());
    this.browser.current = undefined;
  }
}

export const webkitEngine = {
  name: 'webkit',
  label: 'WebKitGTK',
  package: 'webkit2gtk-driver',
  // JavaScriptCore 2.50 (WebKitGTK's, and its jsc shell) now and then traps in a module it runs
  // correctly every other time, in a different function each time: docs/engine-faults.md.
  knownWasmFault: {
    pattern: /RuntimeError: Out of bounds (memory access|call_indirect)/,
    about: "JavaScriptCore's intermittent wasm fault (docs/engine-faults.md)",
  },
  installedVersion() {
    if (!existsSync(kWebKitDriver) || !existsSync(kMiniBrowser)) return 'not installed';
    // WebKitWebDriver has no --version and MiniBrowser needs a display for one: ask Debian.
    try {
      return (execFileSync('dpkg-query', ['-W', '-f', '${Version}', 'libwebkit2gtk-4.1-0'], { encoding: 'utf8' })).replace(/-[^-]*$/, '');
    } catch {
      return 'version read when it starts';
    }
  },
  async launch(options = {}) {
    for (const binary of [kWebKitDriver, kMiniBrowser]) {
      if (!existsSync(binary)) {
        throw new Error(`browser tests need WebKitGTK's ${binary}: apt-get install webkit2gtk-driver xvfb (bash scripts/setup.sh does), ` +
          'or set LAYA_WEBKIT_DRIVER and LAYA_MINIBROWSER');
      }
    }
    if (options.webgpu === true) throw new Error('WebKitGTK has no WebGPU here: WebGPU tests run in Chromium only');
    // WebDriver's MiniBrowser (--automation) always has ephemeral storage: a profile that outlives
    // the browser needs MiniBrowser without WebDriver (webkit-inspector.mjs).
    if (options.profileDir !== undefined) {
      return launchPersistentWebKit({ engine: webkitEngine, miniBrowser: kMiniBrowser, profileDir: options.profileDir, freePort,
        version: webkitEngine.installedVersion(), args: miniBrowserArgs(options) });
    }
    const xvfb = await startXvfb();
    let driver;
    try {
      const port = await freePort();
      driver = spawnGroup(kWebKitDriver, [`--port=${port}`, '--host=127.0.0.1'],
        { env: { ...process.env, DISPLAY: xvfb.display }, stdio: ['ignore', 'ignore'] });
      const client = new WebDriverClient(`http://127.0.0.1:${port}`);
      await client.waitUntilReady(20000, () => driver.exitCode !== null);
      const { id, capabilities } = await client.newSession({
        browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: kMiniBrowser, args: ['--automation', ...miniBrowserArgs(options)] },
      });
      const session = new WebDriverSession(client, id);
      // No script time limit of the driver's own (30 s): Jest's test timeout bounds a long evaluate.
      await session.setTimeouts({ script: null, pageLoad: 300000 });
      // The session's first tab stays open (closing a session's last tab ends the session).
      const home = await session.windowHandle();
      const browser = {
        current: home,
        queue: Promise.resolve(),
        /** One command at a time: switching tabs and running in one must not interleave. */
        inWindow(handle, command) {
          const run = this.queue.then(async () => {
            if (this.current !== handle) {
              await session.switchToWindow(handle);
              this.current = handle;
            }
            return command(session);
          });
          this.queue = run.catch(() => undefined);
          return run;
        },
      };
      const stop = async () => {
        await session.end().catch(() => undefined);
        await stopGroup(driver);
        await xvfb.stop();
      };
      return {
        engine: webkitEngine,
        version: `WebKitGTK ${capabilities.browserVersion}`,
        async open(url, viewport = { width: 1000, height: 1400 }) {
          const handle = await browser.inWindow(browser.current ?? home, (s) => s.newWindow());
          const page = new WebKitPage(browser, handle);
          await page.on((s) => s.setWindowRect({ width: viewport.width, height: viewport.height }).catch(() => undefined));
          await page.goto(url);
          return page;
        },
        close: stop,
      };
    } catch (error) {
      if (driver !== undefined) await stopGroup(driver);
      await xvfb.stop();
      throw error;
    }
  },
};
