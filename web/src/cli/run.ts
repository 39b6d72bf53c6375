// The laya-wasm command line: forward / predict / embed on a checkpoint directory, and parity
// against upstream recordings (configs + tokenizer only). Bad arguments exit 2, failures 1, each
// with one line naming the fault.
import { readFile, writeFile } from 'node:fs/promises';
import { LayaError, describeError } from '../errors.js';
import { loadModelWith, loadPipelineWith } from '../load.js';
import type { LayaModel, LayaPipeline } from '../model.js';
import { nodeRuntime } from '../node/node-runtime.js';
import type { LoadOptions } from '../options.js';
import type { PredictOptions, ResponseShape } from '../request.js';
import type { BatchOptions } from '../batch.js';
import { cacheRoot } from '../node/cache-folder.js';
import type { CheckpointSource } from '../sources/checkpoint-source.js';
import { parseArgs, parseJsonArgument, positiveInteger, UsageError, type CommandSpec, type ParsedArgs } from './args.js';
import { isRemote, modelSource, type Environment } from './model-source.js';
import { progressPrinter, type ProgressPrinter } from './progress-line.js';
import { runParity } from './parity.js';
import { runQuantize } from './quantize.js';
import { kHelperCommands, kHelperUsage, runHelperCommand } from './helper-commands.js';
import { routeCommand, routeOf, type RouteArguments } from './route-command.js';
import { kBundledModels, type CheckpointName } from '../router/registry.js';
import type { Routing } from '../router/route.js';
import { appendRouting } from '../router/routing-json.js';

export const kUsage = `Usage: laya-wasm <command> [options]

Commands:
  forward --model <dir> --inputs <file.json> [--out <file>]
      Raw forward pass in the fixture format: {"inputs":[{ids,markers,qtype}],"embed_inputs":[{ids}]}
      -> {"expected":[{logits,act}],"embed_expected":[{pooled}]}.
  predict --model <dir> (--state <text|@file> | --state-json <json|@file>) --questions <json|@file>
          [--shape current|0.3.21|0.3.7] [--min-confidence <number|json>] [--max-len N]
          [--head-max-len N] [--lang L] [--lang-temperatures <json|@file>]
      Prints upstream's answer JSON. A text state read from @file loses one trailing newline.
      --min-confidence: a number or a {bucket: number} map; answers below it abstain.
  predict --router [--model NAME] [--task T] [--lang L] [--default NAME] (--state ... | --state-json ...)
          --questions <json|@file> [the predict options above]
      Routes the state as upstream's Router does (see route), loads the routed checkpoint from the
      Hub (HF_ENDPOINT), and prints its answer with "routing" after "usage".
  predict-batch --model <dir> --states <file.jsonl> --questions <json|@file> [--batch-size N]
          [the predict options above]
      Upstream's predict_batch: one state per line of <file.jsonl> (a JSON string line is a text
      state), one answer per line on stdout in the same order, each as predict would print it,
      printed as each chunk of --batch-size states (default 16) is answered; progress on stderr.
${kHelperUsage}  embed --model <dir> --texts <json|@file> [--max-length N]
      Mean-pooled encoder embeddings of a JSON array of strings: {"embeddings": [[...], ...]}.
  quantize --model <dir> --out <dir>
      Writes the q8 checkpoint (8-bit weights, one scale per 64 inputs; docs/q8-format.md) of an
      F32, F16 or BF16 one into <dir>, configs and tokenizer copied; progress on stderr.
  route (--state <text|@file> | --state-json <json|@file>) [--model NAME] [--task T] [--lang L]
        [--questions <json|@file>] [--default english|multilingual|typed-decisions]
      Prints which checkpoint upstream's Router would answer the state with, and why: its routing
      object {model, repo, reason, detection, workflow}, as upstream's JSON writes it. Loads nothing;
      --model here is a checkpoint name or alias (english, multilingual, typed-decisions, en, ...).
  parity --model <dir> --cases <cases.jsonl> --recorded <recorded.jsonl> [--out <results.jsonl>]
      Compares prepared ids/markers and answers rebuilt from recorded outputs with the recordings.
      Needs only the configs and tokenizer in <dir>.

Options for every command:
  --wasm <laya-core.js>   the wasm module to use (default: the package's dist/wasm/laya-core.js)
  --threads N             threads for the forward passes (default: the machine's cores, at most 4)
  --simd auto|relaxed|plain
                          the module build: relaxed SIMD (fused multiply-add) or plain SIMD; auto
                          (default) runs relaxed where Node compiles it (on Node 20 the command turns
                          on V8's --experimental-wasm-relaxed-simd itself, unless --simd plain)
  --weights stored|q8     q8: quantize an F32 / F16 / BF16 checkpoint to 8 bits while it loads (half
                          the memory; docs/q8-format.md); stored (default): keep the file's format
  --compute f32|int8      int8: multiply the q8 weights (quantized at load from a float checkpoint)
                          in integers: faster, answers within about 1e-4 of f32 compute (default f32)
  --backend wasm|webgpu|auto
                          where forward passes run: wasm (default, the CPU engine), webgpu (the GPU
                          through the optional "webgpu" package; VK_ICD_FILENAMES picks the Vulkan
                          driver), auto (webgpu where an adapter exists, else wasm with a warning)
  --offline               use only the download cache: a file not in it is an error

--model <dir> is a checkpoint directory; every command but quantize also takes an http(s) URL of a
folder serving the checkpoint's files, or hf:owner/name[@revision] on the Hugging Face Hub (its
address from HF_ENDPOINT, default https://huggingface.co). Those are downloaded once into
$XDG_CACHE_HOME/laya-wasm (default ~/.cache/laya-wasm), with progress on stderr.
`;

