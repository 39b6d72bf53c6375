// The page's weight store in a real browser, for each store (the Cache API, the origin private
// file system): a first load stores every file in one pass and a reload reads the store after a
// 304; a torn entry and a changed remote file are downloaded again; a quota too small, a
// QuotaExceededError mid-write and refused storage load from the network unstored with a warning
// and no half entry; an abort during the download or the store load frees everything; persist()
// is asked and its answer reported. The cases run in the page (page-store-cases.ts), in every
// engine of the browser seam (tests/js/helpers/browsers/).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kCheckpointFiles } from '../../../web/src/sources/checkpoint-source.js';
import { describeInEngines, type EnginePage } from '../helpers/browsers/in-engines.js';
import { kTinyCheckpoint, safetensorsDataSection } from '../helpers/fixtures.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
import type { EngineName } from '../helpers/browsers/engines.mjs';
import type { CaseName, CaseResult, StoreName } from './page-store-cases.js';

/**
 * Whether the engine has the origin private file system. WebKitGTK 2.50's MiniBrowser (Debian's
 * build, as the seam drives it) has no navigator.storage at all: no OPFS, estimate() or persist().
 */
const kStorageManager: Record<EngineName, boolean> = { chromium: true, firefox: true, webkit: false };

const kPrefix = '/org/tiny/resolve/main/';
const kWeightsPath = join(kTinyCheckpoint, 'model.safetensors');
const kWeightsSize = readFileSync(kWeightsPath).length;
const kDigest = createHash('sha256').update(safetensorsDataSection(kWeightsPath)).digest('hex');
const kFiles = [...kCheckpointFiles].sort();
const kRevalidated = kFiles.map((f) => `${f} if-none-match`).sort();
const kNotStored = `laya-wasm: model.safetensors (${kWeightsSize} bytes) is loaded from the network without being stored: `;

/** A first load stored every file whole; the next revalidated each (304) and read the store, and its progress says so. */
function expectStoredThenReadBack(r: CaseResult): void {
  expect(r.errors).toEqual([]);
  // The files are opened at once (load.ts), so their requests come in the order their stores answer.
  expect(r.requests.map((load) => [...load].sort())).toEqual([[...kFiles].sort(), [...kRevalidated].sort()]);
  expect(r.digests).toEqual([kDigest, kDigest]);
  expect(r.storedWeights).toBe(kWeightsSize);
  const done = { type: 'download', file: 'model.safetensors', loaded: kWeightsSize, total: kWeightsSize };
  expect(r.lastWeightEvents).toEqual([done, { ...done, fromStore: true }]);
  expect(r.warnings).toEqual([]);
}

