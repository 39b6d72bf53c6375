// The built wasm module in every browser engine (Chromium, Firefox, WebKit) through the browser
// entry: the module's script loaded by a script tag, its .wasm found beside it, the tiny checkpoint
// fetched and streamed into wasm memory. Chromium and Firefox compile relaxed SIMD, so by default
// their page runs laya-core-relaxed.js (fused multiply-add); WebKit does not, so it runs
// laya-core.js: either way the forward outputs match the reference fixture. With simd: 'plain' every
// engine runs laya-core.js and answers bit for bit as Node (which runs the plain module: Node 20 has
// no relaxed SIMD without a flag). The demo's bundled default checkpoint (random weights, the real
// English tokenizer) answers English text in every engine with Node's answer JSON, byte for byte.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ChoiceAnswer, ForwardResult, LayaResponse, NoulAnswer, ScoreAnswer } from '../../../web/src/request.js';
import { defaultSimd } from '../helpers/browsers/engine-facts.js';
import { describeInEngines } from '../helpers/browsers/in-engines.js';
import { kRepoRoot, kTinyCheckpoint } from '../helpers/fixtures.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
import { loadModelWith } from '../../../web/src/load.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import { predictShortlist } from '../../../web/src/shortlist.js';
import { describeWithCore, kCoreJs, kWasm } from '../helpers/real-core.js';

/**
 * The demo's bundled default checkpoint (what npm run build:demo puts in build/default-checkpoint),
 * written by its deterministic generator into a folder of this test's own, so no other test that
 * rebuilds build/ can change it under this one.
 */
function writeBundledCheckpoint(): string {
  const folder = mkdtempSync(join(tmpdir(), 'laya-bundled-'));
  execFileSync(process.execPath, [join(kRepoRoot, 'scripts', 'make-default-checkpoint.mjs'), folder], { stdio: 'pipe' });
  return folder;
}

const kEnglishState = 'Customer: my parcel was due last Monday and the tracking page has not changed for six days. I need it for a birthday on Saturday.';
const kEnglishQuestions = {
  action: { type: 'choice' as const, instructions: 'What should the agent do next?',
    criteria: { refund: 'Give the money back', resend: 'Send a new parcel', track: 'Chase the carrier', wait: null } },
  urgency: { type: 'score' as const, instructions: 'How urgent is it?', criteria: ['not urgent', 'soon', 'today', 'now'] },
  escalate: { type: 'noul' as const, instructions: 'Should a person take over?' },
};