const kCommands: Record<string, CommandSpec> = {
  ...kHelperCommands,
  forward: { required: ['model', 'inputs'], optional: ['out'] },
  predict: {
    required: ['questions'],
    optional: ['model', 'state', 'state-json', 'shape', 'min-confidence', 'max-len', 'head-max-len', 'lang', 'lang-temperatures',
               'task', 'default'],
  },
  'predict-batch': {
    required: ['model', 'states', 'questions'],
    optional: ['batch-size', 'shape', 'min-confidence', 'max-len', 'head-max-len', 'lang', 'lang-temperatures'],
  },
  embed: { required: ['model', 'texts'], optional: ['max-length'] },
  parity: { required: ['model', 'cases', 'recorded'], optional: ['out'] },
  quantize: { required: ['model', 'out'], optional: [] },
  route: { required: [], optional: ['state', 'state-json', 'model', 'task', 'lang', 'questions', 'default'] },
};

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Merged into every load (tests pass a wasm factory). */
  loadOptions?: LoadOptions;
  /**
   * Called before any module loads unless --simd plain: lets this process compile relaxed SIMD
   * (cli.ts: V8's flag on Node 20). Absent: the process is left as it is.
   */
  enableRelaxedSimd?: () => void;
  /** HF_ENDPOINT and XDG_CACHE_HOME are read here (cli.ts: process.env). Absent: neither is set. */
  env?: Environment;
  /** Whether stderr is a terminal: the download progress is then one line redrawn in place. */
  stderrIsTerminal?: boolean;
}

/** Runs one command; returns the exit status. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    (argv.length === 0 ? io.stderr : io.stdout)(kUsage);
    return argv.length === 0 ? 2 : 0;
  }
  try {
    const args = parseArgs(argv, kCommands, ['wasm', 'threads', 'simd', 'weights', 'compute', 'backend'], ['offline', 'router', 'return-details']);
    return await runCommand(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`laya-wasm: ${error.message}\nRun "laya-wasm --help" for usage.\n`);
      return 2;
    }
    const message = describeError(error).replace(/\s*\n\s*/g, ' ');
    io.stderr(`laya-wasm: ${message}\n`);
    return 1;
  }
}

