// iOS-class fault (b), in every browser engine: wasm memory growth refused during a load (iOS kills
// a tab near 1.5 GB and may refuse growth well before). The page caps growth: its
// WebAssembly.Memory.prototype.grow throws past a limit between what the F16 weights need and
// what the same weights need as q8 (emscripten grows memory through it, and malloc then returns
// null). The load fails with out_of_memory naming the bytes asked and held and suggesting
// weights: 'q8' (load()'s finally deletes the half-made session; the module goes with it), and a
// retry with q8 in the same page, under the same cap, loads and answers.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describeInEngines, type EnginePage } from '../helpers/browsers/in-engines.js';
import { kRepoRoot } from '../helpers/fixtures.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
import { describeWithCore, kCoreJs } from '../helpers/real-core.js';

// A random 0.19 GB F16 checkpoint (bench/gen-checkpoint.mjs, reused once generated): large enough
// that its weights do not fit in the module's first 32 MiB of memory.
const kCheckpoint = join(kRepoRoot, 'build', 'bench', 'mem-f16');

interface Outcome {
  failure: { name: string; code: string; message: string } | null;
  retry: { threads: number; finite: boolean; weightsBytes: number; memoryBytes: number } | null;
}

async function loadUnderCap(page: EnginePage, url: string, capBytes: number): Promise<Outcome> {
  return page.evaluate(async ({ url, capBytes }) => {
    const grow = WebAssembly.Memory.prototype.grow;
    WebAssembly.Memory.prototype.grow = function (this: WebAssembly.Memory, pages: number) {
      if (this.buffer.byteLength + pages * 65536 > capBytes) {
        throw new RangeError(`WebAssembly.Memory.grow(): refused past ${capBytes} bytes (simulated)`);
      }
      return grow.call(this, pages);
    };
    const { load } = await import('/web/src/index.browser.js' as string);
    const options = { threads: 1, simd: 'plain', cache: false, wasm: { moduleUrl: '/wasm/laya-core.js' }, onWarning: () => undefined };
    let failure = null;
    try {
      (await load({ url }, options)).dispose();
    } catch (error) {
      const e = error as Error & { code: string };
      failure = { name: e.name, code: e.code, message: e.message };
    }
    const model = await load({ url }, { ...options, weights: 'q8' });
    const out = await model.forward({ inputs: [{ ids: [50281, 1000, 2000, 50284, 3000, 50282], markers: [3], qtype: 0 }] });
    const logits: number[] = out.expected[0].logits;
    const memory = model.memory();
    const retry = { threads: model.threads, finite: logits.length > 0 && logits.every(Number.isFinite),
      weightsBytes: memory.weightsBytes, memoryBytes: memory.wasmMemoryBytes };
    model.dispose();
    return { failure, retry };
  }, { url, capBytes });
}

describeWithCore('memory growth refused during a load', () => describeInEngines('memory growth refused during a load', (browser) => {
  let server: PageServer;
  let weightsBytes: number;
  beforeAll(async () => {
    execFileSync(process.execPath, [join(kRepoRoot, 'bench', 'gen-checkpoint.mjs'), 'mem-f16'], { stdio: 'ignore' });
    weightsBytes = statSync(join(kCheckpoint, 'model.safetensors')).size;
    server = await startPageServer({ '/mem-f16/': kCheckpoint, '/wasm/': dirname(kCoreJs) });
  }, 60000);
  afterAll(async () => server?.close());

  test("fails with out_of_memory naming the bytes asked and held and suggesting weights: 'q8', and q8 then loads in the same page", async () => {
    // F16 weights need their file's size in memory; q8 about half of it (plus the 32 MiB the module starts with).
    const capBytes = Math.round(weightsBytes * 0.8);
    const page = await browser.open(`${server.origin}/index.html`);
    const outcome = await loadUnderCap(page, `${server.origin}/mem-f16/`, capBytes).finally(() => page.close());
    expect(outcome.failure).not.toBeNull();
    const failure = outcome.failure!;
    expect({ name: failure.name, code: failure.code }).toEqual({ name: 'LayaError', code: 'out_of_memory' });
    const [, asked, held] = /asked for (\d+) bytes while the wasm memory held (\d+) bytes/.exec(failure.message) ?? [];
    expect(Number(asked)).toBeGreaterThan(weightsBytes * 0.99);
    expect(Number(asked)).toBeLessThan(weightsBytes);
    expect(Number(held)).toBeGreaterThan(0);
    expect(Number(held)).toBeLessThanOrEqual(capBytes);
    expect(failure.message).toContain("load with { weights: 'q8' }");
    expect(outcome.retry).toEqual({ threads: 1, finite: true, weightsBytes: expect.any(Number), memoryBytes: expect.any(Number) });
    expect(outcome.retry!.weightsBytes).toBeLessThan(weightsBytes * 0.6);
    expect(outcome.retry!.memoryBytes).toBeLessThanOrEqual(capBytes);
  }, 180000);
}));
