// The worker as the package ships it (dist/, compiled by npm run build), in every browser engine
// (Chromium, Firefox, WebKit): a page that imports dist/index.browser.js and passes nothing but
// { worker: true } gets the worker from dist/worker/laya-worker.js and the wasm module from the
// package's ES-module build beside it, on several threads when the page is cross-origin isolated
// (where the engine then gives it shared memory), and answers as the page-thread model.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { kSharedMemoryWhenIsolated } from '../helpers/browsers/engine-facts.js';
import { describeInEngines } from '../helpers/browsers/in-engines.js';
import { kRepoRoot, kTinyCheckpoint } from '../helpers/fixtures.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
import { describeWithCore, missingBuild } from '../helpers/real-core.js';

const kDist = join(kRepoRoot, 'dist');

describeWithCore('the shipped worker, dist/worker/laya-worker.js', () => describeInEngines('the shipped worker', (browser) => {
  let plain: PageServer;
  let isolated: PageServer;
  beforeAll(async () => {
    for (const built of [join(kDist, 'worker', 'laya-worker.js'), join(kDist, 'wasm', 'laya-core-mt.mjs')]) {
      if (!existsSync(built)) throw missingBuild(built);
    }
    const statics = { '/model/': kTinyCheckpoint, '/dist/': kDist };
    plain = await startPageServer(statics);
    isolated = await startPageServer(statics, { isolated: true });
  });
  afterAll(async () => {
    await plain?.close();
    await isolated?.close();
  });

  test.each([['not isolated', false], ['cross-origin isolated', true]])('%s: loads with no wasm option and answers as the page thread', async (_name, isolate) => {
    const server = isolate ? isolated : plain;
    const page = await browser.open(`${server.origin}/index.html`);
    const got = await page.evaluate(async () => {
      const { load } = await import('/dist/index.browser.js' as string);
      const questions = { q: { type: 'noul', instructions: 'w7 w8' }, r: { type: 'choice', instructions: 'w9', criteria: ['w10', 'w11'] } };
      const run = async (worker: boolean): Promise<{ answer: string; threads: number; simd: string }> => {
        const model = await load({ url: '/model/' }, { worker, onWarning: () => undefined });
        const result = { answer: await model.predictJson('w5 w6', questions), threads: model.threads, simd: model.simd };
        model.dispose();
        return result;
      };
      return { worker: await run(true), page: await run(false), cores: navigator.hardwareConcurrency, isolated: crossOriginIsolated };
    });
    await page.close();
    expect(got.isolated).toBe(isolate);
    expect(got.worker).toEqual(got.page);
    // Several threads only where the isolated page has shared memory (not in WebKitGTK: engine-facts.ts).
    expect(got.worker.threads).toBe(isolate && kSharedMemoryWhenIsolated[browser.name] ? Math.min(4, got.cores) : 1);
    expect(server.requests.some((path) => path === '/dist/worker/laya-worker.js')).toBe(true);
  }, 60_000);
}));