async function runCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const flag = (name: string): string | undefined => args.flags.get(name);
  // The state and questions, read once (an @file is read here only) for routing and predicting.
  const takesState = ['route', 'predict', ...Object.keys(kHelperCommands)].includes(args.command);
  const request = takesState ? await requestArguments(args, flag) : null;
  if (args.command === 'route') {
    io.stdout(`${routeCommand({ ...(request as RequestArguments), ...routeFlags(flag) })}\n`);
    return 0;
  }
  const routing = routingOf(args, flag, request);
  const model = routing === null ? modelSource(requiredModel(args, flag), io.env ?? {}) : routedSource(routing, io.env ?? {});
  // A fetched model shows its progress on stderr; warnings then go below the progress line.
  const progress = isRemote(model) ? progressPrinter(io.stderr, io.stderrIsTerminal ?? false) : undefined;
  const warn = progress?.write ?? io.stderr;
  const options: LoadOptions = { onWarning: (w) => warn(`laya-wasm: warning: ${w}\n`),
                                 ...remoteOptions(model, flag('offline') !== undefined, io.env ?? {}, progress), ...io.loadOptions };
  const wasm = flag('wasm');
  if (wasm !== undefined) options.wasm = { ...options.wasm, moduleUrl: wasm };
  const threads = flag('threads');
  if (threads !== undefined) options.threads = positiveInteger(threads, 'threads');
  const simd = flag('simd');
  if (simd !== undefined) {
    if (simd !== 'auto' && simd !== 'relaxed' && simd !== 'plain') {
      throw new UsageError(`--simd must be "auto", "relaxed" or "plain", got "${simd}"`);
    }
    options.simd = simd;
  }
  if (options.simd !== 'plain') io.enableRelaxedSimd?.();
  const weights = flag('weights');
  if (weights !== undefined) {
    if (weights !== 'stored' && weights !== 'q8') throw new UsageError(`--weights must be "stored" or "q8", got "${weights}"`);
    options.weights = weights;
  }
  const compute = flag('compute');
  if (compute !== undefined) {
    if (compute !== 'f32' && compute !== 'int8') throw new UsageError(`--compute must be "f32" or "int8", got "${compute}"`);
    options.compute = compute;
  }
  const backend = flag('backend');
  if (backend !== undefined) {
    if (backend !== 'wasm' && backend !== 'webgpu' && backend !== 'auto') {
      throw new UsageError(`--backend must be "wasm", "webgpu" or "auto", got "${backend}"`);
    }
    options.backend = backend;
  }

  switch (args.command) {
    case 'forward': {
      const inputs = await readText(flag('inputs') as string, '--inputs');
      const text = await withModel(model, options, (m) => m.forwardJson({ json: inputs }));
      await output(text, flag('out'), io);
      return 0;
    }
    case 'predict': {
      const { state, questions: questionsText } = request as RequestArguments;
      const questions = { json: questionsText as string };
      const predictOptions = await predictOptionsOf(flag);
      const text = await withModel(model, options, (m) => m.predictJson(state, questions, predictOptions));
      io.stdout(`${routing === null ? text : appendRouting(text, routing)}\n`);
      return 0;
    }
    case 'predict-batch': {
      const states = statesOfJsonLines(await readText(flag('states') as string, '--states'));
      const questions = { json: await jsonArgument(flag('questions') as string, '--questions') };
      const batchSize = flag('batch-size');
      const batchOptions: BatchOptions = {
        ...await predictOptionsOf(flag),
        ...(batchSize === undefined ? {} : { batchSize: positiveInteger(batchSize, 'batch-size') }),
        onProgress: ({ done, total }) => io.stderr(`laya-wasm: answered ${done} of ${total} states\n`),
      };
      await withModel(model, options, async (m) => {
        for await (const answer of m.predictEachJson(states, questions, batchOptions)) io.stdout(`${answer}\n`);
      });
      return 0;
    }
    case 'predict-long':
    case 'predict-tournament':
    case 'decide': {
      const { state, questions } = request as RequestArguments;
      const schema = flag('schema');
      const call = {
        command: args.command, state, questions, flag, predictOptions: await predictOptionsOf(flag),
        schema: schema === undefined ? undefined : await jsonArgument(schema, '--schema'),
      };
      io.stdout(`${await withModel(model, options, (m) => runHelperCommand(m, call))}\n`);
      return 0;
    }
    case 'embed': {
      const textsJson = await jsonArgument(flag('texts') as string, '--texts');
      let texts: unknown;
      try {
        texts = JSON.parse(textsJson);
      } catch (error) {
        throw new UsageError(`--texts is not valid JSON: ${(error as Error).message}`);
      }
      if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string' && t !== null)) {
        throw new UsageError('--texts must be a JSON array of strings');
      }
      const maxLengthFlag = flag('max-length');
      const maxLength = maxLengthFlag === undefined ? 512 : positiveInteger(maxLengthFlag, 'max-length');
      const text = await withModel(model, options, (m) => m.embedJson(texts as string[], { maxLength }));
      io.stdout(`${text}\n`);
      return 0;
    }
    case 'parity': {
      const cases = await readText(flag('cases') as string, '--cases');
      const recorded = await readText(flag('recorded') as string, '--recorded');
      const summary = await withPipeline(model, options, (p) => runParity(p, cases, recorded));
      const failures = summary.results.filter((r) => r.status === 'failed');
      for (const r of failures.slice(0, 20)) io.stdout(`FAIL ${r.id}: ${r.problems.slice(0, 3).join('; ')}\n`);
      if (failures.length > 20) io.stdout(`... and ${failures.length - 20} more failed cases\n`);
      const out = flag('out');
      if (out !== undefined) {
        const lines = summary.results.flatMap((r) => (r.outLine === null ? [] : [r.outLine]));
        await output(lines.map((l) => `${l}\n`).join(''), out, io);
      }
      const skipped = summary.skipped > 0 ? `, ${summary.skipped} skipped` : '';
      io.stdout(`${summary.passed} passed, ${summary.failed} failed${skipped}\n`);
      return summary.failed === 0 ? 0 : 1;
    }
    case 'quantize': {
      if (!('directory' in model)) throw new UsageError('quantize: --model must be a checkpoint directory');
      const out = flag('out') as string;
      const done = await runQuantize(model.directory, out, options.wasm ?? {}, (line) => io.stderr(`laya-wasm: ${line}\n`));
      io.stdout(`wrote ${out}/model.safetensors: ${done.outBytes} bytes, ${(done.outBytes / done.parameters).toFixed(4)} ` +
                `bytes per parameter (the source: ${done.sourceBytes} bytes)\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${args.command}"`);
  }
}

