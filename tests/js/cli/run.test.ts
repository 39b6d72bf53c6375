// The laya-wasm command line over the fake wasm module: usage errors exit 2 with one line naming
// the fault, failures exit 1, and each command writes what the engine returned; parity compares
// prepared rows and rebuilt answers with upstream's recordings.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../web/src/cli/run.js';
import { FakeCore, type FakeSession } from '../helpers/fake-core.js';
import { kTinyCheckpoint, kUpstreamDir } from '../helpers/fixtures.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'laya-cli-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[], fake = new FakeCore()): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(argv, {
    stdout: (t) => { stdout += t; },
    stderr: (t) => { stderr += t; },
    loadOptions: { wasm: { factory: fake.factory } },
  });
  return { status, stdout, stderr };
}

describe('arguments', () => {
  test('no command prints the usage to stderr and exits 2; --help prints it to stdout', async () => {
    expect(await run([])).toMatchObject({ status: 2, stdout: '' });
    expect((await run([])).stderr).toContain('Usage: laya-wasm <command>');
    expect(await run(['--help'])).toMatchObject({ status: 0, stderr: '' });
  });

  test.each([
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['predict', '--model', 'x', '--state', 's'], 'predict: missing --questions'],
    [['embed', '--model', 'x', '--texts', '[]', '--colour', 'red'], 'embed: unknown option --colour'],
    [['embed', '--model', 'x', '--texts'], 'embed: --texts needs a value'],
    [['embed', '--model', kTinyCheckpoint, '--texts', '[1]'], '--texts must be a JSON array of strings'],
    [['embed', '--model', kTinyCheckpoint, '--texts', '[]', '--max-length', '0'], '--max-length must be a positive integer, got "0"'],
    [['predict', '--model', kTinyCheckpoint, '--questions', '{}'], 'predict: give exactly one of --state and --state-json'],
    [['predict', '--model', kTinyCheckpoint, '--questions', '{}', '--state', 's', '--shape', '1'], '--shape must be "current", "0.3.21" or "0.3.7", got "1"'],
  ])('%j exits 2 naming the fault', async (argv, message) => {
    const result = await run(argv);
    expect(result.status).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(`laya-wasm: ${message}`);
  });

  test('a checkpoint directory missing a file exits 1 with one line naming it', async () => {
    const result = await run(['forward', '--model', dir, '--inputs', '/dev/null']);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^laya-wasm: (rl_agent_config\.json|encoder\/config\.json|tokenizer\/tokenizer(_config)?\.json|model\.safetensors) not found in .*\n$/);
  });
});

