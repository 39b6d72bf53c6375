// The default thread count in every browser engine, on a cross-origin-isolated page: Chromium and
// Firefox report the logical cores in navigator.hardwareConcurrency and the package takes them
// (at most 4); WebKit pads the figure (4 on a 2-core machine), so there the package counts how
// many busy workers run at once and takes that (never below 2, never above the figure), and the
// model reports the threads it runs. The count depends on the machine, so these tests check its
// bounds and that model.threads is what ran, not a figure.
//
// WebKit runs with JSC_useSharedArrayBuffer=1, as Safari runs isolated pages (WebKitGTK gives
// them no SharedArrayBuffer otherwise; shared-memory-refused.test.ts says more).
import { dirname } from 'node:path';
import { describeInEngines } from '../helpers/browsers/in-engines.js';
import { kTinyCheckpoint } from '../helpers/fixtures.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
import { describeWithCore, kCoreJs } from '../helpers/real-core.js';

process.env['JSC_useSharedArrayBuffer'] = '1';
afterAll(() => { delete process.env['JSC_useSharedArrayBuffer']; });

const kPadsCores = { chromium: false, firefox: false, webkit: true } as const;

describeWithCore('the default thread count', () => describeInEngines('the default thread count', (browser) => {
  let server: PageServer;
  beforeAll(async () => {
    server = await startPageServer({ '/org/tiny/resolve/main/': kTinyCheckpoint, '/wasm/': dirname(kCoreJs) }, { isolated: true });
  });
  afterAll(async () => server?.close());

  test('is the reported cores where the engine reports them, the cores counted where it pads them, and model.threads says it', async () => {
    const page = await browser.open(`${server.origin}/index.html`);
    const result = await page.evaluate(async (hubUrl) => {
      const { padsHardwareConcurrency, measureConcurrentWorkers } = await import('/web/src/browser/useful-threads.js' as string);
      const { load } = await import('/web/src/index.browser.js' as string);
      const reported = navigator.hardwareConcurrency;
      const counted = await measureConcurrentWorkers(reported);
      const model = await load({ repo: 'org/tiny', hubUrl }, { simd: 'plain', wasm: { moduleUrl: '/wasm/laya-core.js' }, onWarning: () => undefined });
      const threads = model.threads;
      model.dispose();
      return { pads: padsHardwareConcurrency(), reported, counted, threads, shared: typeof SharedArrayBuffer };
    }, server.origin).finally(() => page.close());
    expect(result.shared).toBe('function');
    expect(result.pads).toBe(kPadsCores[browser.name]);
    expect(Number.isInteger(result.counted)).toBe(true);
    expect(result.counted).toBeGreaterThanOrEqual(Math.min(2, result.reported));
    expect(result.counted).toBeLessThanOrEqual(result.reported);
    if (kPadsCores[browser.name]) {
      // The page measured its own count again at load (a separate measurement): the same bounds.
      expect(result.threads).toBeGreaterThanOrEqual(Math.min(2, result.reported));
      expect(result.threads).toBeLessThanOrEqual(Math.min(4, result.reported));
    } else {
      expect(result.threads).toBe(Math.max(1, Math.min(4, result.reported)));
    }
  });

  test('an explicit threads option is taken as given, whatever the engine reports', async () => {
    const page = await browser.open(`${server.origin}/index.html`);
    const threads = await page.evaluate(async (hubUrl) => {
      const { load } = await import('/web/src/index.browser.js' as string);
      const model = await load({ repo: 'org/tiny', hubUrl }, { threads: 3, simd: 'plain', wasm: { moduleUrl: '/wasm/laya-core.js' } });
      const ran = model.threads;
      model.dispose();
      return ran;
    }, server.origin).finally(() => page.close());
    expect(threads).toBe(3);
  });
}));
