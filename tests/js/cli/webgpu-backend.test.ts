// laya-wasm --backend (web/src/cli/run.ts): `forward --backend webgpu` as a whole process, on
// SwiftShader through the optional `webgpu` package, matches the reference fixture (cut to short
// sequences: SwiftShader emulates the GPU on the CPU); a backend that does not exist is a usage error.
import { jest } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../web/src/cli/run.js';
import type { ForwardResult } from '../../../web/src/request.js';
import { kRepoRoot, kTinyCheckpoint } from '../helpers/fixtures.js';
import { missingBuild } from '../helpers/real-core.js';
import { compareWithReference, referenceFixture } from '../helpers/reference-fixtures.js';

jest.setTimeout(300_000);

const kCli = join(kRepoRoot, 'dist', 'cli.js');
const kSwiftShaderIcd = '/usr/lib/chromium/vk_swiftshader_icd.json';
const kInputs = [0, 2, 5, 12, 22];

test('forward --backend webgpu matches the reference fixture', () => {
  if (!existsSync(kCli)) throw missingBuild(kCli);
  const env = { ...process.env };
  if (env['VK_ICD_FILENAMES'] === undefined && existsSync(kSwiftShaderIcd)) env['VK_ICD_FILENAMES'] = kSwiftShaderIcd;
  const f = referenceFixture('tiny-fanin');
  const fixture = {
    inputs: kInputs.map((i) => f.inputs[i]!), expected: kInputs.map((i) => f.expected[i]!),
    embed_inputs: [f.embed_inputs![4]!], embed_expected: [f.embed_expected[4]!],
  };
  const dir = mkdtempSync(join(tmpdir(), 'laya-cli-webgpu-'));
  try {
    const inputs = join(dir, 'inputs.json');
    writeFileSync(inputs, JSON.stringify({ inputs: fixture.inputs, embed_inputs: fixture.embed_inputs }));
    const run = spawnSync(process.execPath, [kCli, 'forward', '--backend', 'webgpu', '--model', kTinyCheckpoint, '--inputs', inputs],
      { encoding: 'utf8', env, maxBuffer: 1 << 26 });
    expect(run.stderr).not.toContain('Error');
    expect(run.status).toBe(0);
    const result = compareWithReference(JSON.parse(run.stdout) as ForwardResult, fixture);
    expect(result.counts).toEqual([kInputs.length, 1]);
    expect(result.argmaxMoved).toEqual([]);
    expect(result.worst).toBeLessThan(1e-4);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--backend names the backends there are', async () => {
  let stderr = '';
  const status = await runCli(['forward', '--model', kTinyCheckpoint, '--inputs', '{}', '--backend', 'cuda'],
    { stdout: () => undefined, stderr: (t) => { stderr += t; } });
  expect(status).toBe(2);
  expect(stderr).toContain('--backend must be "wasm", "webgpu" or "auto", got "cuda"');
});
