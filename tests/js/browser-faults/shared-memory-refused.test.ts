// iOS-class fault (a), in every browser engine: the engine refuses a shared WebAssembly.Memory with
// a large maximum (iOS Safari throws a RangeError for 2 GiB and more while smaller ones work,
// emscripten #19144). The page patches WebAssembly.Memory to refuse shared memories above a
// limit, as iOS does. The package steps the maximum down from 4 GiB in 128 MiB steps and runs the
// pthreads module in the first memory granted; if none is, the single-threaded module. Either way
// onWarning says why, and the answers are the single-threaded module's, value for value.
//
// WebKitGTK (unlike Safari) gives isolated pages no SharedArrayBuffer: its JavaScriptCore runs
// with useSharedArrayBuffer off. This file turns it on for the WebKit it launches
// (JSC_useSharedArrayBuffer=1, inherited by WebKitWebDriver and MiniBrowser), as Safari runs
// cross-origin-isolated pages, so the fault is met by the same threaded path in all three engines.
import { dirname } from 'node:path';
import { describeInEngines, type EnginePage } from '../helpers/browsers/in-engines.js';
import { kTinyCheckpoint } from '../helpers/fixtures.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
import { describeWithCore, kCoreJs } from '../helpers/real-core.js';

process.env['JSC_useSharedArrayBuffer'] = '1';
afterAll(() => { delete process.env['JSC_useSharedArrayBuffer']; });

interface Loaded {
  threads: number;
  warnings: string[];
  logits: number[][];
}

/**
 * Loads the tiny checkpoint in a fresh page, with shared memories above `refuseAbovePages` pages
 * refused (null: none refused), and answers the fixture's first question.
 */
async function loadWithSharedMemoryLimit(page: EnginePage, hubUrl: string, threads: number, refuseAbovePages: number | null): Promise<Loaded> {
  return page.evaluate(async ({ hubUrl, threads, refuseAbovePages }) => {
    if (refuseAbovePages !== null) {
      const Original = WebAssembly.Memory;
      const Refusing = function Memory(descriptor: WebAssembly.MemoryDescriptor & { shared?: boolean }) {
        if (descriptor.shared === true && (descriptor.maximum ?? Infinity) > refuseAbovePages) {
          throw new RangeError('WebAssembly.Memory(): could not allocate memory (simulated: iOS refuses this maximum)');
        }
        return new Original(descriptor);
      } as unknown as typeof WebAssembly.Memory;
      Refusing.prototype = Original.prototype;
      WebAssembly.Memory = Refusing;
    }
    const { load } = await import('/web/src/index.browser.js' as string);
    const warnings: string[] = [];
    const model = await load({ repo: 'org/tiny', hubUrl }, {
      threads, simd: 'plain', wasm: { moduleUrl: '/wasm/laya-core.js' }, onWarning: (w: string) => warnings.push(w),
    });
    const out = await model.forward({ inputs: [{ ids: [1, 5, 6, 7, 4, 2], markers: [4], qtype: 0 }] });
    const loaded = { threads: model.threads, warnings, logits: out.expected.map((e: { logits: number[] }) => e.logits) };
    model.dispose();
    return loaded;
  }, { hubUrl, threads, refuseAbovePages });
}

describeWithCore('a refused shared memory', () => describeInEngines('a refused shared memory', (browser) => {
  let server: PageServer;
  let page: EnginePage;
  let reference: Loaded;
  beforeAll(async () => {
    server = await startPageServer({ '/org/tiny/resolve/main/': kTinyCheckpoint, '/wasm/': dirname(kCoreJs) }, { isolated: true });
    const first = await browser.open(`${server.origin}/index.html`);
    reference = await loadWithSharedMemoryLimit(first, server.origin, 1, null).finally(() => first.close());
  });
  afterAll(async () => server?.close());
  beforeEach(async () => {
    page = await browser.open(`${server.origin}/index.html`);
  });
  afterEach(async () => page?.close());

  test('unrefused, the isolated page runs the pthreads module on the 2 threads asked for, with no warning', async () => {
    const loaded = await loadWithSharedMemoryLimit(page, server.origin, 2, null);
    expect(loaded.threads).toBe(2);
    expect(loaded.warnings.filter((w) => w.includes('laya-wasm'))).toEqual([]);
    expect(loaded.logits).toEqual(reference.logits);
  });

  test('refused above 2 GiB, the pthreads module runs in a smaller shared memory, and onWarning names the refusal', async () => {
    const twoGiBPages = (2 * 2 ** 30) / 65536;
    const loaded = await loadWithSharedMemoryLimit(page, server.origin, 2, twoGiBPages - 1);
    expect(loaded.threads).toBe(2);
    expect(loaded.warnings).toContain('laya-wasm: this engine refused a shared WebAssembly.Memory with a 4 GiB maximum ' +
      '(RangeError: WebAssembly.Memory(): could not allocate memory (simulated: iOS refuses this maximum)); ' +
      'the pthreads module runs in one of at most 1920 MiB, so the weights and a request must fit in that');
    expect(loaded.logits).toEqual(reference.logits);
  });

  test('refused at every maximum, the single-threaded module runs, and onWarning says why', async () => {
    const before = server.requests.length;
    const loaded = await loadWithSharedMemoryLimit(page, server.origin, 2, 0);
    expect(loaded.threads).toBe(1);
    expect(loaded.warnings).toContain('laya-wasm: running the single-threaded module: this engine refused a shared ' +
      'WebAssembly.Memory at every maximum from 4 GiB down to 256 MiB (RangeError: WebAssembly.Memory(): could not allocate ' +
      'memory (simulated: iOS refuses this maximum)), so the pthreads module cannot run');
    const wasm = server.requests.slice(before).filter((p) => p.endsWith('.wasm'));
    expect(wasm).toEqual(['/wasm/laya-core.wasm']);
    expect(loaded.logits).toEqual(reference.logits);
  });
}));
