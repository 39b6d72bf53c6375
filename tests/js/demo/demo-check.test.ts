// The main job's self-check (`npm run demo -- --check --browser E`, here without the build step),
// in every browser engine: it serves the demo cross-origin isolated (the default), answers the
// page's sample questions with the bundled default in that engine, prints the engine's version, the
// build, the answer JSON and a screenshot path, and exits 0. The three engines print the same
// answer JSON.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { kSharedMemoryWhenIsolated } from '../helpers/browsers/engine-facts.js';
import { selectedEngines } from '../helpers/browsers/engines.mjs';
import { engineTitle } from '../helpers/browsers/in-engines.js';
import { kRepoRoot } from '../helpers/fixtures.js';
import { describeWithCore } from '../helpers/real-core.js';
import { buildDemo } from './demo-server.js';

const answers = new Map<string, string>();

describeWithCore('npm run demo -- --check', () => {
  beforeAll(() => buildDemo());

  describe.each(selectedEngines().map((engine) => [engineTitle(engine), engine] as const))('--browser, in %s', (_title, engine) => {
    test('serves the demo, answers with the bundled default and says where the screenshot is', async () => {
      const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile('bash', [join(kRepoRoot, 'scripts', 'demo.sh'), '--no-build', '--check', '--browser', engine.name], { cwd: kRepoRoot },
          (error, out, err) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out, stderr: err }));
      });
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toMatch(new RegExp(`^browser: ${engine.label} \\d+\\.`, 'm'));
      expect(stdout).toContain('crossOriginIsolated: yes');
      // Threads where the engine gives an isolated page SharedArrayBuffer (not WebKitGTK: engine-facts.ts).
      expect(stdout).toMatch(kSharedMemoryWhenIsolated[engine.name]
        ? /^build: threaded \(cross-origin isolated: the pthreads module on 2 threads\)$/m
        : /^build: single-threaded \(cross-origin isolated, but this browser gives the page no SharedArrayBuffer: /m);
      // wasm is the page's default backend, and the check says which ran.
      expect(stdout).toContain('Backend: wasm (asked: wasm)');
      const json = /meaningless by design\):\n(.*)\n/.exec(stdout)?.[1] ?? '';
      const response = JSON.parse(json) as { answers: Record<string, { type: string }>; usage: { input_tokens: number } };
      expect(Object.values(response.answers).map((a) => a.type)).toEqual(['choice', 'score', 'noul']);
      expect(response.usage.input_tokens).toBeGreaterThan(0);
      answers.set(engine.name, json);
      const shot = /screenshot: (.*)/.exec(stdout)?.[1] ?? '';
      expect(shot).toBe(join(kRepoRoot, 'build', 'screenshots', engine.name === 'chromium' ? 'demo-check.png' : `demo-check-${engine.name}.png`));
      expect(existsSync(shot)).toBe(true);
      // The same answer JSON, byte for byte, as every engine checked before this one.
      expect([...new Set(answers.values())]).toEqual([json]);
    }, 120000);
  });

  test('refuses an engine it does not know, and WebGPU outside Chromium, saying why', async () => {
    const run = (args: string[]): Promise<string> => new Promise((resolve) => {
      execFile(process.execPath, [join(kRepoRoot, 'scripts', 'demo-check.mjs'), ...args], { cwd: kRepoRoot },
        (error, _out, err) => resolve(`${error?.code ?? 0}: ${err.trim()}`));
    });
    expect(await run(['--browser', 'safari'])).toBe('1: demo --check failed: --browser takes chromium, firefox, webkit, got safari');
    expect(await run(['--browser', 'webkit', '--backend', 'webgpu'])).toBe('1: demo --check failed: --backend webgpu needs --browser chromium: webkit has no WebGPU on Linux');
  });
});
