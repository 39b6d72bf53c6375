// The browser entry point in every browser engine (Chromium, Firefox, WebKit), with the fake wasm module: the module graph of
// index.browser loads in a page (no `node:` import), fetch streams the weights into wasm memory,
// the real Cache API keeps the files so a second load makes no request, and picked Files load.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { kCheckpointFiles } from '../../../web/src/sources/checkpoint-source.js';
import { describeInEngines, type EnginePage } from '../helpers/browsers/in-engines.js';
import { kTinyCheckpoint, safetensorsDataSection } from '../helpers/fixtures.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';

const kPrefix = '/org/tiny/resolve/main/';
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const kWeightsDigest = sha256(safetensorsDataSection(join(kTinyCheckpoint, 'model.safetensors')));

interface PageResult {
  digests: string[];
  live: number;
  lastEvents: unknown[];
  hasCache: boolean;
}

/** Loads twice in the page (the second time from the Cache API) and reports what the fake saw. */
async function loadTwiceWithCache(page: EnginePage, server: PageServer): Promise<PageResult> {
  return page.evaluate(async (hubUrl) => {
    const { load } = await import('/web/src/index.browser.js' as string);
    const { FakeCore } = await import('/tests/js/helpers/fake-core.js' as string);
    const digest = async (bytes: Uint8Array<ArrayBuffer>): Promise<string> =>
      Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
    const fake = new FakeCore();
    const events: unknown[] = [];
    const digests: string[] = [];
    for (let i = 0; i < 2; i++) {
      const model = await load({ repo: 'org/tiny', hubUrl }, { cache: true, cacheStore: 'cache-api', wasm: { factory: fake.factory }, onProgress: (e: unknown) => events.push(e) });
      digests.push(await digest(fake.sessions[i].weights));
      model.dispose();
    }
    return { digests, live: fake.live, lastEvents: events.slice(-2), hasCache: (await caches.keys()).includes('laya-wasm-v1') };
  }, server.origin);
}

describeInEngines('the browser entry', (browser) => {
  let server: PageServer;
  let page: EnginePage;
  beforeAll(async () => {
    server = await startPageServer({ [kPrefix]: kTinyCheckpoint });
  });
  afterAll(async () => server?.close());
  beforeEach(async () => {
    page = await browser.open(`${server.origin}/index.html`);
  });
  afterEach(async () => page?.close());

  test('a Hub source streams into wasm memory and the Cache API serves the second load', async () => {
    const before = server.requests.length;
    const result = await loadTwiceWithCache(page, server);
    const checkpointRequests = server.requests.slice(before).filter((p) => p.startsWith(kPrefix));
    expect(checkpointRequests.sort()).toEqual(kCheckpointFiles.map((f) => `${kPrefix}${f}`).sort());
    expect(result.digests).toEqual([kWeightsDigest, kWeightsDigest]);
    expect(result.live).toBe(0);
    expect(result.hasCache).toBe(true);
    expect(result.lastEvents.at(-1)).toEqual({ type: 'ready' });
  });

  test('Files picked with their folder path load, and a directory source is refused with a hint', async () => {
    const result = await page.evaluate(async ({ base, files }) => {
      const { load } = await import('/web/src/index.browser.js' as string);
      const { FakeCore } = await import('/tests/js/helpers/fake-core.js' as string);
      const picked: File[] = [];
      for (const f of files) {
        const blob = await (await fetch(base + f)).blob();
        const file = new File([blob], f.split('/').at(-1) as string);
        Object.defineProperty(file, 'webkitRelativePath', { value: `picked/${f}` });
        picked.push(file);
      }
      const fake = new FakeCore();
      const model = await load({ files: picked }, { wasm: { factory: fake.factory } });
      const weights = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', fake.session.weights)),
        (b) => b.toString(16).padStart(2, '0')).join('');
      model.dispose();
      const refused = await load({ directory: '/x' }, { wasm: { factory: fake.factory } }).catch((e: Error & { code: string }) => `${e.code}: ${e.message}`);
      return { weights, refused };
    }, { base: `${server.origin}${kPrefix}`, files: [...kCheckpointFiles] });
    expect(result.weights).toBe(kWeightsDigest);
    expect(result.refused).toMatch(/^invalid_request: load: \{ directory \} sources need Node; in a browser pass \{ files \}/);
  });
});