describe('commands', () => {
  test('forward writes the engine output to --out', async () => {
    const inputs = join(dir, 'in.json');
    writeFileSync(inputs, '{"inputs": [{"ids": [1, 9, 4], "markers": [1], "qtype": 0}]}');
    const out = join(dir, 'out.json');
    const result = await run(['forward', '--model', kTinyCheckpoint, '--inputs', inputs, '--out', out]);
    expect(result).toMatchObject({ status: 0, stderr: '' });
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ expected: [{ logits: [9], act: [3, 0.5] }], embed_expected: [] });
  });

  test('predict reads a text state from @file without its trailing newline and passes questions as written', async () => {
    const state = join(dir, 'state.txt');
    writeFileSync(state, 'line one\nline two\n');
    const questions = join(dir, 'q.json');
    writeFileSync(questions, '{"2": {"type": "noul", "instructions": "x"}, "1": {"type": "noul", "instructions": "y"}}');
    const result = await run(['predict', '--model', kTinyCheckpoint, '--state', `@${state}`, '--questions', `@${questions}`, '--shape', '0.3.7']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      method: 'predict', state: 'line one\nline two', stateIsJson: false,
      questions: '{"2": {"type": "noul", "instructions": "x"}, "1": {"type": "noul", "instructions": "y"}}',
      options: '{"shape":"0.3.7"}',
    });
  });

  test('predict passes --min-confidence, --max-len, --head-max-len, --lang and --lang-temperatures to the engine under upstream\'s names', async () => {
    const result = await run(['predict', '--model', kTinyCheckpoint, '--state', 's', '--questions', '{}',
      '--min-confidence', '{"default": 0.6}', '--max-len', '256', '--head-max-len', '64', '--lang', 'de',
      '--lang-temperatures', '{"de": null}']);
    expect(result.status).toBe(0);
    expect(JSON.parse(JSON.parse(result.stdout).options)).toEqual({
      min_confidence: { default: 0.6 }, max_len: 256, head_max_len: 64, lang: 'de', lang_temperatures: { de: null },
    });
    const bad = await run(['predict', '--model', kTinyCheckpoint, '--state', 's', '--questions', '{}', '--min-confidence', 'high']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^laya-wasm: --min-confidence is not valid JSON/);
  });

  test('predict-batch reads one state per line (a string line is text, blank lines skipped) and prints one answer per line in order, progress on stderr', async () => {
    const states = join(dir, 'states.jsonl');
    writeFileSync(states, '"first ticket"\n{"id": 2, "price": 1.0}\n\n["a", "b"]\n');
    const result = await run(['predict-batch', '--model', kTinyCheckpoint, '--states', states, '--questions', '{"q": {"type": "noul", "instructions": "x"}}',
      '--batch-size', '2', '--shape', 'current', '--max-len', '256']);
    expect(result.status).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => JSON.parse(l) as { method: string; state: string; options: string })).toEqual([
      expect.objectContaining({ method: 'predictBatch', state: '"first ticket"', options: '{"shape":"current","max_len":256}' }),
      expect.objectContaining({ state: '{"id":2,"price":1}' }),
      expect.objectContaining({ state: '["a","b"]' }),
    ]);
    expect(result.stderr).toBe('laya-wasm: answered 2 of 3 states\nlaya-wasm: answered 3 of 3 states\n');
  });

  test('predict-batch with a null line exits 1 with upstream\'s message and prints no answer', async () => {
    const states = join(dir, 'states.jsonl');
    writeFileSync(states, '"a"\nnull\n');
    const result = await run(['predict-batch', '--model', kTinyCheckpoint, '--states', states, '--questions', '{}']);
    expect(result).toMatchObject({ status: 1, stdout: '', stderr: 'laya-wasm: state must not be None; pass a string, dict, or list\n' });
  });

  test('predict-long and predict-tournament pass their window, stride and group size under upstream\'s names', async () => {
    const long = await run(['predict-long', '--model', kTinyCheckpoint, '--state', 's', '--questions', '{}', '--window', '100', '--stride', '40',
      '--shape', 'current']);
    expect(long.status).toBe(0);
    expect(JSON.parse(long.stdout)).toMatchObject({ method: 'predictLong', options: '{"shape":"current","window":100,"stride":40}' });
    const tournament = await run(['predict-tournament', '--model', kTinyCheckpoint, '--state', 's', '--questions', '{}', '--group-size', '8']);
    expect(JSON.parse(tournament.stdout)).toMatchObject({ method: 'predictTournament', options: '{"group_size":8}' });
  });

  test('decide sends the schema as written with --return-details and the gate in its target, and needs exactly one of --schema and --questions', async () => {
    const schema = '{"type": "object", "properties": {"p": {"enum": [1.0, 2]}}}';
    const result = await run(['decide', '--model', kTinyCheckpoint, '--state', 's', '--schema', schema, '--return-details', '--min-confidence', '0.5']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      method: 'decide', questions: `{"schema": ${schema}, "return_details": true, "min_confidence": 0.5}`, options: '{}',
    });
    const neither = await run(['decide', '--model', kTinyCheckpoint, '--state', 's']);
    expect(neither).toMatchObject({ status: 2, stderr: expect.stringContaining('decide: give exactly one of --schema and --questions') });
  });

  test('embed prints the text the engine wrote for the embeddings', async () => {
    // The engine's float text (the shortest that reads back as the same f32) is pinned by
    // tests/cpp/session/wire_test.cc and by the real module in integration/decisions.test.ts.
    const fake = new FakeCore({ embed: (texts, maxLength) => texts.map(() => [0.5, -2, maxLength]) });
    const result = await run(['embed', '--model', kTinyCheckpoint, '--texts', '["a", "b"]', '--max-length', '8'], fake);
    expect(result.stdout).toBe('{"embeddings": [[0.5,-2,8],[0.5,-2,8]]}\n');
  });
});

