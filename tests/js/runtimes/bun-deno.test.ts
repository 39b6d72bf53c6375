// The package and its CLI under Bun and Deno (issue 13), both installed from the npm registry as
// devDependencies: the CLI's predict on the tiny reference checkpoint answers exactly as under Node,
// and the API (load, forward) gives Node's bits. Deno runs the threaded request on one thread (its
// workers refuse the pthreads worker script) and says so. A runtime that is not installed is
// skipped with the reason printed, never silently.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kRepoRoot, kTinyCheckpoint } from '../helpers/fixtures.js';
import { describeWithCore, missingBuild } from '../helpers/real-core.js';
import { referenceFixture } from '../helpers/reference-fixtures.js';

interface Runtime {
  name: string;
  /** The command line before the script. */
  command: string[];
  /** Why it cannot run here, or undefined. */
  unavailable: string | undefined;
}

function runtime(name: string, scriptArgs: string[]): Runtime {
  const bin = join(kRepoRoot, 'node_modules', '.bin', name);
  let unavailable: string | undefined;
  if (!existsSync(bin)) {
    unavailable = `${bin} is not installed (npm ci installs it from the npm registry)`;
  } else {
    const version = spawnSync(bin, ['--version'], { encoding: 'utf8' });
    if (version.status !== 0) unavailable = `${bin} --version failed: ${version.stderr || version.error?.message}`;
  }
  return { name, command: [bin, ...scriptArgs], unavailable };
}

const kRuntimes = [runtime('bun', []), runtime('deno', ['run', '--allow-all'])];
const kCli = join(kRepoRoot, 'dist', 'cli.js');
const kEntry = join(kRepoRoot, 'dist', 'index.node.js');
const kChild = join(kRepoRoot, 'tests', 'js', 'helpers', 'load-child.mjs');
const kQuestions = JSON.stringify({
  pick: { type: 'choice', instructions: 'w10 w11', criteria: { w12: null, w13: 'w14 w15', w16: null } },
  level: { type: 'score', instructions: 'w20', criteria: ['w21', 'w22', 'w23'] },
  holds: { type: 'noul', instructions: 'w30 w31' },
});

function run(command: string[], args: string[]): { status: number | null; stdout: string; stderr: string } {
  const [bin, ...first] = command as [string, ...string[]];
  const r = spawnSync(bin, [...first, ...args], { encoding: 'utf8', maxBuffer: 1 << 26, timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const predictArgs = (extra: string[]): string[] =>
  [kCli, 'predict', '--model', kTinyCheckpoint, '--state', 'w5 w6 w7', '--questions', kQuestions, ...extra];

describeWithCore('other runtimes', () => {
  let dir: string;
  let requestFile: string;
  let nodeAnswer: string;
  let nodeForward: string;
  beforeAll(() => {
    for (const path of [kCli, kEntry]) if (!existsSync(path)) throw missingBuild(path);
    dir = mkdtempSync(join(tmpdir(), 'laya-runtimes-'));
    requestFile = join(dir, 'request.json');
    const fixture = referenceFixture('tiny-fanin');
    writeFileSync(requestFile, JSON.stringify({ inputs: fixture.inputs.slice(0, 6), embed_inputs: (fixture.embed_inputs ?? []).slice(0, 2) }));
    const node = run([process.execPath], predictArgs(['--simd', 'plain']));
    expect(node.status).toBe(0);
    nodeAnswer = node.stdout;
    const child = run([process.execPath], [kChild, kEntry, JSON.stringify({ threads: 1, simd: 'plain' }), kTinyCheckpoint, requestFile]);
    expect(child.status).toBe(0);
    nodeForward = (JSON.parse(child.stdout) as { forward: string }).forward;
  });
  afterAll(() => { if (dir !== undefined) rmSync(dir, { recursive: true, force: true }); });

  for (const rt of kRuntimes) {
    if (rt.unavailable !== undefined) {
      // Printed in the test log: the only way these tests are skipped.
      console.warn(`skipping the ${rt.name} tests: ${rt.unavailable}`);
      test.skip(`${rt.name}: ${rt.unavailable}`, () => undefined);
      continue;
    }

    test(`${rt.name}: the CLI's predict answers exactly as under Node`, () => {
      const r = run(rt.command, predictArgs(['--simd', 'plain', '--threads', '1']));
      expect({ status: r.status, stderr: r.stderr.split('\n').filter((l) => l.includes('error')) }).toEqual({ status: 0, stderr: [] });
      expect(r.stdout).toBe(nodeAnswer);
      expect(Object.keys((JSON.parse(r.stdout) as { answers: object }).answers)).toEqual(['pick', 'level', 'holds']);
    });

    test(`${rt.name}: the API loads the checkpoint and forward gives Node's bits`, () => {
      const r = run(rt.command, [kChild, kEntry, JSON.stringify({ threads: 1, simd: 'plain' }), kTinyCheckpoint, requestFile]);
      expect(r.status).toBe(0);
      const result = JSON.parse(r.stdout) as { simd: string; threads: number; forward: string };
      expect({ simd: result.simd, threads: result.threads }).toEqual({ simd: 'plain', threads: 1 });
      expect(result.forward).toBe(nodeForward);
    });

    test(`${rt.name}: with two threads asked for, it answers the same, on 2 threads or on 1 saying why`, () => {
      const r = run(rt.command, predictArgs(['--simd', 'plain', '--threads', '2']));
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(nodeAnswer);
      const threadWarnings = r.stderr.split('\n').filter((l) => l.includes('thread'));
      if (rt.name === 'deno') {
        expect(threadWarnings).toEqual([expect.stringMatching(/running on 1 thread, not the 2 asked for: Deno's workers cannot run the threaded module's worker script/)]);
      } else {
        expect(threadWarnings).toEqual([]);
      }
    });
  }
});
