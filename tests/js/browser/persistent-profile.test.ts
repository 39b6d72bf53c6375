// A page on a persistent profile (the seam's launch({ profileDir })), in each engine: the first
// visit downloads the tiny checkpoint into the store that cacheStore 'auto' picks; after the
// browser is closed and launched again on the same profile, the page loads it from that store
// without asking the server for the weights (the server's request log shows none) and gets the
// same bytes. WebKit runs with Safari's storage features (safariStorage), so 'auto' takes its OPFS.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selectedEngines } from '../helpers/browsers/engines.mjs';
import { engineTitle } from '../helpers/browsers/in-engines.js';
import { kTinyCheckpoint, safetensorsDataSection } from '../helpers/fixtures.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
import type { PlainLoadResult } from './page-store-cases.js';

const kPrefix = '/org/tiny/resolve/main/';
const kWeightsRequest = `${kPrefix}model.safetensors`;
const kDigest = createHash('sha256').update(safetensorsDataSection(join(kTinyCheckpoint, 'model.safetensors'))).digest('hex');
/** The store 'auto' picks in each engine (choose-store.ts measuredStore). */
const kAutoStore = { chromium: 'opfs', firefox: 'opfs', webkit: 'opfs' } as const;

describe.each(selectedEngines().map((engine) => [engineTitle(engine), engine] as const))('a page on a persistent profile, in %s', (_title, engine) => {
  let server: PageServer;
  let profileDir: string;
  beforeAll(async () => {
    server = await startPageServer({ [kPrefix]: kTinyCheckpoint });
    profileDir = mkdtempSync(join(tmpdir(), `laya-profile-${engine.name}-`));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(profileDir, { recursive: true, force: true });
  });

  /** One browser launch on the profile: opens the page, loads once, closes the browser. */
  async function visit(): Promise<PlainLoadResult> {
    const session = await engine.launch({ profileDir, safariStorage: true });
    try {
      const page = await session.open(`${server.origin}/index.html`);
      const result = await page.evaluate(async ({ hubUrl }) => {
        const cases = await import('/tests/js/browser/page-store-cases.js' as string);
        return cases.plainLoad(hubUrl, 'laya-wasm-profile-test') as Promise<PlainLoadResult>;
      }, { hubUrl: server.origin });
      await page.close();
      return result;
    } finally {
      await session.close();
    }
  }

  test('after a relaunch the page loads the checkpoint from its store, with no request for the weights', async () => {
    const first = await visit();
    expect(first.errors).toEqual([]);
    expect(first.digest).toBe(kDigest);
    expect(first.storedIn).toBe(kAutoStore[engine.name]);
    expect(server.requests.filter((path) => path === kWeightsRequest)).toHaveLength(1);

    const before = server.requests.length;
    const again = await visit();
    expect(again.errors).toEqual([]);
    expect(again.digest).toBe(kDigest);
    expect(again.storedIn).toBe(kAutoStore[engine.name]);
    expect(server.requests.slice(before).filter((path) => path.startsWith(kPrefix))).toEqual([]);
    // Storage warnings would mean the store was not used (persist() refusals are not about that).
    expect(again.warnings.filter((w) => !w.startsWith('laya-wasm: persistent storage was not granted'))).toEqual([]);
  }, 180000);
});
