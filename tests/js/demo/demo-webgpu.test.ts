// The demo's backend choice in headless Chromium with WebGPU on SwiftShader (kWebGpuFlags): the
// bundled default answers the page's questions through WebGPU with the wasm run's choices, a
// reference fixture's forward pass through WebGPU matches fixture.json, and the page says which
// backend ran. No adapter fails these tests, never skips them: the load's error is the failure.
// Chromium only: Firefox (WebGPU on Windows and macOS, not Linux) and WebKitGTK have no WebGPU
// here. Where there is no adapter (Chromium without the flags, Firefox, WebKit: every engine), the
// last describe checks that 'webgpu' is refused with its reason and 'auto' falls back to wasm.
// SwiftShader runs WGSL on the CPU (about 0.05 GFLOP/s here) and compiles each pipeline for
// seconds on first use, so the work is one short request per model.
import { jest } from '@jest/globals';
import { join } from 'node:path';
import type { ForwardResult } from '../../../web/src/request.js';
import { engineNamed, type BrowserSession, type EnginePage } from '../helpers/browsers/engines.mjs';
import { describeInEngines } from '../helpers/browsers/in-engines.js';
import { attributeOf, textOf, valueOf } from '../helpers/browsers/page-dom.mjs';
import { kTinyCheckpoint } from '../helpers/fixtures.js';
import { describeWithCore } from '../helpers/real-core.js';
import { compareWithReference, referenceFixture, type ReferenceFixture } from '../helpers/reference-fixtures.js';
import { ask, forwardIn, loadIn } from './demo-actions.js';
import { buildDemo, kScreenshots, serveDemo, type DemoServer } from './demo-server.js';

// A first WebGPU request compiles every pipeline (15 s here); the suite's total stays near a minute.
jest.setTimeout(150_000);
const kGpuTimeout = 120_000;

interface Answer { type: string; choice?: string; score?: number; noul?: number; probabilities?: Record<string, number> }
interface Response { answers: Record<string, Answer>; usage: { input_tokens: number } }

/** What an answer decided: the label with the highest probability, and noul's side of 0.5. */
function decided(a: Answer): string {
  if (a.type === 'noul') return `noul ${(a.noul ?? NaN) >= 0.5}`;
  const p = a.probabilities ?? {};
  const best = Object.keys(p).reduce((x, y) => ((p[y] ?? -1) > (p[x] ?? -1) ? y : x), Object.keys(p)[0] ?? '');
  return a.type === 'choice' ? `choice ${a.choice} (top ${best})` : `score top ${best}`;
}

/** Sequences of 3, 7 and 9 tokens (qtypes 2, 1, 0) and a 5-token embedding: short enough for SwiftShader. */
function shortSubset(): ReferenceFixture {
  const f = referenceFixture('tiny-fanin');
  const decisions = [2, 13, 15];
  const embeds = [3];
  return {
    inputs: decisions.map((i) => f.inputs[i]!),
    expected: decisions.map((i) => f.expected[i]!),
    embed_inputs: embeds.map((i) => f.embed_inputs![i]!),
    embed_expected: embeds.map((i) => f.embed_expected[i]!),
  };
}

