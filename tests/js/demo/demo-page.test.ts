// The demo page in every browser engine (Chromium, Firefox, WebKit), served by
// scripts/serve-demo.mjs as `npm run demo` serves it, cross-origin isolated: reference fixture parity
// through the page (from a stand-in Hub on another origin, files from disk), page-built questions
// answered as in Node, the bundled default (answers, embed, shortlist), an offline second visit,
// and the crossOriginIsolated / build report, isolated and with --no-isolation. Each test serves the
// demo on a fresh port, so its page starts with empty storage (no cache, no service worker) in
// every engine. Screenshots land in build/screenshots/, named by engine.
import { jest } from '@jest/globals';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadModelWith } from '../../../web/src/load.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import type { ForwardResult } from '../../../web/src/request.js';
import { kCheckpointFiles } from '../../../web/src/sources/checkpoint-source.js';
import { kSharedMemoryWhenIsolated } from '../helpers/browsers/engine-facts.js';
import type { EnginePage } from '../helpers/browsers/engines.mjs';
import { describeInEngines } from '../helpers/browsers/in-engines.js';
import { attributeOf, check, click, countOf, fill, pickFiles, selectOption, textOf, textsOf, waitForSelector } from '../helpers/browsers/page-dom.mjs';
import { kRepoRoot, kTinyCheckpoint } from '../helpers/fixtures.js';
import { describeWithCore, kWasm } from '../helpers/real-core.js';
import { ask, loadIn } from './demo-actions.js';
import { buildDemo, kScreenshots, serveDemo } from './demo-server.js';
import { startHub } from './hub-server.mjs';

jest.setTimeout(120000);

const kDefaultCheckpoint = join(kRepoRoot, 'build', 'default-checkpoint');

interface Fixture extends ForwardResult {
  inputs: Array<{ ids: number[]; markers: number[]; qtype: number }>;
  embed_inputs: Array<{ ids: number[] }>;
}

/** Replaces the page's sample questions with these, through the question builder. */
async function buildQuestions(page: EnginePage, questions: Array<{ id: string; type: string; instructions: string; options: string }>): Promise<void> {
  while (await countOf(page, '.question') > 0) await click(page, '.question .remove');
  for (const [i, q] of questions.entries()) {
    await click(page, '#add-question');
    const card = `#questions > .question:nth-child(${i + 1})`;
    await fill(page, `${card} .qid`, q.id);
    await selectOption(page, `${card} .qtype`, q.type);
    await fill(page, `${card} .instructions`, q.instructions);
    await fill(page, `${card} .options`, q.options);
  }
}