/** predict's options from their flags (--shape, --min-confidence, ...), as predict and predict-batch take them. */
async function predictOptionsOf(flag: (name: string) => string | undefined): Promise<PredictOptions> {
  const shape = flag('shape');
  if (shape !== undefined && shape !== 'current' && shape !== '0.3.21' && shape !== '0.3.7') {
    throw new UsageError(`--shape must be "current", "0.3.21" or "0.3.7", got "${shape}"`);
  }
  const predictOptions: PredictOptions = shape ? { shape: shape as ResponseShape } : {};
  const gate = flag('min-confidence');
  if (gate !== undefined) predictOptions.minConfidence = parseJsonArgument(gate, '--min-confidence') as number;
  const maxLen = flag('max-len');
  if (maxLen !== undefined) predictOptions.maxLen = positiveInteger(maxLen, 'max-len');
  const headMaxLen = flag('head-max-len');
  if (headMaxLen !== undefined) predictOptions.headMaxLen = positiveInteger(headMaxLen, 'head-max-len');
  const lang = flag('lang');
  if (lang !== undefined) predictOptions.lang = lang;
  const temperatures = flag('lang-temperatures');
  if (temperatures !== undefined) {
    predictOptions.langTemperatures = parseJsonArgument(await jsonArgument(temperatures, '--lang-temperatures'),
                                                    '--lang-temperatures') as PredictOptions['langTemperatures'];
  }
  return predictOptions;
}

/**
 * The states of a JSON Lines file, each line kept as written ({ json }: its number spelling is
 * the state's text); a JSON string line is a text state. Blank lines are skipped.
 */
function statesOfJsonLines(text: string): Array<{ json: string }> {
  return text.split(/\r?\n/).filter((line) => line.trim() !== '').map((line) => ({ json: line }));
}

/** The state (text or { json }) and the questions' JSON text, as given to route and predict. */
type RequestArguments = RouteArguments & { questions?: string | undefined };

async function requestArguments(args: ParsedArgs, flag: (name: string) => string | undefined): Promise<RequestArguments> {
  const questions = flag('questions');
  return {
    state: await stateArgument(flag('state'), flag('state-json'), args.command),
    questions: questions === undefined ? undefined : await jsonArgument(questions, '--questions'),
  };
}

/** The flags that steer routing, for route and predict --router. */
function routeFlags(flag: (name: string) => string | undefined): Omit<RouteArguments, 'state' | 'questions'> {
  return { model: flag('model'), task: flag('task'), lang: flag('lang'), default: flag('default') };
}

/**
 * `predict --router`: the routing decision (nothing loaded yet), with --model a checkpoint name;
 * null for every other command, where --model is the checkpoint itself.
 */