describeWithCore('the demo page on WebGPU (Chromium, SwiftShader)', () => {
  let browser: BrowserSession;
  let server: DemoServer;
  let page: EnginePage;
  beforeAll(async () => {
    buildDemo();
    browser = await engineNamed('chromium').launch({ webgpu: true });
    process.stderr.write(`  browser engine: ${browser.version} (WebGPU on SwiftShader)\n`);
    server = await serveDemo(['--mount', `/org/tiny/resolve/main/=${kTinyCheckpoint}`]);
    page = await browser.open(server.url);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('the bundled default answers through WebGPU with the same choices as through wasm', async () => {
    // wasm stays the default until the GPU path is measured on real GPUs.
    expect(await valueOf(page, '[data-testid=backend]')).toBe('wasm');
    await loadIn(page, 'default', undefined, 'wasm');
    expect(await attributeOf(page, 'body', 'data-backend')).toBe('wasm');
    const onWasm = JSON.parse(await ask(page)) as Response;

    await loadIn(page, 'default', undefined, 'webgpu', kGpuTimeout);
    expect(await attributeOf(page, 'body', 'data-backend')).toBe('webgpu');
    expect(await textOf(page, '[data-testid=backend-info]')).toMatch(/^Backend: webgpu \(asked: webgpu\).*adapter "[^"]+"/);
    expect(await attributeOf(page, 'body', 'data-adapter')).not.toBe('');
    const onGpu = JSON.parse(await ask(page, 'ask', 'answers', kGpuTimeout)) as Response;
    expect(await textOf(page, '[data-testid=answers]')).toContain('on webgpu)');
    await page.screenshot(join(kScreenshots, 'demo-webgpu.png'));

    expect(Object.keys(onGpu.answers)).toEqual(['action', 'urgency', 'escalate']);
    expect(onGpu.usage).toEqual(onWasm.usage);
    for (const [qid, answer] of Object.entries(onWasm.answers)) {
      const gpu = onGpu.answers[qid];
      expect({ qid, decided: gpu === undefined ? 'missing' : decided(gpu) }).toEqual({ qid, decided: decided(answer) });
      // Both print 4 decimals of values that agree within 1e-4 of the reference: one last digit apart at most.
      for (const [label, p] of Object.entries(answer.probabilities ?? {})) {
        expect({ qid, label, diff: Math.abs((gpu?.probabilities?.[label] ?? NaN) - p) <= 1.5e-4 })
          .toEqual({ qid, label, diff: true });
      }
    }
  });

  test("a reference fixture's forward pass through WebGPU matches fixture.json within 1e-4 with the same argmax", async () => {
    const subset = shortSubset();
    await loadIn(page, 'hub', { repo: 'org/tiny', hubUrl: server.origin }, 'webgpu', kGpuTimeout);
    expect(await attributeOf(page, 'body', 'data-backend')).toBe('webgpu');
    const out = await forwardIn<ForwardResult>(page, { inputs: subset.inputs, embed_inputs: subset.embed_inputs }, kGpuTimeout);
    const { worst, argmaxMoved, counts } = compareWithReference(out, subset);
    expect({ counts, argmaxMoved }).toEqual({ counts: [3, 1], argmaxMoved: [] });
    expect(worst).toBeLessThan(1e-4);
  });

  test("'auto' picks WebGPU where Chromium has an adapter", async () => {
    await loadIn(page, 'default', undefined, 'auto', kGpuTimeout);
    expect(await attributeOf(page, 'body', 'data-backend')).toBe('webgpu');
    expect(await textOf(page, '[data-testid=backend-info]')).toMatch(/^Backend: webgpu \(asked: auto\)/);
  });
});

describeWithCore('the demo page where the engine has no WebGPU adapter', () => describeInEngines('no adapter', (browser) => {
  let server: DemoServer;
  beforeAll(async () => {
    buildDemo();
    // Chromium launches without the WebGPU flags (--disable-gpu): requestAdapter() gives null;
    // Firefox and WebKitGTK have no navigator.gpu on Linux.
    server = await serveDemo();
  });
  afterAll(async () => {
    await server?.stop();
  });

  test("'webgpu' is refused with the reason; 'auto' runs on wasm and shows why", async () => {
    const page = await browser.open(server.url);
    try {
      await expect(loadIn(page, 'default', undefined, 'webgpu')).rejects.toThrow(
        /load \(backend webgpu\) failed: unsupported_model: backend 'webgpu': (no WebGPU adapter is available|this browser has no navigator\.gpu)/);
      expect(await attributeOf(page, 'body', 'data-loaded')).toBe('false');
      await loadIn(page, 'default', undefined, 'auto');
      expect(await attributeOf(page, 'body', 'data-backend')).toBe('wasm');
      const info = await textOf(page, '#model-info');
      expect(info).toContain('Backend: wasm (asked: auto)');
      expect(info).toMatch(/warning: laya-wasm: backend 'auto' runs on wasm: backend 'webgpu': /);
    } finally {
      await page.close();
    }
  });
}));
