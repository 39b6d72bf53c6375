// The npm package from its tarball (scripts/package-test.sh): installed into a fresh project, used
// from a Node ESM script, from TypeScript, through the CLI, and from an esbuild-bundled page in
// every browser engine (Chromium, Firefox, WebKit); every forward check is against the tiny reference fixture at 1e-4 * max(1, |x|). An
// unbuilt dist/ is a failure, not a skip: npm test builds before it runs the tests.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { selectedEngines } from '../helpers/browsers/engines.mjs';
import { kRepoRoot } from '../helpers/fixtures.js';
import { describeWithCore, missingBuild } from '../helpers/real-core.js';

describeWithCore('the packed npm package in a fresh project', () => {
  test('works from Node, TypeScript, the CLI and a bundled page in every browser engine', async () => {
    for (const built of [join(kRepoRoot, 'dist', 'index.node.js'), join(kRepoRoot, 'dist', 'wasm', 'laya-core.wasm')]) {
      if (!existsSync(built)) throw missingBuild(built);
    }
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile('bash', [join(kRepoRoot, 'scripts', 'package-test.sh')], { cwd: kRepoRoot, maxBuffer: 1 << 24 },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}\n${stderr}` }));
    });
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('package test: ok') });
    expect(output).toMatch(/node: 47 sequences \+ 12 embeddings, worst [0-9.e-]+, argmax mismatches 0/);
    expect(output).toContain('types: ok');
    expect(output).toMatch(/cli: 47 sequences/);
    // One line per engine, each naming the engine's version.
    for (const engine of selectedEngines()) {
      expect(output).toMatch(new RegExp(`browser \\(${engine.label} \\d[^)]*\\): \\{"worst":[0-9.e-]+,"sequences":47,"expectedSequences":47`));
    }
  }, 180000);
});
