// A page on a persistent profile (the seam's launch({ profileDir })), in each engine: the first
// visit downloads the tiny checkpoint into the store that cacheStore 'auto' picks; after the
// browser is closed and launched again on the same profile, the page loads it from that store
// without asking the server for the weights (the server's request log shows none) and gets the
// same bytes. WebKit runs with Safari's storage features (safariStorage), so 'auto' takes its OPFS.
// The same with the model in the package's worker ({ worker: true }), disposed as soon as it
// loads: the worker outlives dispose() until the store has committed the files behind the load.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { selectedEngines } from '../helpers/browsers/engines.mjs';
import { engineTitle } from '../helpers/browsers/in-engines.js';
import { kTinyCheckpoint, safetensorsDataSection } from '../helpers/fixtures.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
import { describeWithCore, kCoreJs } from '../helpers/real-core.js';
import type { PlainLoadResult } from './page-store-cases.js';

const kPrefix = '/org/tiny/resolve/main/';
const kWeightsRequest = `${kPrefix}model.safetensors`;
const kDigest = createHash('sha256').update(safetensorsDataSection(join(kTinyCheckpoint, 'model.safetensors'))).digest('hex');
/** The store 'auto' picks first, in every engine (choose-store.ts). */
const kAutoStore = 'opfs';

describeWithCore('persistent profiles', () => describe.each(selectedEngines().map((engine) => [engineTitle(engine), engine] as const))('a page on a persistent profile, in %s', (_title, engine) => {
  let server: PageServer;
  let profileDir: string;
  beforeAll(async () => {
    server = await startPageServer({ [kPrefix]: kTinyCheckpoint, '/wasm/': dirname(kCoreJs) });
    profileDir = mkdtempSync(join(tmpdir(), `laya-profile-${engine.name}-`));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(profileDir, { recursive: true, force: true });
  });

  /** One browser launch on the profile: opens the page, runs `inPage`, closes the browser. */
  async function visit<T>(inPage: (hubUrl: string) => Promise<T>): Promise<T> {
    const session = await engine.launch({ profileDir, safariStorage: true });
    try {
      const page = await session.open(`${server.origin}/index.html`);
      const result = await page.evaluate(inPage, server.origin);
      await page.close();
      return result;
    } finally {
      await session.close();
    }
  }

  /** Loads once on the page's thread (the fake wasm module), with the store 'auto' picks. */
  const plainVisit = (): Promise<PlainLoadResult> => visit(async (hubUrl) => {
    const cases = await import('/tests/js/browser/page-store-cases.js' as string);
    return cases.plainLoad(hubUrl, 'laya-wasm-profile-test') as Promise<PlainLoadResult>;
  });

  test('after a relaunch the page loads the checkpoint from its store, with no request for the weights', async () => {
    const first = await plainVisit();
    expect(first.errors).toEqual([]);
    expect(first.digest).toBe(kDigest);
    expect(first.storedIn).toBe(kAutoStore);
    expect(server.requests.filter((path) => path === kWeightsRequest)).toHaveLength(1);

    const before = server.requests.length;
    const again = await plainVisit();
    expect(again.errors).toEqual([]);
    expect(again.digest).toBe(kDigest);
    expect(again.storedIn).toBe(kAutoStore);
    expect(server.requests.slice(before).filter((path) => path.startsWith(kPrefix))).toEqual([]);
    // Storage warnings would mean the store was not used (persist() refusals are not about that).
    expect(again.warnings.filter((w) => !w.startsWith('laya-wasm: persistent storage was not granted'))).toEqual([]);
  }, 180000);

  test('a model in the package worker, disposed as soon as it loads, ends its worker once the files are stored, and the next visit reads them', async () => {
    /** A load with { worker: true }, the model disposed at once: its worker's end, where the weights came from, the answer. */
    const workerVisit = () => visit(async (hubUrl) => {
      const { trackWorkers, trackedWorkers } = await import('/tests/js/helpers/worker-tracker.js' as string);
      trackWorkers();
      const { load } = await import('/web/src/index.browser.js' as string);
      const weightsFrom = new Set<string>();
      const warnings: string[] = [];
      const model = await load({ repo: 'org/tiny', hubUrl }, {
        worker: true, simd: 'plain', cache: 'laya-wasm-profile-worker-test', wasm: { moduleUrl: '/wasm/laya-core.js' },
        onWarning: (w: string) => warnings.push(w),
        onProgress: (e: { type: string; file?: string; fromStore?: boolean }) => {
          if (e.type === 'download' && e.file === 'model.safetensors') weightsFrom.add(e.fromStore === true ? 'store' : 'network');
        },
      });
      const answer = await model.predictJson('w5 w6 w7', { holds: { type: 'noul', instructions: 'w30 w31' } });
      model.dispose();
      const endedAtDispose = trackedWorkers().map((w: { terminated: boolean }) => w.terminated);
      await model.stored;
      const endedOnceStored = trackedWorkers().map((w: { terminated: boolean }) => w.terminated);
      return { endedAtDispose, endedOnceStored, weightsFrom: [...weightsFrom], answer,
        warnings: warnings.filter((w) => w.startsWith('laya-wasm:') && !w.startsWith('laya-wasm: persistent storage was not granted')) };
    });
    const before = server.requests.length;
    const first = await workerVisit();
    expect(first).toMatchObject({ endedOnceStored: [true], weightsFrom: ['network'], warnings: [] });
    expect(server.requests.slice(before).filter((path) => path === kWeightsRequest)).toHaveLength(1);

    const between = server.requests.length;
    const again = await workerVisit();
    expect(again).toEqual({ ...first, endedAtDispose: again.endedAtDispose, weightsFrom: ['store'] });
    expect(server.requests.slice(between).filter((path) => path.startsWith(kPrefix))).toEqual([]);
  }, 180000);
}));
