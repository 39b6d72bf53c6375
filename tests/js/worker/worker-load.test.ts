// load(source, { worker: true }) in every browser engine (Chromium, Firefox, WebKit): a page with no
// worker code of its own gets a model whose answers, bits, errors, progress and warnings are those
// of the model loaded on the page's thread; dispose() and an aborted load end the worker (seen
// through the page's own record of its workers, helpers/worker-tracker.ts, the same in every
// engine). Cancelling calls: worker-cancellation.test.ts.
import { dirname } from 'node:path';
import type { ForwardResult } from '../../../web/src/request.js';
import { describeInEngines, type EnginePage } from '../helpers/browsers/in-engines.js';
import { kTinyCheckpoint } from '../helpers/fixtures.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
import { compareWithReference, referenceFixture } from '../helpers/reference-fixtures.js';
import { describeWithCore, kCoreJs } from '../helpers/real-core.js';

const kState = 'w5 w6 w7 w8 w9';
const kQuestions = {
  pick: { type: 'choice' as const, instructions: 'w10 w11', criteria: { w12: null, w13: 'w14 w15', w16: null, w17: null } },
  level: { type: 'score' as const, instructions: 'w20', criteria: ['w21', 'w22', 'w23'] },
  holds: { type: 'noul' as const, instructions: 'w30 w31' },
};
// The reference fixture's 47 decision sequences and 12 embeddings (tests/data/fixtures/reference).
const kFixture = referenceFixture('tiny-fanin');
const kInputs = { inputs: kFixture.inputs, embed_inputs: kFixture.embed_inputs };

