// The main job's self-check (`npm run demo -- --check`, here without the build step): it serves
// the demo, answers the page's sample questions with the bundled default in Chromium, prints the
// answer JSON and a screenshot path, and exits 0.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { kRepoRoot } from '../helpers/fixtures.js';
import { describeWithCore } from '../helpers/real-core.js';
import { buildDemo } from './demo-server.js';

describeWithCore('npm run demo -- --check', () => {
  test('serves the demo, answers with the bundled default and says where the screenshot is', async () => {
    buildDemo();
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile('bash', [join(kRepoRoot, 'scripts', 'demo.sh'), '--no-build', '--check', '--isolated'], { cwd: kRepoRoot },
        (error, out, err) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out, stderr: err }));
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('crossOriginIsolated: yes');
    // wasm is the page's default backend, and the check says which ran.
    expect(stdout).toContain('Backend: wasm (asked: wasm)');
    const json = /meaningless by design\):\n(.*)\n/.exec(stdout)?.[1] ?? '';
    const response = JSON.parse(json) as { answers: Record<string, { type: string }>; usage: { input_tokens: number } };
    expect(Object.values(response.answers).map((a) => a.type)).toEqual(['choice', 'score', 'noul']);
    expect(response.usage.input_tokens).toBeGreaterThan(0);
    const shot = /screenshot: (.*)/.exec(stdout)?.[1] ?? '';
    expect(shot).toBe(join(kRepoRoot, 'build', 'screenshots', 'demo-check.png'));
    expect(existsSync(shot)).toBe(true);
  }, 120000);
});
