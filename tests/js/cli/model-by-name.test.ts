// `--model` by name (cli/model-source.ts, cli/progress-line.ts): hf:owner/name[@revision] against a
// local server standing in for the Hub (HF_ENDPOINT), a plain URL, the user's download cache
// (XDG_CACHE_HOME), --offline, and the progress on stderr: a redrawn line on a terminal, a line per
// tenth elsewhere. Never the network: the server is 127.0.0.1.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modelSource } from '../../../web/src/cli/model-source.js';
import { progressPrinter } from '../../../web/src/cli/progress-line.js';
import { runCli } from '../../../web/src/cli/run.js';
import { startCheckpointServer, type CheckpointServer } from '../helpers/checkpoint-server.js';
import { kSmallCheckpoint, kTinyCheckpoint } from '../helpers/fixtures.js';
import { describeWithCore, kWasm } from '../helpers/real-core.js';

describe('what --model names', () => {
  test.each([
    ['hf:org/tiny', {}, { repo: 'org/tiny' }],
    ['hf:org/tiny@v1.2', {}, { repo: 'org/tiny', revision: 'v1.2' }],
    ['hf:org/tiny', { HF_ENDPOINT: 'http://127.0.0.1:9' }, { repo: 'org/tiny', hubUrl: 'http://127.0.0.1:9' }],
    ['https://example.org/models/tiny/', {}, { url: 'https://example.org/models/tiny/' }],
    ['./models/tiny', { HF_ENDPOINT: 'http://127.0.0.1:9' }, { directory: './models/tiny' }],
  ])('%s with %j is %j', (value, env, source) => {
    expect(modelSource(value, env)).toEqual(source);
  });

  test.each([
    ['hf:tiny', '--model: "hf:tiny" is not hf:owner/name[@revision]'],
    ['hf:org/tiny@', '--model: "hf:org/tiny@" is not hf:owner/name[@revision]'],
    ['hf:org/a/b', '--model: "hf:org/a/b" is not hf:owner/name[@revision]'],
    ['ftp://host/x', '--model: "ftp://host/x" is neither a directory, an http(s) URL nor hf:owner/name[@revision]'],
  ])('%s is a usage error: %s', (value, message) => {
    expect(() => modelSource(value, {})).toThrow(message);
  });
});

describe('the progress line', () => {
  const events = (total: number, step: number): Array<{ type: 'total'; loaded: number; total: number }> =>
    Array.from({ length: total / step + 1 }, (_, i) => ({ type: 'total' as const, loaded: i * step, total }));

  test('elsewhere than a terminal: one plain line per tenth, then ready', () => {
    let text = '';
    const print = progressPrinter((t) => { text += t; }, false).onProgress;
    for (const e of events(2_000_000, 50_000)) print(e);
    print({ type: 'ready' });
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(12);
    expect(lines[0]).toBe('laya-wasm: loading 0% (0.0 of 2.0 MB)');
    expect(lines[5]).toBe('laya-wasm: loading 50% (1.0 of 2.0 MB)');
    expect(lines[10]).toBe('laya-wasm: loading 100% (2.0 of 2.0 MB)');
    expect(lines[11]).toBe('laya-wasm: model ready');
    expect(text).not.toContain('\r');
  });

  test('on a terminal: one line redrawn in place per percent, a bar, then a new line for ready', () => {
    const writes: string[] = [];
    const { onProgress: print } = progressPrinter((t) => writes.push(t), true);
    for (const e of events(1_000_000, 5_000)) print(e);
    print({ type: 'ready' });
    expect(writes).toHaveLength(101 + 1);
    expect(writes[50]).toBe(`\rlaya-wasm: loading [${'#'.repeat(12)}${'.'.repeat(12)}] 50% 0.5 of 1.0 MB\x1b[K`);
    expect(writes.slice(0, 101).every((w) => w.startsWith('\r') && !w.includes('\n'))).toBe(true);
    expect(writes[101]).toBe('\nlaya-wasm: model ready\n');
  });

  test('on a terminal, a warning in the middle of the progress starts on a line of its own', () => {
    let text = '';
    const printer = progressPrinter((t) => { text += t; }, true);
    printer.write('before\n');
    printer.onProgress({ type: 'total', loaded: 1, total: 2 });
    printer.write('laya-wasm: warning: w\n');
    printer.onProgress({ type: 'total', loaded: 2, total: 2 });
    printer.onProgress({ type: 'ready' });
    expect(text).toBe(`before\n\rlaya-wasm: loading [${'#'.repeat(12)}${'.'.repeat(12)}] 50% 0.0 of 0.0 MB\x1b[K\n` +
      `laya-wasm: warning: w\n\rlaya-wasm: loading [${'#'.repeat(24)}] 100% 0.0 of 0.0 MB\x1b[K\nlaya-wasm: model ready\n`);
  });
});

