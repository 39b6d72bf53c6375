// The relaxed-SIMD build (issue 15): which module a load picks (relaxed where the engine validates
// the probe, plain otherwise, with a warning only when relaxed was asked for), and the relaxed
// modules' numbers: the reference fixtures within 1e-4 and the same bits for 1, 2 and 3 threads.
// Node 20 compiles relaxed SIMD only behind --experimental-wasm-relaxed-simd, so the built modules
// run in child processes with and without that flag (the package built: dist/); the CLI turns the
// flag on itself.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chooseSimd, kRelaxedSimdProbe, moduleRunningTernarySimdOp, relaxedSibling, relaxedSimdSupported } from '../../../web/src/core/simd.js';
import { loadModelWith } from '../../../web/src/load.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import type { ForwardResult } from '../../../web/src/request.js';
import { FakeCore } from '../helpers/fake-core.js';
import { kRepoRoot, kTinyCheckpoint } from '../helpers/fixtures.js';
import { compareWithReference, referenceFixture, referenceSetDir } from '../helpers/reference-fixtures.js';
import { describeWithCore, kCoreJs, kWasm, missingBuild } from '../helpers/real-core.js';

const kFlag = '--experimental-wasm-relaxed-simd';
const kNodeMajor = Number(process.versions.node.split('.')[0]);
// Node 22+ compiles relaxed SIMD without the flag.
const kNativeRelaxed = kNodeMajor >= 22;

describe('choosing the module', () => {
  test('the probe is one function running f32x4.relaxed_madd (0xfd 0x85 0x02), and validates only with relaxed SIMD', () => {
    const bytes = Array.from(kRelaxedSimdProbe);
    expect(bytes.slice(0, 8)).toEqual([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
    const madd = bytes.findIndex((b, i) => b === 0xfd && bytes[i + 1] === 0x85 && bytes[i + 2] === 0x02);
    expect(madd).toBeGreaterThan(0);
    // The same module with v128.bitselect (0xfd 0x52, three operands too) in its place is plain SIMD:
    // it validates here, so the probe fails for its one relaxed instruction and nothing else.
    expect(WebAssembly.validate(moduleRunningTernarySimdOp([0xfd, 0x52]))).toBe(true);
    const check = (flags: string[]): boolean => {
      const run = spawnSync(process.execPath, [...flags, '-e', `process.stdout.write(String(WebAssembly.validate(new Uint8Array(${JSON.stringify(bytes)}))))`], { encoding: 'utf8' });
      return run.stdout === 'true';
    };
    expect(check([kFlag])).toBe(true);
    expect(check([])).toBe(kNativeRelaxed);
  });

  test('auto takes relaxed where it validates and plain silently elsewhere; relaxed asked for explains; plain is plain', () => {
    expect(chooseSimd('auto', true, 'why')).toEqual({ simd: 'relaxed' });
    expect(chooseSimd('auto', false, 'why')).toEqual({ simd: 'plain' });
    expect(chooseSimd('relaxed', true, 'why')).toEqual({ simd: 'relaxed' });
    expect(chooseSimd('relaxed', false, 'why')).toEqual({
      simd: 'plain', warning: 'laya-wasm: running the plain-SIMD module, not the relaxed-SIMD one asked for: why' });
    expect(chooseSimd('plain', true, 'why')).toEqual({ simd: 'plain' });
    expect(relaxedSimdSupported(() => { throw new Error('no'); })).toBe(false);
    expect(relaxedSibling('/a/b/laya-core.js')).toBe('/a/b/laya-core-relaxed.js');
    expect(relaxedSibling('https://x/wasm/laya-core-mt.js?v=2')).toBe('https://x/wasm/laya-core-mt-relaxed.js?v=2');
  });

  test.each([
    ['auto', true, 'relaxed', 0],
    ['auto', false, 'plain', 0],
    ['relaxed', true, 'relaxed', 0],
    ['relaxed', false, 'plain', 1],
    ['plain', true, 'plain', 0],
  ] as const)('load with simd %s where the probe validates: %s gives model.simd %s and %i warnings', async (simd, valid, want, warningCount) => {
    // A given module is one build and says which (simd()): here the one the choice names.
    const fake = new FakeCore({ simd: want });
    const warnings: string[] = [];
    const probes: Uint8Array[] = [];
    const model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, {
      simd, onWarning: (w) => warnings.push(w),
      wasm: { factory: fake.factory, validate: (bytes) => { probes.push(bytes); return valid; } },
    });
    expect(model.simd).toBe(want);
    expect(warnings).toHaveLength(warningCount);
    if (warningCount > 0) expect(warnings[0]).toMatch(/not the relaxed-SIMD one asked for: this Node does not compile relaxed SIMD \(Node 20 needs --experimental-wasm-relaxed-simd/);
    expect(probes.every((p) => p === kRelaxedSimdProbe)).toBe(true);
    model.dispose();
  });

  test('relaxed asked for and compiled, but a given module of the plain build: model.simd says plain and a warning says why', async () => {
    const warnings: string[] = [];
    const model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, {
      simd: 'relaxed', onWarning: (w) => warnings.push(w), wasm: { factory: new FakeCore({ simd: 'plain' }).factory, validate: () => true },
    });
    expect(model.simd).toBe('plain');
    expect(warnings).toEqual(['laya-wasm: running the plain-SIMD module, not the relaxed-SIMD one asked for: the wasm module given is the plain-SIMD build']);
    model.dispose();
  });

  test('an unknown simd option is an invalid_request', async () => {
    await expect(loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { simd: 'fast' as 'auto', wasm: { factory: new FakeCore().factory } }))
      .rejects.toMatchObject({ code: 'invalid_request', message: "load: options.simd must be 'auto', 'relaxed' or 'plain', got fast" });
  });
});