describe('route', () => {
  test('route prints the routing object in upstream\'s key order and JSON spelling, and loads no module', async () => {
    const fake = new FakeCore();
    const result = await run(['route', '--state', 'The parcel arrived broken and nobody answers my emails.', '--default', 'english'], fake);
    expect(result).toMatchObject({ status: 0, stderr: '' });
    // English stopwords (the, and, my), no non-English letters: upstream's last rule, "English Latin text".
    expect(result.stdout).toBe('{"model": "english", "repo": "convaiinnovations/laya", "reason": "English Latin text", ' +
      '"detection": {"script": "latin", "script_profile": {"latin": 1.0}, "language": "en", "is_english": true, ' +
      '"language_undecided": false, "diacritic_rate": 0.0, "non_latin_fraction": 0.0, "mixed_segment": null}, "workflow": null}\n');
    expect(fake.modules).toBe(0);
  });

  test('an explicit --model alias wins over detection and is reported with Python\'s repr', async () => {
    const result = await run(['route', '--state-json', '{"note": "Der Kunde ist sehr unzufrieden."}', '--model', 'EN ']);
    expect(JSON.parse(result.stdout)).toEqual({
      model: 'english', repo: 'convaiinnovations/laya', reason: "explicit model='EN '", detection: null, workflow: null,
    });
  });

  test('an unknown --model exits 1 with upstream\'s message, and a missing state exits 2', async () => {
    const unknown = await run(['route', '--state', 'x', '--model', 'klingon']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/^laya-wasm: unknown model 'klingon'; choose one of /);
    expect((await run(['route'])).stderr.split('\n')[0]).toBe('laya-wasm: route: give exactly one of --state and --state-json');
  });
});

describe('parity', () => {
  const cases = readFileSync(join(kUpstreamDir, 'cases.jsonl'), 'utf8').trim().split('\n').slice(0, 3);
  const recorded = readFileSync(join(kUpstreamDir, 'recorded.jsonl'), 'utf8').trim().split('\n').slice(0, 3);
  interface Rec { id: string; questions: Array<{ qid: string; ids: number[]; markers: number[]; logits: number[]; act_probs: number[] }>; answer: unknown }
  const byState = new Map<string, Rec>();
  cases.forEach((line, i) => {
    const c = JSON.parse(line) as { state: unknown };
    byState.set(typeof c.state === 'string' ? c.state : JSON.stringify(c.state), JSON.parse(recorded[i] as string) as Rec);
  });
  const key = (state: string, isJson: boolean): string => (isJson ? JSON.stringify(JSON.parse(state)) : state);

  /** A session that answers what upstream recorded (the answer written compactly, so only the canonical comparison can match it). */
  const replaying = (mutate?: (rec: Rec) => void) => (session: FakeSession): void => {
    session.prepare = (state, isJson) => {
      const rec = structuredClone(byState.get(key(state, isJson)) as Rec);
      mutate?.(rec);
      return JSON.stringify({ questions: rec.questions.map((q) => ({ qid: q.qid, ids: q.ids, markers: q.markers, qtype: 0 })) });
    };
    session.answer = (state, isJson, _q, _o, outputs) => {
      const rec = byState.get(key(state, isJson)) as Rec;
      expect(JSON.parse(outputs)).toEqual({ logits: rec.questions.map((q) => q.logits), act: rec.questions.map((q) => q.act_probs) });
      return JSON.stringify(rec.answer).replace(/"act_probability":1\b(?!\.)/g, '"act_probability":1.0');
    };
  };

  function files(): string[] {
    const c = join(dir, 'cases.jsonl');
    const r = join(dir, 'recorded.jsonl');
    writeFileSync(c, `${cases.join('\n')}\n`);
    writeFileSync(r, `${recorded.join('\n')}\n`);
    return ['--cases', c, '--recorded', r];
  }

  test('passes when ids, markers and the answer match; loads no weights; writes one line per case', async () => {
    const fake = new FakeCore({ customize: replaying() });
    const out = join(dir, 'results.jsonl');
    // The upstream fixture folder has configs and a tokenizer but no model.safetensors.
    const result = await run(['parity', '--model', join(kUpstreamDir, 'english'), ...files(), '--out', out], fake);
    expect(result.stdout).toBe('3 passed, 0 failed\n');
    expect(result.status).toBe(0);
    expect(fake.session.calls.filter((c) => c !== 'prepare' && c !== 'answer')).toEqual(['configure', 'configSummary', 'warnings', 'delete']);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; questions: unknown[]; answer: unknown });
    expect(lines.map((l) => l.id)).toEqual(cases.map((c) => (JSON.parse(c) as { id: string }).id));
    expect(lines[0]?.answer).toEqual((JSON.parse(recorded[0] as string) as Rec).answer);
  });

  test('reports the first difference of a marker and of the answer, and exits 1', async () => {
    const fake = new FakeCore({ customize: replaying((rec) => { if (rec.questions[0]) rec.questions[0].markers[0]! += 1; }) });
    const result = await run(['parity', '--model', join(kUpstreamDir, 'english'), ...files()], fake);
    expect(result.status).toBe(1);
    const firstId = (JSON.parse(cases[0] as string) as { id: string }).id;
    const firstQid = (JSON.parse(recorded[0] as string) as Rec).questions[0]?.qid;
    expect(result.stdout).toContain(`FAIL ${firstId}: ${firstQid}.markers[0]: expected`);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('0 passed, 3 failed');
  });
});

