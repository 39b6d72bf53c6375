// The demo page in headless Debian Chromium, served by scripts/serve-demo.mjs: reference fixture
// parity through the page (Hub-style URL, files from disk), page-built questions answered as in
// Node, the bundled default (answers, embed, shortlist), an offline second visit, and the
// crossOriginIsolated / build report. Screenshots land in build/screenshots/.
import { jest } from '@jest/globals';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { loadModelWith } from '../../../web/src/load.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import type { ForwardResult } from '../../../web/src/request.js';
import { kCheckpointFiles } from '../../../web/src/sources/checkpoint-source.js';
import { launchChromium } from '../helpers/chromium.js';
import { kRepoRoot, kTinyCheckpoint } from '../helpers/fixtures.js';
import { describeWithCore, kWasm } from '../helpers/real-core.js';
import { ask, loadIn } from './demo-actions.js';
import { buildDemo, kScreenshots, serveDemo } from './demo-server.js';

jest.setTimeout(120000);

const kDefaultCheckpoint = join(kRepoRoot, 'build', 'default-checkpoint');

interface Fixture extends ForwardResult {
  inputs: Array<{ ids: number[]; markers: number[]; qtype: number }>;
  embed_inputs: Array<{ ids: number[] }>;
}

/** Replaces the page's sample questions with these, through the question builder. */
async function buildQuestions(page: Page, questions: Array<{ id: string; type: string; instructions: string; options: string }>): Promise<void> {
  while (await page.locator('.question').count() > 0) await page.locator('.question .remove').first().click();
  for (const [i, q] of questions.entries()) {
    await page.click('#add-question');
    const card = page.locator('.question').nth(i);
    await card.locator('.qid').fill(q.id);
    await card.locator('.qtype').selectOption(q.type);
    await card.locator('.instructions').fill(q.instructions);
    await card.locator('.options').fill(q.options);
  }
}