describeWithCore('load with { worker: true }', () => describeInEngines('the package worker', (browser) => {
  let plain: PageServer;
  beforeAll(async () => {
    plain = await startPageServer({ '/org/tiny/resolve/main/': kTinyCheckpoint, '/wasm/': dirname(kCoreJs) });
  });
  afterAll(async () => {
    await plain?.close();
  });

  const openPage = (server: PageServer): Promise<EnginePage> => browser.open(`${server.origin}/index.html`);

  /** The workers the page started since it began tracking them, and whether each was ended. */
  const workersOf = (page: EnginePage): Promise<Array<{ url: string; terminated: boolean }>> => page.evaluate(async () => {
    const { trackedWorkers } = await import('/tests/js/helpers/worker-tracker.js' as string);
    return trackedWorkers();
  });

  test('answers, embeddings and forward bits equal the page-thread model (and the reference), and the Loaded fields cross', async () => {
    const page = await openPage(plain);
    const got = await page.evaluate(async ({ hubUrl, state, questions, inputs }) => {
      const { load, predictShortlist } = await import('/web/src/index.browser.js' as string);
      const run = async (worker: boolean): Promise<Record<string, unknown>> => {
        const model = await load({ repo: 'org/tiny', hubUrl }, { worker, simd: 'plain', wasm: { moduleUrl: '/wasm/laya-core.js' }, onWarning: () => undefined });
        model.setProfiling(true);
        const embedded: Float32Array[] = await model.embed(['w5 w7', '', 'w100 w200']);
        const result = {
          className: model.constructor.name,
          answer: await model.predictJson(state, questions),
          parsed: await model.predict(state, questions, { shape: '0.3.7' }),
          embedIsFloat32: embedded.every((row) => row instanceof Float32Array),
          embed: embedded.map((row) => Array.from(row)),
          embedJson: await model.embedJson(['w5 w7']),
          forward: await model.forward(inputs),
          forwardJson: await model.forwardJson(inputs, { eachAlone: true }),
          shortlist: await predictShortlist(model, state, questions, { k: 2 }),
          batch: await model.predictBatchJson([state, 'w9 w10', { b: [1.5] }], questions, { batchSize: 2, shape: 'current' }),
          each: await (async () => { const out: unknown[] = []; for await (const a of model.predictEach([state, 'w9'], questions)) out.push(a); return out; })(),
          long: await model.predictLongJson(`${state} ${'w11 w12 w13 '.repeat(20)}`, questions, { window: 8, stride: 4, shape: 'current' }),
          tournament: await model.predictTournamentJson(state, questions, { groupSize: 2 }),
          decided: await model.decideJson(state, { schema: { properties: { b: { type: 'boolean' } } } }, { returnDetails: true }),
          prepared: await model.prepare(state, questions),
          answered: await model.answerJson(state, { json: '{"h": {"type": "noul", "instructions": "w30"}}' }, { logits: [[0.5, -0.25]], act: [[0.1, 0.2]] }),
          config: model.config, warnings: model.warnings, simd: model.simd, threads: model.threads, backend: model.backend,
          memoryKeys: Object.keys(model.memory()).sort(),
          weightsBytes: model.memory().weightsBytes,
          profileRuns: model.profile().runs,
        };
        model.dispose();
        return result;
      };
      return { page: await run(false), worker: await run(true) };
    }, { hubUrl: plain.origin, state: kState, questions: kQuestions, inputs: kInputs });
    await page.close();
    // One model class wherever it runs: only its engine differs.
    expect(got.page['className']).toBe('LayaModel');
    expect(got.worker['className']).toBe('LayaModel');
    expect(got.worker['embedIsFloat32']).toBe(true);
    expect(got.page['profileRuns']).toBeGreaterThan(0);
    const { className: _a, ...pageRest } = got.page;
    const { className: _b, ...workerRest } = got.worker;
    // toEqual on numbers is Object.is: every float, the profile's run count included, is the same.
    expect(workerRest).toEqual(pageRest);
    const reference = compareWithReference(got.worker['forward'] as ForwardResult, kFixture);
    expect(reference).toEqual({ worst: expect.any(Number), argmaxMoved: [], counts: [47, 12] });
    expect(reference.worst).toBeLessThan(1e-4);
  });

  type ProgressEvent = { type: string; file?: string; loaded?: number; total?: number };

  /**
   * Progress as a summary free of the network's timing: per file, its last download event and
   * whether its byte count only grew; whether the running totals only grew, the last total, and the
   * final event. (How many chunks a file arrives in is the network's too.)
   */
  function progressByFile(events: ProgressEvent[]): Record<string, unknown> {
    const grows = (values: number[]): boolean => values.every((v, i) => i === 0 || v >= values[i - 1]!);
    const files: Record<string, { last: ProgressEvent | undefined; grows: boolean }> = {};
    const names = [...new Set(events.filter((e) => e.type === 'download').map((e) => e.file ?? '?'))].sort();
    for (const name of names) {
      const own = events.filter((e) => e.type === 'download' && e.file === name);
      files[name] = { last: own.at(-1), grows: grows(own.map((e) => e.loaded ?? -1)) };
    }
    const totals = events.filter((e) => e.type === 'total');
    return { files, totalsGrow: grows(totals.map((e) => e.loaded ?? -1)), lastTotal: totals.at(-1), last: events.at(-1) };
  }

  test('errors, progress events and warnings arrive as they do without a worker', async () => {
    const page = await openPage(plain);
    const got = await page.evaluate(async ({ hubUrl }) => {
      const { load } = await import('/web/src/index.browser.js' as string);
      const caught = async (p: Promise<unknown>): Promise<unknown> => p.then(() => 'resolved', (e: { name: string; code?: string; message: string; file?: string }) =>
        ({ name: e.name, code: e.code, message: e.message, file: e.file, isLayaError: e.constructor.name }));
      const run = async (worker: boolean): Promise<Record<string, unknown>> => {
        const progress: unknown[] = [];
        const warnings: string[] = [];
        // threads: 3 on a page that is not isolated: one thread, and a warning saying why.
        const model = await load({ repo: 'org/tiny', hubUrl }, {
          worker, threads: 3, simd: 'plain', wasm: { moduleUrl: '/wasm/laya-core.js' },
          onProgress: (e: unknown) => progress.push(e), onWarning: (w: string) => warnings.push(w),
        });
        const result: Record<string, unknown> = {
          progress, warnings,
          badQuestion: await caught(model.predict('s', { q: { type: 'choice', instructions: 'x', criteria: [] } })),
          badShape: await caught(model.predict('s', {}, { shape: '0.4' })),
          badEmbed: await caught(model.embed(['a'], { maxLength: 0 })),
          badForward: await caught(model.forward({ inputs: [{ ids: [1, 999999], markers: [0], qtype: 0 }] })),
          missing: await caught(load({ repo: 'org/absent', hubUrl }, { worker, wasm: { moduleUrl: '/wasm/laya-core.js' }, onWarning: () => undefined })),
        };
        model.dispose();
        result['afterDispose'] = await caught(model.predictJson('s', {}));
        return result;
      };
      return { page: await run(false), worker: await run(true) };
    }, { hubUrl: plain.origin });
    await page.close();
    // The four small files download at once, so the order in which their events interleave is the
    // network's, not the worker's: progress is compared file by file, with the running totals.
    const { progress: workerProgress, ...workerRest } = got.worker;
    const { progress: pageProgress, ...pageRest } = got.page;
    expect(progressByFile(workerProgress as ProgressEvent[])).toEqual(progressByFile(pageProgress as ProgressEvent[]));
    expect(workerRest).toEqual(pageRest);
    // The fixture's clamped temperature (laya-spec §5.1) and the thread count asked for.
    expect(got.page['warnings']).toEqual([expect.stringContaining('running on 1 thread, not the 3 asked for'),
      expect.stringContaining('using choice:11+=0.10058280825614929 -> 0.5')]);
    expect((got.page['progress'] as unknown[]).at(-1)).toEqual({ type: 'ready' });
    expect(got.page['badQuestion']).toMatchObject({ name: 'LayaError', code: 'invalid_request', isLayaError: 'LayaError' });
    expect(got.page['badForward']).toMatchObject({ code: 'invalid_request' });
    expect(got.page['missing']).toMatchObject({ code: 'invalid_checkpoint' });
    expect(got.page['afterDispose']).toMatchObject({ code: 'disposed' });
  });

  test('dispose() ends the worker; options that cannot cross are refused and leave no worker', async () => {
    const page = await openPage(plain);
    await page.evaluate(async ({ hubUrl }) => {
      const { trackWorkers } = await import('/tests/js/helpers/worker-tracker.js' as string);
      trackWorkers();
      const { load } = await import('/web/src/index.browser.js' as string);
      (globalThis as Record<string, unknown>)['model'] = await load({ repo: 'org/tiny', hubUrl },
        { worker: true, simd: 'plain', wasm: { moduleUrl: '/wasm/laya-core.js' }, onWarning: () => undefined });
    }, { hubUrl: plain.origin });
    expect(await workersOf(page)).toEqual([{ url: `${plain.origin}/web/src/worker/laya-worker.js`, terminated: false }]);
    const pending = await page.evaluate(() => {
      const model = (globalThis as unknown as Record<string, { dispose(): void; predictJson(s: string, q: unknown): Promise<string>; disposed: boolean }>)['model'];
      const call = model?.predictJson('w5', { json: '{}' }).then(() => 'resolved', (e: { code: string }) => e.code);
      model?.dispose();
      return Promise.all([call, model?.disposed]);
    });
    expect(pending).toEqual(['disposed', true]);
    expect(await workersOf(page)).toEqual([{ url: `${plain.origin}/web/src/worker/laya-worker.js`, terminated: true }]);
    const refused = await page.evaluate(async () => {
      const { load } = await import('/web/src/index.browser.js' as string);
      return load({ url: '/x/' }, { worker: true, fetch: () => Promise.reject(new Error('no')) }).catch((e: Error) => e.message);
    });
    expect(refused).toBe('load: options.fetch is a function, which cannot cross into the worker that options.worker starts; ' +
      'leave it out, or load without options.worker');
    // Refused before a worker was started: still the one (ended) worker.
    expect(await workersOf(page)).toHaveLength(1);
    // An option the structured clone refuses is found only when posted: the worker it started ends.
    const uncloneable = await page.evaluate(async () => {
      const { load } = await import('/web/src/index.browser.js' as string);
      return load({ url: '/x/' }, { worker: true, gpu: { requestAdapter() { return null; } } }).catch((e: Error & { code: string }) => `${e.code}: ${e.message}`);
    });
    expect(uncloneable).toMatch(/^invalid_request: load: the source or options cannot be sent to the worker that options.worker starts: /);
    expect(await workersOf(page)).toEqual([true, true].map((terminated) => ({ url: `${plain.origin}/web/src/worker/laya-worker.js`, terminated })));
    await page.close();
  });

  test('a load aborted before it starts starts no worker; one aborted on its first progress event ends its worker', async () => {
    const page = await openPage(plain);
    const early = await page.evaluate(async ({ hubUrl }) => {
      const { trackWorkers } = await import('/tests/js/helpers/worker-tracker.js' as string);
      trackWorkers();
      const { load } = await import('/web/src/index.browser.js' as string);
      return load({ repo: 'org/tiny', hubUrl }, { worker: true, signal: AbortSignal.abort(), wasm: { moduleUrl: '/wasm/laya-core.js' } })
        .then(() => 'resolved', (e: Error) => e.name);
    }, { hubUrl: plain.origin });
    expect(early).toBe('AbortError');
    expect(await workersOf(page)).toEqual([]);
    const during = await page.evaluate(async ({ hubUrl }) => {
      const { load } = await import('/web/src/index.browser.js' as string);
      const controller = new AbortController();
      return load({ repo: 'org/tiny', hubUrl }, {
        worker: true, signal: controller.signal, wasm: { moduleUrl: '/wasm/laya-core.js' }, onWarning: () => undefined,
        onProgress: () => controller.abort(new Error('enough')),
      }).then(() => 'resolved', (e: Error) => `${e.name}: ${e.message}`);
    }, { hubUrl: plain.origin });
    expect(during).toBe('AbortError: laya-wasm load was aborted: enough');
    expect(await workersOf(page)).toEqual([{ url: `${plain.origin}/web/src/worker/laya-worker.js`, terminated: true }]);
    await page.close();
  });
}));
