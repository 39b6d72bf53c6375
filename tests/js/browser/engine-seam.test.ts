// The browser-engine seam itself (tests/js/helpers/browsers/), in every engine: a function and its
// argument cross into the page and its result comes back as the page had it (undefined, NaN, -0
// included); a thrown error rejects naming the engine; pages have their own globals; a screenshot
// is a PNG; LAYA_BROWSERS narrows the engines out loud and refuses an unknown name.
import { execFileSync } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kEngineNames, selectedEngines } from '../helpers/browsers/engines.mjs';
import { describeInEngines } from '../helpers/browsers/in-engines.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';

test('LAYA_BROWSERS narrows the engines and says which are not run; an unknown name is refused', () => {
  expect(selectedEngines({}).map((e) => e.name)).toEqual(['chromium', 'firefox', 'webkit']);
  const said: string[] = [];
  expect(selectedEngines({ LAYA_BROWSERS: 'firefox, chromium' }, (line) => said.push(line)).map((e) => e.name)).toEqual(['firefox', 'chromium']);
  expect(said).toEqual(['laya-wasm browser tests: LAYA_BROWSERS=firefox, chromium runs firefox, chromium; NOT run: webkit']);
  expect(() => selectedEngines({ LAYA_BROWSERS: 'safari' })).toThrow('no browser engine "safari": the engines are chromium, firefox, webkit');
  expect(kEngineNames).toEqual(['chromium', 'firefox', 'webkit']);
});

test('an engine that is not installed fails its launch with the Debian package to install', () => {
  const script = `const { kEngines } = await import(${JSON.stringify(new URL('../helpers/browsers/engines.mjs', import.meta.url).href)});
    for (const e of kEngines) console.log(e.installedVersion(), '|', await e.launch().then(() => 'launched', (error) => error.message));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8',
    env: { ...process.env, LAYA_CHROMIUM: '/nowhere/chromium', LAYA_FIREFOX: '/nowhere/firefox', LAYA_WEBKIT_DRIVER: '/nowhere/WebKitWebDriver' } });
  expect(out.trim().split('\n')).toEqual([
    'not installed | browser tests need Chromium at /nowhere/chromium: apt-get install chromium (bash scripts/setup.sh does), or set LAYA_CHROMIUM',
    'not installed | browser tests need Firefox ESR at /nowhere/firefox: apt-get install firefox-esr (bash scripts/setup.sh does), or set LAYA_FIREFOX',
    "not installed | browser tests need WebKitGTK's /nowhere/WebKitWebDriver: apt-get install webkit2gtk-driver xvfb (bash scripts/setup.sh does), " +
      'or set LAYA_WEBKIT_DRIVER and LAYA_MINIBROWSER',
  ]);
});

describeInEngines('the engine seam', (browser) => {
  let server: PageServer;
  beforeAll(async () => { server = await startPageServer({}); });
  afterAll(async () => server?.close());

  test('evaluate awaits the function in the page and returns its result as the page had it', async () => {
    const page = await browser.open(`${server.origin}/index.html`);
    try {
      const got = await page.evaluate(async ({ n, text }) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        return { twice: n * 2, text, nothing: undefined, nan: NaN, negativeZero: -0, inf: -Infinity, list: [1, undefined, null],
          origin: location.origin, isolated: crossOriginIsolated };
      }, { n: 21, text: 'é "quoted"' });
      expect(got).toEqual({ twice: 42, text: 'é "quoted"', nothing: undefined, nan: NaN, negativeZero: -0, inf: -Infinity,
        list: [1, undefined, null], origin: server.origin, isolated: false });
      expect(Object.is(got.negativeZero, -0)).toBe(true);
      expect('nothing' in got).toBe(true);
      await expect(page.evaluate(() => { throw new RangeError('no such thing'); }))
        .rejects.toThrow(/: the page threw RangeError: no such thing$/);
    } finally {
      await page.close();
    }
  });

  test('pages do not share globals, and a screenshot is a PNG file', async () => {
    const first = await browser.open(`${server.origin}/index.html`);
    const second = await browser.open(`${server.origin}/index.html`);
    const dir = mkdtempSync(join(tmpdir(), 'laya-seam-'));
    try {
      await first.evaluate(() => { (globalThis as Record<string, unknown>)['mark'] = 'first'; });
      expect(await second.evaluate(() => (globalThis as Record<string, unknown>)['mark'])).toBeUndefined();
      expect(await first.evaluate(() => (globalThis as Record<string, unknown>)['mark'])).toBe('first');
      await second.reload();
      expect(await second.evaluate(() => document.readyState)).toBe('complete');
      await first.screenshot(join(dir, 'shot.png'));
      expect([...readFileSync(join(dir, 'shot.png')).subarray(1, 4)].map((c) => String.fromCharCode(c)).join('')).toBe('PNG');
    } finally {
      await first.close();
      await second.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the session names the engine it runs', () => {
    expect(browser.session.version).toMatch({ chromium: /^Chromium \d+\./, firefox: /^Firefox \d+\./, webkit: /^WebKitGTK \d+\./ }[browser.name]);
  });
});