describeInEngines('the page store', (browser) => {
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

  function run(name: CaseName, store: StoreName): Promise<CaseResult> {
    return page.evaluate(async ({ name, store, hubUrl }) => {
      const cases = await import('/tests/js/browser/page-store-cases.js' as string);
      return cases.runCase(name, store, hubUrl) as Promise<CaseResult>;
    }, { name, store, hubUrl: server.origin });
  }

  /** The case run in a dedicated module worker of the page's (page-store-worker.ts), where the package's own worker runs its store. */
  function runInWorker(name: CaseName, store: StoreName): Promise<CaseResult> {
    return page.evaluate(async ({ name, store, hubUrl }) => {
      const worker = new Worker('/tests/js/browser/page-store-worker.js', { type: 'module' });
      try {
        const answer = await new Promise<{ result?: CaseResult; error?: string }>((resolve) => {
          worker.onmessage = (event) => resolve(event.data);
          worker.onerror = (event) => resolve({ error: `the worker failed: ${event.message}` });
          worker.postMessage({ name, store, hubUrl });
        });
        if (answer.error !== undefined) throw new Error(answer.error);
        return answer.result as CaseResult;
      } finally {
        worker.terminate();
      }
    }, { name, store, hubUrl: server.origin });
  }

  // The store in a dedicated worker, as { worker: true } runs it: there the OPFS store opens its
  // sync access handles itself to read, straight into the worker's wasm memory, and to write in
  // Firefox (a nested worker there now and then never started, and the load hung); Chromium writes
  // through nested workers, so that the writes do not hold up the download on the load's thread.
  describe('the opfs store in a dedicated worker', () => {
    if (!kStorageManager[browser.name]) {
      test('this engine has no OPFS in a worker either: the load comes from the network, and a warning says why', async () => {
        const r = await runInWorker('store-then-revalidate', 'opfs');
        expect(r.errors).toEqual([]);
        expect(r.digests).toEqual([kDigest, kDigest]);
        expect(r.requests).toEqual([kFiles, kFiles]);
        expect(r.warnings[0]).toMatch(/^laya-wasm: the checkpoint is loaded from the network without being stored: the browser refused storage \(the origin private file system: /);
      });
      return;
    }
    test('stores every file in one pass (nested workers writing only in Chromium), and the next load reads them back with handles of its own', async () => {
      const r = await runInWorker('store-then-revalidate', 'opfs');
      expectStoredThenReadBack(r);
      expect((r.workersPerLoad[0] ?? 0) > 0).toBe(browser.name === 'chromium');
      expect(r.workersPerLoad[1]).toBe(0);
    });

    test('a torn entry is downloaded again', async () => {
      const r = await runInWorker('torn', 'opfs');
      expect(r.errors).toEqual([]);
      expect(r.requests[1]).toContain('model.safetensors');
      expect(r.digests).toEqual([kDigest, kDigest]);
      expect(r.storedWeights).toBe(kWeightsSize);
    });

    test('a QuotaExceededError from its own handles stops the storing, not the load, and leaves no half entry', async () => {
      const r = await runInWorker('quota-exceeded', 'opfs');
      expect(r.errors).toEqual([]);
      expect(r.digests).toEqual([kDigest]);
      expect(r.warnings.find((w) => w.startsWith(kNotStored)) ?? r.warnings.join('\n')).toMatch(/storing it failed \(QuotaExceededError: /);
      expect(r.storedWeights).toBe(0);
    });

    test('an abort during the download and during a load from the store leaves no half entry', async () => {
      const r = await runInWorker('abort', 'opfs');
      expect(r.errors).toHaveLength(2);
      for (const e of r.errors) expect(e).toMatch(/^AbortError: /);
      expect(r.live).toBe(0);
      expect(r.storedWeights).toBe(kWeightsSize);
    });
  });

  // 'opfs' is the OPFS as the engine gives it: through sync access handles in the store's worker
  // where it can (Chromium, Firefox); 'opfs-writable' is the same store in a page without Worker
  // (createWritable() and File slices on the page's thread, WebKit's route).
  describe.each(['cache-api', 'opfs', 'opfs-writable'] as const)('the %s store', (store) => {
    if (store !== 'cache-api' && !kStorageManager[browser.name]) {
      test('this engine has no OPFS: the opfs store loads from the network, and a warning says why', async () => {
        const r = await run('store-then-revalidate', store);
        expect(r.errors).toEqual([]);
        expect(r.digests).toEqual([kDigest, kDigest]);
        expect(r.requests).toEqual([kFiles, kFiles]);
        expect(r.warnings[0]).toBe('laya-wasm: the checkpoint is loaded from the network without being stored: the browser refused storage ' +
          '(the origin private file system: navigator.storage.getDirectory is missing)');
      });
      return;
    }
    test('a first load stores every file in one pass; the next revalidates (304) and reads the store, with progress', async () => {
      const r = await run('store-then-revalidate', store);
      expectStoredThenReadBack(r);
      // Only the OPFS store on its sync-handle route starts workers (one per file written or read;
      // threads: 1, so WebKit starts none to count its cores).
      expect(r.workers > 0).toBe(store === 'opfs');
    });

    if (store === 'opfs') {
      test('with shared wasm memory (threads) the worker reads the stored weights straight into it, the same bytes', async () => {
        const r = await run('shared-memory', store);
        expect(r.errors).toEqual([]);
        expect(r.requests.map((load) => [...load].sort())).toEqual([[...kFiles].sort(), [...kRevalidated].sort()]);
        expect(r.digests).toEqual([kDigest, kDigest]);
        expect(r.lastWeightEvents[1]).toMatchObject({ loaded: kWeightsSize, fromStore: true });
      });
    }

    test('a torn entry (shorter than its record) is downloaded again, never loaded truncated', async () => {
      const r = await run('torn', store);
      expect(r.errors).toEqual([]);
      expect(r.requests[1]).toContain('model.safetensors');
      expect(r.digests).toEqual([kDigest, kDigest]);
      expect(r.storedWeights).toBe(kWeightsSize);
    });

    test('a remote file with a new ETag replaces the stored one', async () => {
      const r = await run('changed', store);
      expect(r.errors).toEqual([]);
      expect(r.digests).toEqual([kDigest, kDigest]);
      expect(r.storedEtag).toBe('"v2"');
    });

    test('navigator.storage.estimate() too small: loads from the network unstored, naming bytes needed and available', async () => {
      const r = await run('quota-estimate', store);
      expect(r.errors).toEqual([]);
      expect(r.digests).toEqual([kDigest]);
      expect(r.warnings).toContain(`${kNotStored}the browser gives this site 4000 bytes of storage`);
      expect(r.storedWeights).toBe(0);
    });

    test('a QuotaExceededError mid-write stops the storing, not the load, and leaves no half entry', async () => {
      const r = await run('quota-exceeded', store);
      expect(r.errors).toEqual([]);
      expect(r.digests).toEqual([kDigest]);
      const warning = r.warnings.find((w) => w.startsWith(kNotStored)) ?? r.warnings.join('\n');
      const available = kStorageManager[browser.name] ? '\\d+ bytes of storage are available' : 'the browser does not say how much storage is available';
      expect(warning).toMatch(new RegExp(`storing it failed \\(QuotaExceededError: .*\\); ${available}$`));
      expect(r.storedWeights).toBe(0);
    });

    test('storage refused (SecurityError): loads from the network with a warning saying so', async () => {
      const r = await run('refused', store);
      expect(r.errors).toEqual([]);
      expect(r.digests).toEqual([kDigest]);
      expect(r.warnings).toHaveLength(1);
      expect(r.warnings[0]).toMatch(/^laya-wasm: the checkpoint is loaded from the network without being stored: the browser refused storage \(.*SecurityError.*\)$/);
    });

    test('an abort during the download and during a load from the store frees everything and leaves no half entry', async () => {
      const r = await run('abort', store);
      expect(r.errors).toHaveLength(2);
      for (const e of r.errors) expect(e).toMatch(/^AbortError: /);
      expect(r.live).toBe(0);
      // The first abort left nothing; the load between stored the file whole, and the abort after it left it so.
      expect(r.requests[0]).toContain('model.safetensors');
      expect(r.requests[1]).toContain('model.safetensors');
      expect(r.storedWeights).toBe(kWeightsSize);
    });

    test('persist: navigator.storage.persist() is asked without the load waiting, and its answer reported (a refusal is also a warning)', async () => {
      const r = await run('persist', store);
      expect(r.errors).toEqual([]);
      expect(r.digests).toEqual([kDigest]);
      if (browser.name === 'firefox') {
        // Firefox asks the user (a prompt that a headless run never answers): the load went on without it.
        expect(r.persisted).toBeUndefined();
        return;
      }
      expect(typeof r.persisted).toBe('boolean');
      const warned = r.warnings.some((w) => w.startsWith('laya-wasm: persistent storage was not granted'));
      expect(warned).toBe(r.persisted === false);
    });
  });
});