describeWithCore('the demo page in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    buildDemo();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  test('a reference fixture from a Hub-style URL: the raw forward pass matches fixture.json within 1e-4', async () => {
    const fixture = JSON.parse(readFileSync(join(kTinyCheckpoint, '..', 'fixture.json'), 'utf8')) as Fixture;
    const server = await serveDemo(['--mount', `/org/tiny/resolve/main/=${kTinyCheckpoint}`]);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(server.url);
      await loadIn(page, 'hub', { repo: 'org/tiny', hubUrl: server.origin });
      await page.click('#advanced summary');
      await page.fill('[data-testid=forward-in]', JSON.stringify({ inputs: fixture.inputs, embed_inputs: fixture.embed_inputs }));
      await page.click('[data-testid=forward]');
      await page.waitForSelector('[data-testid=forward-out][data-done=true]', { timeout: 60000 });
      const out = JSON.parse((await page.locator('[data-testid=forward-out]').textContent()) ?? '') as ForwardResult;
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
      await page.screenshot({ path: join(kScreenshots, 'demo-fixture-forward.png'), fullPage: true });
    } finally {
      await context.close();
      await server.stop();
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
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(server.url);
      await loadIn(page, 'hub', { repo: 'org/tiny', hubUrl: server.origin });
      await buildQuestions(page, questions);
      await page.fill('[data-testid=state]', state);
      const fromPage = await ask(page);
      await page.screenshot({ path: join(kScreenshots, 'demo-fixture-answers.png'), fullPage: true });

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
        await page.fill('[data-testid=state]', jsonState);
        await page.check('#state-json');
        expect(await ask(page)).toBe(await model.predictJson({ json: jsonState }, {
          pick: { type: 'choice', instructions: 'w10 w11', criteria: { w20: 'w21 w22', w30: null, w40: 'w41' } },
          rate: { type: 'score', instructions: 'w12', criteria: ['w50', 'w51', 'w52', 'w53'] },
          yes: { type: 'noul', instructions: 'w13 w14' },
        }));
      } finally {
        model.dispose();
      }
      // Each answer is drawn: bars for choice and score, P(true) / P(false) for noul.
      expect(await page.locator('[data-testid=answers] .answer').count()).toBe(3);
      expect(await page.locator('[data-testid=answers] .answer[data-qid=pick] .bar-row').count()).toBe(3);
      expect(await page.locator('[data-testid=answers] .answer[data-qid=rate] .bar-row').count()).toBe(4);
    } finally {
      await context.close();
      await server.stop();
    }
  });

  test('a checkpoint folder picked from disk loads and answers; a missing Hub repo is reported, not thrown', async () => {
    const fixture = JSON.parse(readFileSync(join(kTinyCheckpoint, '..', 'fixture.json'), 'utf8')) as Fixture;
    const server = await serveDemo();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(server.url);
      await page.check('input[name=source][value=hub]');
      await page.fill('#hub-repo', 'nobody/missing');
      await page.fill('#hub-url', server.origin);
      await page.click('[data-testid=load]');
      const error = page.locator('#model-info [data-testid=error]');
      await error.waitFor({ timeout: 60000 });
      expect(await error.textContent()).toMatch(/^invalid_checkpoint: rl_agent_config\.json not found: HTTP 404 .*\/nobody\/missing\/resolve\/main\//);
      expect(await page.getAttribute('body', 'data-loaded')).toBe('false');

      await page.check('input[name=source][value=files]');
      await page.setInputFiles('#files', kTinyCheckpoint);
      await loadIn(page, 'files');
      expect(await page.locator('#model-info').textContent()).toContain('5 files from disk');
      await page.click('#advanced summary');
      const few = fixture.inputs.slice(0, 3);
      await page.fill('[data-testid=forward-in]', JSON.stringify({ inputs: few }));
      await page.click('[data-testid=forward]');
      await page.waitForSelector('[data-testid=forward-out][data-done=true]', { timeout: 60000 });
      const out = JSON.parse((await page.locator('[data-testid=forward-out]').textContent()) ?? '') as ForwardResult;
      let worst = 0;
      few.forEach((_, i) => (fixture.expected[i]?.logits ?? []).forEach((x, j) => {
        worst = Math.max(worst, Math.abs((out.expected[i]?.logits[j] ?? NaN) - x) / Math.max(1, Math.abs(x)));
      }));
      expect(out.expected).toHaveLength(3);
      expect(worst).toBeLessThan(1e-4);
    } finally {
      await context.close();
      await server.stop();
    }
  });

  test('the bundled default says it is random, answers, embeds like Node, and shortlists to k labels', async () => {
    const server = await serveDemo();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(server.url);
      await loadIn(page, 'default');
      expect(await page.locator('#model-info').textContent()).toContain('meaningless');
      // Download progress ended at every byte of the five files.
      const bytes = kCheckpointFiles.reduce((sum, file) => sum + statSync(join(kDefaultCheckpoint, file)).size, 0);
      expect(await page.getAttribute('body', 'data-progress')).toBe(`${bytes}/${bytes}`);
      const response = JSON.parse(await ask(page)) as { answers: Record<string, { type: string }> };
      expect(Object.values(response.answers).map((a) => a.type)).toEqual(['choice', 'score', 'noul']);

      const texts = ['Where is my parcel?', 'My delivery is late.', 'How do I change my password?'];
      await page.fill('[data-testid=texts]', texts.join('\n'));
      await page.click('[data-testid=embed]');
      await page.waitForSelector('[data-testid=embed-out] table', { timeout: 60000 });
      const rows = await page.locator('[data-testid=embed-out] tr').allTextContents();
      expect(rows).toHaveLength(4);
      const norms = await page.locator('[data-testid=embed-out] tr td:nth-child(2)').allTextContents();
      const model = await loadModelWith(nodeRuntime, { directory: kDefaultCheckpoint }, { wasm: kWasm, onWarning: () => undefined });
      try {
        const vectors = await model.embed(texts);
        vectors.forEach((v, i) => {
          expect(Number(norms[i])).toBeCloseTo(Math.sqrt(v.reduce((s, x) => s + x * x, 0)), 3);
        });
      } finally {
        model.dispose();
      }

      await page.fill('#k', '2');
      const shortlisted = JSON.parse(await ask(page, 'shortlist', 'shortlist-out')) as
        { answers: Record<string, { type: string; probabilities?: Record<string, number> }>; shortlist: Record<string, { labels: string[]; n: number }> };
      expect(shortlisted.shortlist['action']?.n).toBe(4);
      expect(shortlisted.shortlist['action']?.labels).toHaveLength(2);
      expect(Object.keys(shortlisted.answers['action']?.probabilities ?? {}).sort()).toEqual([...shortlisted.shortlist['action']?.labels ?? []].sort());
      await page.screenshot({ path: join(kScreenshots, 'demo-default.png'), fullPage: true });
    } finally {
      await context.close();
      await server.stop();
    }
  });

  test('a second visit answers offline: the page from the service worker, the checkpoint from the Cache API', async () => {
    const server = await serveDemo();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(server.url);
      await page.waitForSelector('body[data-offline-ready=true]', { timeout: 30000 });
      await loadIn(page, 'default');
      expect(await page.getAttribute('body', 'data-from-cache')).toBe('false');
      const online = await ask(page);

      await server.stop();
      await context.setOffline(true);
      await page.reload();
      await loadIn(page, 'default');
      expect(await page.getAttribute('body', 'data-from-cache')).toBe('true');
      expect(await ask(page)).toBe(online);
      await page.screenshot({ path: join(kScreenshots, 'demo-offline.png'), fullPage: true });
    } finally {
      await context.close();
      await server.stop();
    }
  });

  test('served with COOP/COEP the page runs the threaded module, without it the single-threaded one, with the same answer', async () => {
    const answers: string[] = [];
    for (const isolated of [true, false]) {
      const server = await serveDemo(isolated ? ['--isolated'] : []);
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(server.url);
        expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(isolated);
        expect(await page.getAttribute('body', 'data-isolated')).toBe(String(isolated));
        await loadIn(page, 'default');
        // Isolated: the pthreads module on this machine's cores (2 here); otherwise the single-threaded one.
        expect(await page.getAttribute('body', 'data-build')).toBe(isolated ? 'threaded' : 'single-threaded');
        expect(await page.locator('[data-testid=env]').textContent()).toContain(`crossOriginIsolated: ${isolated ? 'yes' : 'no'}`);
        expect(await page.locator('#model-info').textContent()).toContain(isolated ? 'the pthreads module on 2 threads' : 'not cross-origin isolated');
        answers.push(await ask(page));
        await page.screenshot({ path: join(kScreenshots, `demo-${isolated ? 'isolated' : 'not-isolated'}.png`), fullPage: true });
      } finally {
        await context.close();
        await server.stop();
      }
    }
    expect(answers[0]).toBe(answers[1]);
  });
});
