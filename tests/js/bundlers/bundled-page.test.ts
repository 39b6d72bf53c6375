// Issue 13's zero-config bundlers: a page importing 'laya-wasm' with no option about the wasm
// module, bundled from the packed tarball by Vite and by webpack 5 with no configuration beyond an
// entry, served exactly as the bundler emitted it, answers in headless Chromium within the
// reference tolerance, on one thread, on two (module pthread workers), and inside the package's
// own worker ({ worker: true }). Nothing is copied into the site by hand: the .wasm files, the glue
// and the workers are there only because the bundler followed the package's
// new URL(..., import.meta.url) and import() (web/src/browser/esm-module.ts). An unbuilt dist/, a
// missing bundler or a missing Chromium fails the tests; nothing is skipped.
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.js';
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
}

const kVariants = [
  { name: 'on the page thread', query: '', threads: 1 },
  { name: 'on two threads (module pthread workers)', query: '?threads=2', threads: 2 },
  { name: 'in the package worker ({ worker: true }) on two threads', query: '?worker&threads=2', threads: 2 },
];

let browser: Browser;
let project: string;
beforeAll(async () => {
  browser = await launchChromium();
  project = await createConsumerProject();
}, 60000);
afterAll(async () => {
  await browser?.close();
  if (project) rmSync(dirname(project), { recursive: true, force: true });
});

describe.each<Bundler>(['vite', 'webpack'])('a page bundled by %s from the packed tarball', (bundler) => {
  let site: SiteServer;
  beforeAll(async () => {
    const output = await bundle(bundler, project);
    site = await startSiteServer({ '/': output, '/ckpt/': kTinyCheckpoint, '/fixture/': dirname(kTinyCheckpoint) });
  }, 180000);
  afterAll(async () => site?.close());

  test.each(kVariants)('loads the checkpoint and answers $name', async ({ query, threads }) => {
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const first = site.requests.length;
    try {
      await page.goto(`${site.origin}/index.html${query}`);
      await page.waitForFunction(() => (window as { result?: unknown }).result !== undefined, null, { timeout: 60000 });
      const result = await page.evaluate(() => (window as unknown as { result: Promise<PageResult> }).result);
      expect(result.error).toBeUndefined();
      expect(pageErrors).toEqual([]);
      expect(result.worst).toBeLessThan(1e-4);
      expect([result.sequences, result.embeddings]).toEqual([result.expectedSequences, result.expectedEmbeddings]);
      expect(['w1', 'w2']).toContain(result.choice);
      expect(result.threads).toBe(threads);
      expect(result.simd).toBe('relaxed');
    } finally {
      await page.close();
    }
    const requests = site.requests.slice(first);
    // Everything the page asked for was in the bundle or the checkpoint (a favicon is the browser's).
    expect(requests.filter((r) => r.status !== 200 && r.path !== '/favicon.ico')).toEqual([]);
    // The relaxed-SIMD module's .wasm came out of the bundle, under the name the bundler gave it.
    expect(requests.filter((r) => r.path.endsWith('.wasm') && !r.path.startsWith('/ckpt/')))
      .toEqual([{ path: expect.stringMatching(bundler === 'vite' ? /laya-core(-mt)?-relaxed-[\w-]+\.wasm$/ : /^\/[0-9a-f]+\.wasm$/), status: 200 }]);
  }, 90000);
});