interface ChildResult { simd: string; threads: number; warnings: string[]; forward?: string }
// The warnings about the module choice; the fixtures' checkpoints also warn of clamped temperatures
// (laya-spec §5.1), which are not this test's subject.
const simdWarnings = (warnings: string[]): string[] => warnings.filter((w) => w.includes('SIMD'));

const kRelaxedJs = relaxedSibling(kCoreJs);
const kRelaxedMtJs = join(dirname(kCoreJs), 'laya-core-mt-relaxed.js');
const kEntry = join(kRepoRoot, 'dist', 'index.node.js');
const kCli = join(kRepoRoot, 'dist', 'cli.js');
const setDir = referenceSetDir;
const fixtureOf = referenceFixture;

describeWithCore('the relaxed-SIMD modules in Node', () => {
  let dir: string;
  const requestFile = (name: string): string => join(dir, `${name}.json`);
  beforeAll(() => {
    for (const path of [kRelaxedJs, kRelaxedMtJs, kEntry, kCli]) if (!existsSync(path)) throw missingBuild(path);
    dir = mkdtempSync(join(tmpdir(), 'laya-relaxed-test-'));
    for (const name of ['tiny-fanin', 'small-fanin']) {
      const f = fixtureOf(name);
      writeFileSync(requestFile(name), JSON.stringify({ inputs: f.inputs, embed_inputs: f.embed_inputs }));
    }
  });
  afterAll(() => { if (dir !== undefined) rmSync(dir, { recursive: true, force: true }); });

  function child(flags: string[], options: object, name: string, forward = true): ChildResult {
    const args = [...flags, join(kRepoRoot, 'tests', 'js', 'helpers', 'load-child.mjs'), kEntry,
      JSON.stringify({ wasm: kWasm, ...options }), join(setDir(name), 'checkpoint'), ...(forward ? [requestFile(name)] : [])];
    const run = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (run.status !== 0) throw new Error(`child exited ${run.status}: ${run.stderr}`);
    const result = JSON.parse(run.stdout) as ChildResult;
    return { ...result, warnings: simdWarnings(result.warnings) };
  }

  test('every relaxed module validates exactly where the probe does', () => {
    const files = [kRelaxedJs, kRelaxedMtJs, kCoreJs].map((js) => js.replace(/\.js$/, '.wasm'));
    const script = `const fs = require('fs');
      const probe = new Uint8Array(${JSON.stringify(Array.from(kRelaxedSimdProbe))});
      process.stdout.write(JSON.stringify([WebAssembly.validate(probe), ...${JSON.stringify(files)}.map((f) => WebAssembly.validate(fs.readFileSync(f)))]));`;
    const validated = (flags: string[]): boolean[] =>
      JSON.parse(spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' }).stdout) as boolean[];
    expect(validated([kFlag])).toEqual([true, true, true, true]);
    expect(validated([])).toEqual([kNativeRelaxed, kNativeRelaxed, kNativeRelaxed, true]);
  });

  test.each(['tiny-fanin', 'small-fanin'])('with relaxed SIMD, auto runs the relaxed module and %s matches the reference', (name) => {
    const got = child([kFlag], { threads: 1 }, name);
    expect(got).toMatchObject({ simd: 'relaxed', threads: 1, warnings: [] });
    const fixture = fixtureOf(name);
    const result = compareWithReference(JSON.parse(got.forward as string) as ForwardResult, fixture);
    expect(result.counts).toEqual([fixture.expected.length, fixture.embed_expected.length]);
    expect(result.argmaxMoved).toEqual([]);
    expect(result.worst).toBeLessThan(1e-4);
  });

  test('the relaxed threaded module gives the same bits on 1, 2 and 3 threads', () => {
    const runs = [1, 2, 3].map((threads) => child([kFlag], { threads, simd: 'relaxed' }, 'small-fanin'));
    runs.forEach((r, i) => expect(r).toMatchObject({ simd: 'relaxed', threads: i + 1, warnings: [] }));
    expect(compareWithReference(JSON.parse(runs[0]?.forward as string) as ForwardResult, fixtureOf('small-fanin')).worst).toBeLessThan(1e-4);
    expect(runs[1]?.forward).toBe(runs[0]?.forward);
    expect(runs[2]?.forward).toBe(runs[0]?.forward);
  });

  test('without relaxed SIMD, auto runs the plain module silently and relaxed asked for says why', () => {
    if (kNativeRelaxed) return;  // Node 22+ always has it
    expect(child([], { threads: 2 }, 'tiny-fanin', false)).toEqual({ simd: 'plain', threads: 2, warnings: [] });
    const asked = child([], { threads: 1, simd: 'relaxed' }, 'tiny-fanin', false);
    expect(asked).toMatchObject({ simd: 'plain', threads: 1 });
    expect(asked.warnings).toEqual(['laya-wasm: running the plain-SIMD module, not the relaxed-SIMD one asked for: this Node does ' +
      'not compile relaxed SIMD (Node 20 needs --experimental-wasm-relaxed-simd; Node 22+ has it)']);
  });

  test('simd plain runs the plain module even where relaxed SIMD compiles', () => {
    expect(child([kFlag], { threads: 1, simd: 'plain' }, 'tiny-fanin', false)).toEqual({ simd: 'plain', threads: 1, warnings: [] });
  });

  test('a missing relaxed module falls back to the plain one, saying so when relaxed was asked for', async () => {
    const warnings: string[] = [];
    const model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, {
      simd: 'relaxed', threads: 1, onWarning: (w) => warnings.push(w),
      wasm: { ...kWasm, relaxedModuleUrl: join(dir, 'nowhere.js'), validate: () => true },
    });
    expect(model.simd).toBe('plain');
    expect(simdWarnings(warnings)).toEqual([`laya-wasm: running the plain-SIMD module, not the relaxed-SIMD one asked for: the relaxed-SIMD module ${join(dir, 'nowhere.js')} is missing`]);
    model.dispose();
  });

  test('the CLI on plain Node runs the relaxed module (it sets the V8 flag itself) unless --simd plain', () => {
    const cli = (extra: string[]): string => {
      const run = spawnSync(process.execPath, [kCli, 'forward', '--model', join(setDir('small-fanin'), 'checkpoint'),
        '--inputs', requestFile('small-fanin'), '--wasm', kCoreJs, ...extra], { encoding: 'utf8', maxBuffer: 1 << 26 });
      expect(run.status).toBe(0);
      expect(run.stderr).not.toMatch(/SIMD|error/);
      return run.stdout.trimEnd();
    };
    const relaxed = child([kFlag], { threads: 1, simd: 'relaxed' }, 'small-fanin').forward;
    const plain = child([], { threads: 1, simd: 'plain' }, 'small-fanin').forward;
    expect(cli(['--threads', '1'])).toBe(relaxed);
    expect(cli(['--threads', '2', '--simd', 'relaxed'])).toBe(relaxed);
    expect(cli(['--threads', '1', '--simd', 'plain'])).toBe(plain);
  });
});
