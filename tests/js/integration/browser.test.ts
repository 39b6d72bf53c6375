// The built wasm module in headless Chromium through the browser entry: laya-core.js loaded by a
// script tag, laya-core.wasm found beside it, the tiny checkpoint fetched and streamed into wasm
// memory; its forward outputs match the reference fixture.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { ForwardResult } from '../../../web/src/request.js';
import { launchChromium } from '../helpers/chromium.js';
import { kTinyCheckpoint } from '../helpers/fixtures.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
import { loadModelWith } from '../../../web/src/load.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import { predictShortlist } from '../../../web/src/shortlist.js';
import { describeWithCore, kCoreJs, kWasm } from '../helpers/real-core.js';

describeWithCore('the browser entry with the built module', () => {
  let browser: Browser;
  let server: PageServer;
  beforeAll(async () => {
    browser = await launchChromium();
    server = await startPageServer({ '/org/tiny/resolve/main/': kTinyCheckpoint, '/wasm/': dirname(kCoreJs) });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test('loads from the Hub layout and runs forward within the reference tolerance', async () => {
    const fixture = JSON.parse(readFileSync(join(kTinyCheckpoint, '..', 'fixture.json'), 'utf8')) as
      { inputs: unknown[]; embed_inputs: unknown[] } & ForwardResult;
    const page = await browser.newPage();
    await page.goto(`${server.origin}/index.html`);
    const result = await page.evaluate(async ({ hubUrl, request }) => {
      const { load } = await import('/web/src/index.browser.js' as string);
      const model = await load({ repo: 'org/tiny', hubUrl }, { wasm: { moduleUrl: '/wasm/laya-core.js' }, onWarning: () => undefined });
      const out = await model.forward(request);
      const embedded = await model.embed(['w5 w7']);
      model.dispose();
      return { out, embedLength: embedded[0].length };
    }, { hubUrl: server.origin, request: { inputs: fixture.inputs, embed_inputs: fixture.embed_inputs } });
    await page.close();
    let worst = 0;
    const check = (a: number[] | undefined, e: number[]): void =>
      e.forEach((x, i) => { worst = Math.max(worst, Math.abs((a?.[i] ?? NaN) - x) / Math.max(1, Math.abs(x))); });
    fixture.expected.forEach((e, i) => { check(result.out.expected[i]?.logits, e.logits); check(result.out.expected[i]?.act, e.act); });
    fixture.embed_expected.forEach((e, i) => check(result.out.embed_expected[i]?.pooled, e.pooled));
    expect(worst).toBeLessThan(1e-4);
    expect(result.embedLength).toBe(64);
    expect(server.requests).toContain('/wasm/laya-core.wasm');
  });

  test('predict, embed and the shortlist answer in the page exactly as in Node', async () => {
    const state = 'w5 w6 w7 w8 w9';
    const questions = {
      pick: { type: 'choice' as const, instructions: 'w10 w11', criteria: { w12: null, w13: 'w14 w15', w16: null, w17: null } },
      level: { type: 'score' as const, instructions: 'w20', criteria: ['w21', 'w22', 'w23'] },
      holds: { type: 'noul' as const, instructions: 'w30 w31' },
    };
    const texts = ['w5 w7', '', 'w100 w200 w300'];
    const node = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { wasm: kWasm, onWarning: () => undefined });
    const want = {
      answer: await node.predictJson(state, questions),
      embeddings: (await node.embed(texts)).map((row) => Array.from(row)),
      shortlist: await predictShortlist(node, state, questions, { k: 2 }),
    };
    node.dispose();

    const page = await browser.newPage();
    await page.goto(`${server.origin}/index.html`);
    const got = await page.evaluate(async ({ hubUrl, state, questions, texts }) => {
      const { load, predictShortlist } = await import('/web/src/index.browser.js' as string);
      const model = await load({ repo: 'org/tiny', hubUrl }, { wasm: { moduleUrl: '/wasm/laya-core.js' }, onWarning: () => undefined });
      const result = {
        answer: await model.predictJson(state, questions),
        embeddings: (await model.embed(texts)).map((row: Float32Array) => Array.from(row)),
        shortlist: await predictShortlist(model, state, questions, { k: 2 }),
      };
      model.dispose();
      return result;
    }, { hubUrl: server.origin, state, questions, texts });
    await page.close();
    expect(got.answer).toBe(want.answer);
    expect(got.embeddings).toEqual(want.embeddings);
    expect(got.shortlist).toEqual(want.shortlist);
    expect(JSON.parse(got.answer).answers.pick.probabilities).toBeDefined();
    expect(got.shortlist.shortlist.pick.labels).toHaveLength(2);
  });
});
