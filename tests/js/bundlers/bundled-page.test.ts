// Issue 13's zero-config bundlers: a page importing 'laya-wasm' with no option about the wasm
// module, bundled from the packed tarball by Vite and by webpack 5 with no configuration beyond an
// entry, served exactly as the bundler emitted it, answers in every browser engine (Chromium,
// Firefox, WebKit) within the reference tolerance, on one thread, on two (module pthread workers;
// one in WebKitGTK, which gives isolated pages no SharedArrayBuffer: engine-facts.ts), and inside
// the package's own worker ({ worker: true }). Both bundles are built once and served to each engine. Nothing is copied into the site by hand: the .wasm files, the glue
// and the workers are there only because the bundler followed the package's
// new URL(..., import.meta.url) and import() (web/src/browser/esm-module.ts). An unbuilt dist/, a
// missing bundler or a missing browser engine fails the tests; nothing is skipped.
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { defaultSimd, kSharedMemoryWhenIsolated } from '../helpers/browsers/engine-facts.js';
import { describeInEngines, waitInPage } from '../helpers/browsers/in-engines.js';
import { kTinyCheckpoint } from '../helpers/fixtures.js';
import { bundle, createConsumerProject, type Bundler } from './consumer-project.js';
import { startSiteServer, type SiteServer } from './site-server.js';

interface PageResult {
  error?: string;
  worst: number;
  sequences: number;
  expectedSequences: number;
  embeddings: number;
  expectedEmbeddings: number;
  choice: string;
  threads: number;
  simd: string;
  warnings: string[];
}

const kVariants = [
  { name: 'on the page thread', query: '', threads: 1 },
  { name: 'on two threads (module pthread workers)', query: '?threads=2', threads: 2 },
  { name: 'in the package worker ({ worker: true }) on two threads', query: '?worker&threads=2', threads: 2 },
];

const kBundlers: Bundler[] = ['vite', 'webpack'];
let project: string;
const sites = new Map<Bundler, SiteServer>();
beforeAll(async () => {
  project = await createConsumerProject();
  for (const bundler of kBundlers) {
    const output = await bundle(bundler, project);
    sites.set(bundler, await startSiteServer({ '/': output, '/ckpt/': kTinyCheckpoint, '/fixture/': dirname(kTinyCheckpoint) }));
  }
}, 240000);
afterAll(async () => {
  for (const site of sites.values()) await site.close();
  if (project) rmSync(dirname(project), { recursive: true, force: true });
});

describeInEngines('bundled pages', (browser) => describe.each(kBundlers)('a page bundled by %s from the packed tarball', (bundler) => {
  test.each(kVariants)('loads the checkpoint and answers $name', async ({ query, threads }) => {
    const site = sites.get(bundler) as SiteServer;
    const first = site.requests.length;
    const page = await browser.open(`${site.origin}/index.html${query}`);
    let result: PageResult;
    let pageErrors: string[];
    try {
      await waitInPage(page, 'window.result', () => (window as { result?: unknown }).result !== undefined, undefined, 60000);
      // Bounded, so a load that never settles fails here saying so rather than at Jest's timeout.
      result = await page.evaluate(() => Promise.race([(window as unknown as { result: Promise<PageResult> }).result,
        new Promise<PageResult>((resolve) => setTimeout(() => resolve({ error: 'window.result did not settle within 60 s' } as PageResult), 60000))]));
      pageErrors = await page.evaluate(() => (window as unknown as { pageErrors: string[] }).pageErrors);
    } finally {
      await page.close();
    }
    expect(result.error).toBeUndefined();
    expect(pageErrors).toEqual([]);
    expect(result.worst).toBeLessThan(1e-4);
    expect([result.sequences, result.embeddings]).toEqual([result.expectedSequences, result.expectedEmbeddings]);
    expect(['w1', 'w2']).toContain(result.choice);
    const shared = kSharedMemoryWhenIsolated[browser.name];
    expect(result.threads).toBe(shared ? threads : 1);
    if (!shared && threads > 1) expect(result.warnings).toContainEqual(expect.stringContaining(`running on 1 thread, not the ${threads} asked for`));
    const simd = defaultSimd(browser.name);
    expect(result.simd).toBe(simd);
    const requests = site.requests.slice(first);
    // Everything the page asked for was in the bundle or the checkpoint (a favicon is the browser's).
    expect(requests.filter((r) => r.status !== 200 && r.path !== '/favicon.ico')).toEqual([]);
    // The module's .wasm (relaxed SIMD where the engine has it) came out of the bundle, under the
    // name the bundler gave it (webpack's is a bare hash).
    const viteName = simd === 'relaxed' ? /laya-core(-mt)?-relaxed-[\w-]+\.wasm$/ : /laya-core(-mt)?-(?!relaxed-)[\w-]+\.wasm$/;
    expect(requests.filter((r) => r.path.endsWith('.wasm') && !r.path.startsWith('/ckpt/')))
      .toEqual([{ path: expect.stringMatching(bundler === 'vite' ? viteName : /^\/[0-9a-f]+\.wasm$/), status: 200 }]);
  }, 90000);
}));