describeWithCore('the browser entry with the built module', () => describeInEngines('the built module', (browser) => {
  let server: PageServer;
  let bundled: string;
  beforeAll(async () => {
    bundled = writeBundledCheckpoint();
    server = await startPageServer({ '/org/tiny/resolve/main/': kTinyCheckpoint, '/wasm/': dirname(kCoreJs), '/bundled/': bundled });
  });
  afterAll(async () => {
    await server?.close();
    if (bundled) rmSync(bundled, { recursive: true, force: true });
  });

  test("the bundled default checkpoint answers English text with Node's answer JSON byte for byte, on the plain and on the engine's own module", async () => {
    const texts = ['Where is my parcel?', 'My delivery is late.'];
    const node = await loadModelWith(nodeRuntime, { directory: bundled }, { wasm: kWasm, onWarning: () => undefined });
    const want = { answer: await node.predictJson(kEnglishState, kEnglishQuestions),
      embeddings: (await node.embed(texts)).map((row) => Array.from(row)) };
    node.dispose();
    const page = await browser.open(`${server.origin}/index.html`);
    const got = await page.evaluate(async ({ state, questions, texts }) => {
      const { load } = await import('/web/src/index.browser.js' as string);
      const run = async (simd: string): Promise<{ simd: string; answer: string; embeddings: number[][] }> => {
        const model = await load({ url: '/bundled/' }, { simd, wasm: { moduleUrl: '/wasm/laya-core.js' }, onWarning: () => undefined });
        const result = { simd: model.simd, answer: await model.predictJson(state, questions),
          embeddings: (await model.embed(texts)).map((row: Float32Array) => Array.from(row)) };
        model.dispose();
        return result;
      };
      return { plain: await run('plain'), own: await run('auto') };
    }, { state: kEnglishState, questions: kEnglishQuestions, texts });
    await page.close();
    // The plain module is Node's: every bit the same.
    expect(got.plain).toEqual({ simd: 'plain', ...want });
    // The engine's own module (relaxed SIMD's fused multiply-adds where the engine has it) moves
    // floats by an ulp or so, which the answer's 4 decimals never show here.
    expect(got.own.simd).toBe(defaultSimd(browser.name));
    expect(got.own.answer).toBe(want.answer);
    expect(Object.keys((JSON.parse(got.own.answer) as LayaResponse).answers)).toEqual(['action', 'urgency', 'escalate']);
  });

  test("loads from the Hub layout, runs the engine's best module, and runs forward within the reference tolerance", async () => {
    const fixture = JSON.parse(readFileSync(join(kTinyCheckpoint, '..', 'fixture.json'), 'utf8')) as
      { inputs: unknown[]; embed_inputs: unknown[] } & ForwardResult;
    const before = server.requests.length;
    const page = await browser.open(`${server.origin}/index.html`);
    const result = await page.evaluate(async ({ hubUrl, request }) => {
      const { load } = await import('/web/src/index.browser.js' as string);
      const model = await load({ repo: 'org/tiny', hubUrl }, { wasm: { moduleUrl: '/wasm/laya-core.js' }, onWarning: () => undefined });
      const out = await model.forward(request);
      const embedded = await model.embed(['w5 w7']);
      const simd = model.simd;
      model.dispose();
      return { out, embedLength: embedded[0].length, simd };
    }, { hubUrl: server.origin, request: { inputs: fixture.inputs, embed_inputs: fixture.embed_inputs } });
    await page.close();
    let worst = 0;
    const check = (a: number[] | undefined, e: number[]): void =>
      e.forEach((x, i) => { worst = Math.max(worst, Math.abs((a?.[i] ?? NaN) - x) / Math.max(1, Math.abs(x))); });
    fixture.expected.forEach((e, i) => { check(result.out.expected[i]?.logits, e.logits); check(result.out.expected[i]?.act, e.act); });
    fixture.embed_expected.forEach((e, i) => check(result.out.embed_expected[i]?.pooled, e.pooled));
    // Every output compared, none extra: the loops above run over the fixture's entries only.
    expect(result.out.expected).toHaveLength(fixture.expected.length);
    expect(result.out.embed_expected).toHaveLength(fixture.embed_expected.length);
    expect(worst).toBeLessThan(1e-4);
    expect(result.embedLength).toBe(64);
    const simd = defaultSimd(browser.name);
    expect(result.simd).toBe(simd);
    const requests = server.requests.slice(before);
    expect(requests).toContain(simd === 'relaxed' ? '/wasm/laya-core-relaxed.wasm' : '/wasm/laya-core.wasm');
    expect(requests).not.toContain(simd === 'relaxed' ? '/wasm/laya-core.wasm' : '/wasm/laya-core-relaxed.wasm');
  });

  test("relaxed SIMD asked for where the engine refuses it runs the plain module and says why", async () => {
    const page = await browser.open(`${server.origin}/index.html`);
    const result = await page.evaluate(async ({ hubUrl }) => {
      const { load } = await import('/web/src/index.browser.js' as string);
      const warnings: string[] = [];
      // validate stands in for an engine without relaxed SIMD (Safari today).
      const model = await load({ repo: 'org/tiny', hubUrl }, {
        simd: 'relaxed', onWarning: (w: string) => warnings.push(w),
        wasm: { moduleUrl: '/wasm/laya-core.js', validate: () => false },
      });
      const simd = model.simd;
      model.dispose();
      return { simd, warnings: warnings.filter((w) => w.includes('SIMD')) };
    }, { hubUrl: server.origin });
    await page.close();
    expect(result).toEqual({ simd: 'plain', warnings: ['laya-wasm: running the plain-SIMD module, not the relaxed-SIMD one ' +
      'asked for: this browser does not compile relaxed SIMD (Chrome 114+, Firefox 146+ do; Safari does not yet)'] });
  });

  test('with simd plain, predict, embed and the shortlist answer in the page exactly as in Node', async () => {
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

    const page = await browser.open(`${server.origin}/index.html`);
    const got = await page.evaluate(async ({ hubUrl, state, questions, texts }) => {
      const { load, predictShortlist } = await import('/web/src/index.browser.js' as string);
      const model = await load({ repo: 'org/tiny', hubUrl }, { simd: 'plain', wasm: { moduleUrl: '/wasm/laya-core.js' }, onWarning: () => undefined });
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
    // Equal to Node's, and a real answer: one entry per question, probabilities over each question's
    // options in order, each rounded to 4 decimals (laya-spec §5.3) so a sum is 1 within 0.00005 per option.
    const answers = (JSON.parse(got.answer) as LayaResponse).answers;
    expect(Object.keys(answers)).toEqual(['pick', 'level', 'holds']);
    const sumsToOne = (p: Record<string, number>): void =>
      expect(Math.abs(Object.values(p).reduce((a, b) => a + b, 0) - 1)).toBeLessThanOrEqual(5e-5 * Object.keys(p).length + 1e-12);
    const pick = answers['pick'] as ChoiceAnswer;
    expect(Object.keys(pick.probabilities)).toEqual(['w12', 'w13', 'w16', 'w17']);
    sumsToOne(pick.probabilities);
    expect(pick.probabilities[pick.choice]).toBe(Math.max(...Object.values(pick.probabilities)));
    const level = answers['level'] as ScoreAnswer;
    expect(Object.keys(level.probabilities)).toEqual(['0', '1', '2']);
    sumsToOne(level.probabilities);
    const holds = answers['holds'] as NoulAnswer;
    expect(holds.noul).toBeGreaterThanOrEqual(0);
    expect(holds.noul).toBeLessThanOrEqual(1);
    // The shortlist kept 2 of pick's 4 labels and answered over exactly those.
    const shortlisted = got.shortlist.shortlist['pick'];
    expect(shortlisted?.labels).toHaveLength(2);
    expect(Object.keys((got.shortlist.answers['pick'] as ChoiceAnswer).probabilities)).toEqual(shortlisted?.labels);
    expect(got.embeddings.map((row: number[]) => row.length)).toEqual([64, 64, 64]);
  });
}));