describeWithCore('the demo page', () => describeInEngines('the demo', (browser) => {
  beforeAll(() => {
    buildDemo();
  });
  const shot = (name: string): string => join(kScreenshots, `demo-${name}-${browser.name}.png`);
  /** The bundled default's answer to the sample questions on the isolated page, for the --no-isolation test. */
  let isolatedAnswer: string | undefined;

  test('served by default the page is cross-origin isolated, loads a fixture from a stand-in Hub on another origin and matches fixture.json within 1e-4', async () => {
    const fixture = JSON.parse(readFileSync(join(kTinyCheckpoint, '..', 'fixture.json'), 'utf8')) as Fixture;
    // As the Hub answers: CORS with the page's origin echoed, no Cross-Origin-Resource-Policy, the
    // weights redirected to a CDN on a third origin.
    const hub = await startHub({ 'org/tiny': kTinyCheckpoint });
    const server = await serveDemo();
    const page = await browser.open(server.url);
    try {
      expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(true);
      expect(await attributeOf(page, 'body', 'data-isolated')).toBe('true');
      expect(await textOf(page, '[data-testid=env]')).toContain('crossOriginIsolated: yes');
      await loadIn(page, 'hub', { repo: 'org/tiny', hubUrl: hub.origin });
      expect(hub.requests).toContain('cdn GET /blobs/org/tiny/model.safetensors');
      // The pthreads module on this machine's cores (2 here) where the engine gives an isolated
      // page SharedArrayBuffer; WebKitGTK does not (engine-facts.ts): one thread there.
      const threaded = kSharedMemoryWhenIsolated[browser.name];
      expect(await attributeOf(page, 'body', 'data-build')).toBe(threaded ? 'threaded' : 'single-threaded');
      expect(await textOf(page, '#model-info')).toContain(threaded ? 'cross-origin isolated: the pthreads module on 2 threads'
        : 'cross-origin isolated, but this browser gives the page no SharedArrayBuffer');
      await click(page, '#advanced summary');
      await fill(page, '[data-testid=forward-in]', JSON.stringify({ inputs: fixture.inputs, embed_inputs: fixture.embed_inputs }));
      await click(page, '[data-testid=forward]');
      await waitForSelector(page, '[data-testid=forward-out][data-done=true]', 60000);
      const out = JSON.parse((await textOf(page, '[data-testid=forward-out]')) ?? '') as ForwardResult;
      let worst = 0;
      let argmaxMismatches = 0;
      const check = (a: number[] | undefined, e: number[]): void =>
        e.forEach((x, i) => { worst = Math.max(worst, Math.abs((a?.[i] ?? NaN) - x) / Math.max(1, Math.abs(x))); });
      const argmax = (v: number[]): number => v.indexOf(Math.max(...v));
      fixture.expected.forEach((e, i) => {
        check(out.expected[i]?.logits, e.logits);
        check(out.expected[i]?.act, e.act);
        if (argmax(out.expected[i]?.logits ?? []) !== argmax(e.logits)) argmaxMismatches++;
      });
      fixture.embed_expected.forEach((e, i) => check(out.embed_expected[i]?.pooled, e.pooled));
      expect(out.expected).toHaveLength(fixture.expected.length);
      expect(out.embed_expected).toHaveLength(fixture.embed_expected.length);
      expect(worst).toBeLessThan(1e-4);
      expect(argmaxMismatches).toBe(0);
      await page.screenshot(shot('fixture-forward'));
    } finally {
      await page.close();
      await server.stop();
      await hub.close();
    }
  });

  test('questions built on the page are answered exactly as the package answers them in Node', async () => {
    const questions = [
      { id: 'pick', type: 'choice', instructions: 'w10 w11', options: 'w20: w21 w22\nw30\nw40: w41' },
      { id: 'rate', type: 'score', instructions: 'w12', options: 'w50\nw51\nw52\nw53' },
      { id: 'yes', type: 'noul', instructions: 'w13 w14', options: '' },
    ];
    const state = 'w5 w7 w9 w100 w200';
    const server = await serveDemo(['--mount', `/org/tiny/resolve/main/=${kTinyCheckpoint}`]);
    const page = await browser.open(server.url);
    try {
      await loadIn(page, 'hub', { repo: 'org/tiny', hubUrl: server.origin });
      await buildQuestions(page, questions);
      await fill(page, '[data-testid=state]', state);
      const fromPage = await ask(page);
      await page.screenshot(shot('fixture-answers'));

      const model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { wasm: kWasm, onWarning: () => undefined });
      try {
        const expected = await model.predictJson(state, {
          pick: { type: 'choice', instructions: 'w10 w11', criteria: { w20: 'w21 w22', w30: null, w40: 'w41' } },
          rate: { type: 'score', instructions: 'w12', criteria: ['w50', 'w51', 'w52', 'w53'] },
          yes: { type: 'noul', instructions: 'w13 w14' },
        });
        expect(fromPage).toBe(expected);
        // A JSON state keeps its text as written (key order, 1.0) through the page and the worker.
        const jsonState = '{"b": 1.0, "a": ["w5", 2]}';
        await fill(page, '[data-testid=state]', jsonState);
        await check(page, '#state-json');
        expect(await ask(page)).toBe(await model.predictJson({ json: jsonState }, {
          pick: { type: 'choice', instructions: 'w10 w11', criteria: { w20: 'w21 w22', w30: null, w40: 'w41' } },
          rate: { type: 'score', instructions: 'w12', criteria: ['w50', 'w51', 'w52', 'w53'] },
          yes: { type: 'noul', instructions: 'w13 w14' },
        }));
      } finally {
        model.dispose();
      }
      // Each answer is drawn: bars for choice and score, P(true) / P(false) for noul.
      expect(await countOf(page, '[data-testid=answers] .answer')).toBe(3);
      expect(await countOf(page, '[data-testid=answers] .answer[data-qid=pick] .bar-row')).toBe(3);
      expect(await countOf(page, '[data-testid=answers] .answer[data-qid=rate] .bar-row')).toBe(4);
    } finally {
      await page.close();
      await server.stop();
    }
  });

  test('a checkpoint folder picked from disk loads and answers; a missing Hub repo is reported, not thrown', async () => {
    const fixture = JSON.parse(readFileSync(join(kTinyCheckpoint, '..', 'fixture.json'), 'utf8')) as Fixture;
    // The folder the visitor picks, served only so the page can read it into Files (pickFiles).
    const server = await serveDemo(['--mount', `/picked/=${kTinyCheckpoint}`]);
    const page = await browser.open(server.url);
    try {
      await check(page, 'input[name=source][value=hub]');
      await fill(page, '#hub-repo', 'nobody/missing');
      await fill(page, '#hub-url', server.origin);
      await click(page, '[data-testid=load]');
      await waitForSelector(page, '#model-info [data-testid=error]', 60000);
      expect(await textOf(page, '#model-info [data-testid=error]')).toMatch(/^invalid_checkpoint: rl_agent_config\.json not found: HTTP 404 .*\/nobody\/missing\/resolve\/main\//);
      expect(await attributeOf(page, 'body', 'data-loaded')).toBe('false');

      await check(page, 'input[name=source][value=files]');
      await pickFiles(page, '#files', `${server.origin}/picked/`, kCheckpointFiles, 'checkpoint');
      await loadIn(page, 'files');
      expect(await textOf(page, '#model-info')).toContain('5 files from disk');
      await click(page, '#advanced summary');
      const few = fixture.inputs.slice(0, 3);
      await fill(page, '[data-testid=forward-in]', JSON.stringify({ inputs: few }));
      await click(page, '[data-testid=forward]');
      await waitForSelector(page, '[data-testid=forward-out][data-done=true]', 60000);
      const out = JSON.parse((await textOf(page, '[data-testid=forward-out]')) ?? '') as ForwardResult;
      let worst = 0;
      few.forEach((_, i) => (fixture.expected[i]?.logits ?? []).forEach((x, j) => {
        worst = Math.max(worst, Math.abs((out.expected[i]?.logits[j] ?? NaN) - x) / Math.max(1, Math.abs(x)));
      }));
      expect(out.expected).toHaveLength(3);
      expect(worst).toBeLessThan(1e-4);
    } finally {
      await page.close();
      await server.stop();
    }
  });

  test('the bundled default says it is random, answers, embeds like Node, and shortlists to k labels', async () => {
    const server = await serveDemo();
    const page = await browser.open(server.url);
    try {
      await loadIn(page, 'default');
      expect(await textOf(page, '#model-info')).toContain('meaningless');
      expect(await attributeOf(page, 'body', 'data-isolated')).toBe('true');
      // Download progress ended at every byte of the five files.
      const bytes = kCheckpointFiles.reduce((sum, file) => sum + statSync(join(kDefaultCheckpoint, file)).size, 0);
      expect(await attributeOf(page, 'body', 'data-progress')).toBe(`${bytes}/${bytes}`);
      isolatedAnswer = await ask(page);
      const response = JSON.parse(isolatedAnswer) as { answers: Record<string, { type: string }> };
      expect(Object.values(response.answers).map((a) => a.type)).toEqual(['choice', 'score', 'noul']);

      const texts = ['Where is my parcel?', 'My delivery is late.', 'How do I change my password?'];
      await fill(page, '[data-testid=texts]', texts.join('\n'));
      await click(page, '[data-testid=embed]');
      await waitForSelector(page, '[data-testid=embed-out] table', 60000);
      const rows = await textsOf(page, '[data-testid=embed-out] tr');
      expect(rows).toHaveLength(4);
      const norms = await textsOf(page, '[data-testid=embed-out] tr td:nth-child(2)');
      const model = await loadModelWith(nodeRuntime, { directory: kDefaultCheckpoint }, { wasm: kWasm, onWarning: () => undefined });
      try {
        const vectors = await model.embed(texts);
        vectors.forEach((v, i) => {
          expect(Number(norms[i])).toBeCloseTo(Math.sqrt(v.reduce((s, x) => s + x * x, 0)), 3);
        });
      } finally {
        model.dispose();
      }

      await fill(page, '#k', '2');
      const shortlisted = JSON.parse(await ask(page, 'shortlist', 'shortlist-out')) as
        { answers: Record<string, { type: string; probabilities?: Record<string, number> }>; shortlist: Record<string, { labels: string[]; n: number }> };
      expect(shortlisted.shortlist['action']?.n).toBe(4);
      expect(shortlisted.shortlist['action']?.labels).toHaveLength(2);
      expect(Object.keys(shortlisted.answers['action']?.probabilities ?? {}).sort()).toEqual([...shortlisted.shortlist['action']?.labels ?? []].sort());
      await page.screenshot(shot('default'));
    } finally {
      await page.close();
      await server.stop();
    }
  });

  test('a second visit answers offline: the page from the service worker, the checkpoint from the page store', async () => {
    const server = await serveDemo();
    const page = await browser.open(server.url);
    try {
      await waitForSelector(page, 'body[data-offline-ready=true]', 30000);
      await loadIn(page, 'default');
      expect(await attributeOf(page, 'body', 'data-from-cache')).toBe('false');
      // The store commits after the load: the page says when the next visit will find it.
      await waitForSelector(page, 'body[data-stored=true]', 30000);
      expect(await textOf(page, '#progress-text')).toMatch(/, kept in the browser for the next visit$/);
      const online = await ask(page);

      // Offline: the server is gone, so every request the service worker does not answer fails.
      await server.stop();
      await page.reload();
      await loadIn(page, 'default');
      expect(await attributeOf(page, 'body', 'data-from-cache')).toBe('true');
      expect(await ask(page)).toBe(online);
      await page.screenshot(shot('offline'));
    } finally {
      await page.close();
      await server.stop();
    }
  });

  test('served with --no-isolation the page is not cross-origin isolated, runs the single-threaded module and answers as the isolated page did', async () => {
    const server = await serveDemo(['--no-isolation']);
    const page = await browser.open(server.url);
    try {
      expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(false);
      expect(await attributeOf(page, 'body', 'data-isolated')).toBe('false');
      expect(await textOf(page, '[data-testid=env]')).toContain('crossOriginIsolated: no · build: single-threaded (threads need COOP/COEP headers)');
      await loadIn(page, 'default');
      expect(await attributeOf(page, 'body', 'data-build')).toBe('single-threaded');
      expect(await textOf(page, '#model-info')).toContain('not cross-origin isolated');
      expect(isolatedAnswer).toBeDefined();  // from the bundled-default test above
      expect(await ask(page)).toBe(isolatedAnswer);
      await page.screenshot(shot('not-isolated'));
    } finally {
      await page.close();
      await server.stop();
    }
  });
}));