function routingOf(args: ParsedArgs, flag: (name: string) => string | undefined, request: RequestArguments | null): Routing | null {
  if (flag('router') === undefined) {
    for (const name of ['task', 'default']) {
      if (flag(name) !== undefined) throw new UsageError(`${args.command}: --${name} goes with --router`);
    }
    return null;
  }
  if (args.command !== 'predict' || request === null) throw new UsageError(`${args.command}: --router is for predict`);
  return routeOf({ ...request, ...routeFlags(flag) });
}

function requiredModel(args: ParsedArgs, flag: (name: string) => string | undefined): string {
  const model = flag('model');
  if (model === undefined) throw new UsageError(`${args.command}: missing --model`);
  return model;
}

/** The Hub source of a routed checkpoint (its repository and subfolder, from HF_ENDPOINT). */
function routedSource(routing: Routing, env: Environment): CheckpointSource {
  const spec = kBundledModels[routing.model as CheckpointName];
  if (spec === undefined) throw new UsageError(`--router: no Hub source for the checkpoint ${routing.model}`);
  const endpoint = env['HF_ENDPOINT'];
  return { repo: spec.repo, ...(spec.subfolder ? { subfolder: spec.subfolder } : {}), ...(endpoint ? { hubUrl: endpoint } : {}) };
}

/**
 * For a fetched model: the user's download cache, the progress printer, and with --offline a fetch
 * that refuses, so that only what the cache holds can load (and that answers the cache's
 * revalidation with 304: offline, a cached file counts as current).
 */
function remoteOptions(source: CheckpointSource, offline: boolean, env: Environment, progress: ProgressPrinter | undefined): LoadOptions {
  if (!isRemote(source)) return {};
  const cache = cacheRoot(true, env);
  const options: LoadOptions = { cache, ...(progress ? { onProgress: progress.onProgress } : {}) };
  if (offline) {
    options.fetch = (url, init) => new Headers(init?.headers).has('if-none-match') || new Headers(init?.headers).has('if-modified-since')
      ? Promise.resolve(new Response(null, { status: 304 }))
      : Promise.reject(new LayaError('network', `--offline: ${url} is not in the download cache ${cache}`));
    options.retries = 0;
  }
  return options;
}

async function withModel<T>(source: CheckpointSource, options: LoadOptions, use: (m: LayaModel) => Promise<T>): Promise<T> {
  return using(await loadModelWith(nodeRuntime, source, options), use);
}

async function withPipeline<T>(source: CheckpointSource, options: LoadOptions, use: (p: LayaPipeline) => Promise<T>): Promise<T> {
  return using(await loadPipelineWith(nodeRuntime, source, options), use);
}

/** `use` on a loaded model, then disposed; the command ends once the download cache holds every file it committed behind the load. */
async function using<M extends LayaPipeline, T>(loaded: M, use: (m: M) => Promise<T>): Promise<T> {
  try {
    return await use(loaded);
  } finally {
    loaded.dispose();
    await loaded.stored;
  }
}

async function readText(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new LayaError('invalid_request', `${flag}: cannot read ${path}: ${describeError(error)}`);
  }
}

/** A JSON argument given inline or as @file. */
async function jsonArgument(value: string, flag: string): Promise<string> {
  return value.startsWith('@') ? readText(value.slice(1), flag) : value;
}

async function stateArgument(text: string | undefined, json: string | undefined,
                             command = 'predict'): Promise<string | { json: string }> {
  if ((text === undefined) === (json === undefined)) throw new UsageError(`${command}: give exactly one of --state and --state-json`);
  if (json !== undefined) return { json: await jsonArgument(json, '--state-json') };
  const value = text as string;
  if (!value.startsWith('@')) return value;
  // A trailing newline is a token and changes answers (laya-spec §7.15); Laya's CLI strips it too.
  return (await readText(value.slice(1), '--state')).replace(/\r?\n$/, '');
}

async function output(text: string, path: string | undefined, io: CliIo): Promise<void> {
  if (path === undefined) {
    io.stdout(text.endsWith('\n') ? text : `${text}\n`);
    return;
  }
  try {
    await writeFile(path, text);
  } catch (error) {
    throw new LayaError('invalid_request', `--out: cannot write ${path}: ${describeError(error)}`);
  }
}