describe('--threads and --simd (every command)', () => {
  async function runWith(argv: string[], fake = new FakeCore()): Promise<{ status: number; stdout: string; stderr: string; enabled: number }> {
    let stdout = '';
    let stderr = '';
    let enabled = 0;
    const status = await runCli(argv, {
      stdout: (t) => { stdout += t; },
      stderr: (t) => { stderr += t; },
      loadOptions: { wasm: { factory: fake.factory } },
      enableRelaxedSimd: () => { enabled++; },
    });
    return { status, stdout, stderr, enabled };
  }
  const embed = ['embed', '--model', kTinyCheckpoint, '--texts', '["a"]'];

  test.each([
    [['--threads', '0'], '--threads must be a positive integer, got "0"'],
    [['--threads', 'two'], '--threads must be a positive integer, got "two"'],
    [['--threads', '1.5'], '--threads must be a positive integer, got "1.5"'],
    [['--simd', 'fast'], '--simd must be "auto", "relaxed" or "plain", got "fast"'],
    [['--simd'], 'embed: --simd needs a value'],
  ])('%j exits 2 with one line naming the fault', async (extra, message) => {
    const result = await runWith([...embed, ...extra]);
    expect(result.status).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(`laya-wasm: ${message}`);
    expect(result.enabled).toBe(0);
  });

  test('--threads reaches the load: 2 workers asked of the one-thread fake module, which grants 1 of 3; the CLI warns', async () => {
    const fake = new FakeCore();
    const result = await runWith([...embed, '--threads', '3'], fake);
    expect(result.status).toBe(0);
    expect(fake.factoryOptions.map((o) => o['layaWorkers'])).toEqual([2]);
    expect(result.stderr).toMatch(/^laya-wasm: warning: laya-wasm: running on 1 thread, not the 3 asked for/);
    const one = await runWith([...embed, '--threads', '1']);
    expect(one).toMatchObject({ status: 0, stderr: '' });
  });

  test.each([
    [[], 1], [['--simd', 'auto'], 1], [['--simd', 'relaxed'], 1], [['--simd', 'plain'], 0],
  ])('%j turns relaxed SIMD on in the process %i times', async (extra, times) => {
    const result = await runWith([...embed, ...extra]);
    expect(result.status).toBe(0);
    expect(result.enabled).toBe(times);
  });

  test('every command accepts them', async () => {
    for (const command of ['forward', 'predict', 'embed', 'parity', 'quantize']) {
      const result = await runWith([command, '--threads', '1', '--simd', 'plain']);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^laya-wasm: ${command}: missing --`));
    }
  });
});