describeWithCore('laya-wasm predict with --model hf:... against a local Hub', () => {
  let server: CheckpointServer;
  let cache: string;
  const questions = JSON.stringify({ q: { type: 'choice', instructions: 'w7 w8', criteria: ['w9', 'w10'] } });

  beforeAll(async () => {
    server = await startCheckpointServer({
      '/org/tiny/resolve/main/': kTinyCheckpoint,
      '/org/tiny/resolve/v1/': kTinyCheckpoint,
      '/plain/tiny/': kTinyCheckpoint,
      // Upstream's registry, played by the fixture checkpoints: the Router's multilingual and English
      // choices (the server takes the first prefix that matches).
      '/convaiinnovations/laya/resolve/main/multilingual/': kSmallCheckpoint,
      '/convaiinnovations/laya/resolve/main/': kTinyCheckpoint,
    });
  });
  beforeEach(() => { cache = mkdtempSync(join(tmpdir(), 'laya-cli-cache-')); });
  afterEach(() => rmSync(cache, { recursive: true, force: true }));
  afterAll(async () => server?.close());

  async function cli(model: string, extra: string[] = [], terminal = false): Promise<{ status: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const status = await runCli(['predict', ...(model === '' ? [] : ['--model', model]), '--state', 'w5 w6', '--questions', questions, '--threads', '1', ...extra], {
      stdout: (t) => { stdout += t; },
      stderr: (t) => { stderr += t; },
      env: { HF_ENDPOINT: server.origin, XDG_CACHE_HOME: cache },
      stderrIsTerminal: terminal,
      loadOptions: { wasm: kWasm },
    });
    return { status, stdout, stderr: stderr.split('\n').filter((l) => !l.includes('temperatures')).join('\n') };
  }

  test('predict --router loads the checkpoint the state routes to from the Hub and appends upstream\'s routing after usage', async () => {
    const local = await cli(kTinyCheckpoint);
    const english = await cli('', ['--router', '--default', 'english']);
    expect(english.status).toBe(0);
    // "w5 w6" has letters but no stopwords of any language: detection abstains and the default answers.
    const routing = '{"model": "english", "repo": "convaiinnovations/laya", "reason": "Latin script, language not identified ' +
      'and no non-English letters; using default (english)", "detection": {"script": "latin", "script_profile": {"latin": 1.0}, ' +
      '"language": null, "is_english": true, "language_undecided": true, "diacritic_rate": 0.0, "non_latin_fraction": 0.0, ' +
      '"mixed_segment": null}, "workflow": null}';
    expect(english.stdout).toBe(`${local.stdout.trimEnd().slice(0, -1)}, "routing": ${routing}}\n`);
    expect(server.requests.some((r) => r.startsWith('GET /convaiinnovations/laya/resolve/main/model.safetensors'))).toBe(true);

    const multilingual = await cli('', ['--router', '--model', 'ml']);
    expect(multilingual.status).toBe(0);
    expect(JSON.parse(multilingual.stdout).routing).toEqual({
      model: 'multilingual', repo: 'convaiinnovations/laya/multilingual', reason: "explicit model='ml'", detection: null, workflow: null,
    });
    expect(server.requests.some((r) => r.startsWith('GET /convaiinnovations/laya/resolve/main/multilingual/model.safetensors'))).toBe(true);
  });

  test('answers as the directory does, downloading once into the user cache with progress; a second run reads the cache', async () => {
    const local = await cli(kTinyCheckpoint);
    expect(local.status).toBe(0);
    expect(local.stderr).not.toContain('loading');  // a directory shows no download progress

    const first = await cli('hf:org/tiny');
    expect(first.status).toBe(0);
    expect(first.stdout).toBe(local.stdout);
    expect(first.stderr).toMatch(/laya-wasm: loading 100% \([\d.]+ of [\d.]+ MB\)\nlaya-wasm: model ready/);
    const fetched = server.requests.filter((r) => r.startsWith('GET /org/tiny/resolve/main/'));
    expect(fetched.length).toBeGreaterThanOrEqual(5);
    expect(readdirSync(join(cache, 'laya-wasm'))).toHaveLength(1);

    const second = await cli('hf:org/tiny', ['--offline']);
    expect(second.status).toBe(0);
    expect(second.stdout).toBe(local.stdout);
    expect(server.requests.filter((r) => r.startsWith('GET /org/tiny/resolve/main/'))).toHaveLength(fetched.length);
  });

  test('a revision and a plain URL load too; on a terminal the progress is one redrawn line', async () => {
    const local = await cli(kTinyCheckpoint);
    const revision = await cli('hf:org/tiny@v1', [], true);
    expect(revision.status).toBe(0);
    expect(revision.stdout).toBe(local.stdout);
    expect(revision.stderr).toMatch(/\rlaya-wasm: loading \[#{24}\] 100% [\d.]+ of [\d.]+ MB\x1b\[K\nlaya-wasm: model ready/);
    expect(server.requests.some((r) => r.startsWith('GET /org/tiny/resolve/v1/model.safetensors'))).toBe(true);
    const url = await cli(`${'http'}://${new URL(server.origin).host}/plain/tiny/`);
    expect(url.status).toBe(0);
    expect(url.stdout).toBe(local.stdout);
  });

  test('--offline with an empty cache fails in one line naming the file and the cache, without a request', async () => {
    const before = server.requests.length;
    const result = await cli('hf:org/tiny', ['--offline']);
    expect(result.status).toBe(1);
    expect(result.stderr.split('\n')[0]).toMatch(
      new RegExp(`^laya-wasm: .*--offline: ${server.origin}/org/tiny/resolve/main/\\S+ is not in the download cache ${join(cache, 'laya-wasm')}`));
    expect(server.requests.length).toBe(before);
  });

  test('a repository the Hub does not have is a network error naming the file', async () => {
    const result = await cli('hf:org/missing');
    expect(result.status).toBe(1);
    expect(result.stderr.split('\n')[0]).toMatch(
      /^laya-wasm: rl_agent_config\.json not found: HTTP 404 Not Found from http:\/\/127\.0\.0\.1:\d+\/org\/missing\/resolve\/main\/rl_agent_config\.json$/);
  });

  test('quantize takes only a directory', async () => {
    let stderr = '';
    const status = await runCli(['quantize', '--model', 'hf:org/tiny', '--out', cache], {
      stdout: () => undefined, stderr: (t) => { stderr += t; }, env: {} });
    expect(status).toBe(2);
    expect(stderr.split('\n')[0]).toBe('laya-wasm: quantize: --model must be a checkpoint directory');
  });
});
