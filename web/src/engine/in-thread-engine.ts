// The engine on the caller's own thread: a wasm module instance, the session living in it (every
// call guarded against traps, core/trap-guard.ts) and the runner of its forward passes (wasm or
// WebGPU, forward-runner.ts). Session methods report failure as error text; run() turns it into the
// LayaError it names.
import type { LayaCoreModule, LayaSessionHandle } from '../core/laya-core.js';
import type { Compute } from '../options.js';
import type { SimdVariant } from '../core/simd.js';
import { checkSessionResult, numberField, parseSessionJson } from '../core/session-result.js';
import { guardTraps, type GuardedSession } from '../core/trap-guard.js';
import { LayaError } from '../errors.js';
import type { ForwardResult, MemoryReport, StepProfile } from '../request.js';
import type { ForwardRunner } from './forward-runner.js';
import { callerName, type CallName, type CallResults, type EngineCall, type EncodedRequest, type ModelEngine } from './model-engine.js';

/** How a forward's outputs cut the one float array they cross in. */
interface ForwardLengths {
  logits: number[];
  act: number[];
  pooled: number[];
}

export class InThreadEngine implements ModelEngine {
  readonly simd: SimdVariant;
  readonly compute: Compute;
  readonly stored: Promise<void>;
  readonly #core: LayaCoreModule;
  readonly #guard: GuardedSession;
  readonly #session: LayaSessionHandle;
  readonly #forwards: ForwardRunner;

  /** Takes ownership of the module, its session and the runner: dispose() frees them. */
  constructor(core: LayaCoreModule, session: LayaSessionHandle, forwards: ForwardRunner, simd: SimdVariant,
              compute: Compute, stored: Promise<void> = Promise.resolve()) {
    this.#core = core;
    this.#guard = guardTraps(session);
    this.#session = this.#guard.session;
    this.#forwards = forwards;
    this.simd = simd;
    this.compute = compute;
    this.stored = stored;
  }

  get backend(): ModelEngine['backend'] {
    return this.#forwards.backend;
  }

  threads(): number {
    return this.#core.threads();
  }

  async run<M extends CallName>(call: EngineCall<M>, signal?: AbortSignal): Promise<CallResults[M]> {
    return await this.#answer(call as EngineCall, signal) as CallResults[M];
  }

  memory(): MemoryReport {
    return this.#forwards.memory(parseSessionJson<MemoryReport>(this.#session.memoryReport(), 'memory'));
  }

  setProfiling(on: boolean): void {
    this.#forwards.setProfiling(on);
  }

  profile(): StepProfile {
    return this.#forwards.profile();
  }

  /**
   * For the package's worker (worker/laya-worker.ts): the calls that follow stop before their next
   * step once `words[index]` holds `id` (worker/abort-words.ts); null stops watching.
   */
  watchAbort(words: Int32Array | null, index = 0, id = 0): void {
    this.#session.setAbortWatch(words, index, id);
  }

  dispose(): void {
    this.#forwards.destroy();
    // After a trap the module's memory is not to be trusted, so its destructors are not run: the
    // module is thrown away with its session either way.
    if (this.#guard.trapped() === null) {
      this.#session.delete();
      this.#core.shutDownThreads();
      return;
    }
    try {
      this.#core.shutDownThreads();
    } catch {
      // It may trap again; its workers then end with the page.
    }
  }

  async #answer(call: EngineCall, signal: AbortSignal | undefined): Promise<CallResults[CallName]> {
    const session = this.#session;
    const what = callerName(call.method);
    const text = (result: string): string => checkSessionResult(result, what);
    switch (call.method) {
      case 'prepare':
        return text(session.prepare(...requestArgs(call.request)));
      case 'answer':
        return text(session.answer(...requestArgs(call.request), call.outputs));
      case 'predict':
        return text(await this.#forwards.run(() => session.predict(...requestArgs(call.request)), what, signal));
      case 'predictShortlist':
        return text(await this.#forwards.run(() => session.predictShortlist(...requestArgs(call.request)), what, signal));
      case 'predictBatch': {
        const lines = text(await this.#forwards.run(() => session.predictBatch(call.states, call.questions, call.options), what, signal));
        return lines.split('\n').slice(0, -1);
      }
      case 'predictLong':
        return text(await this.#forwards.run(() => session.predictLong(...requestArgs(call.request)), what, signal));
      case 'predictTournament':
        return text(await this.#forwards.run(() => session.predictTournament(...requestArgs(call.request)), what, signal));
      case 'decide':
        return text(await this.#forwards.run(() => session.decide(call.state.text, call.state.isJson, call.target, call.options), what, signal));
      case 'decideBatch':
        return text(await this.#forwards.run(() => session.decideBatch(call.states, call.target, call.options), what, signal));
      case 'embed':
        return this.#embedded(await this.#embed(call.texts, call.maxLength, signal));
      case 'embedJson':
        await this.#embed(call.texts, call.maxLength, signal);
        return text(session.embeddedJson());
      case 'forward':
        return this.#forwarded(await this.#forward(call.inputs, call.eachAlone, signal));
      case 'forwardJson':
        await this.#forward(call.inputs, call.eachAlone, signal);
        return text(session.forwardedJson());
    }
  }

  /** Runs embed; the session keeps the rows for embedded() / embeddedJson(). */
  async #embed(texts: string, maxLength: number, signal: AbortSignal | undefined): Promise<{ rows: number; dim: number }> {
    const what = 'embed';
    const shape = parseSessionJson<Record<string, unknown>>(
      await this.#forwards.run(() => this.#session.embed(texts, maxLength), what, signal), what);
    const rows = numberField(shape, 'rows', what);
    const expected = (JSON.parse(texts) as unknown[]).length;
    if (rows !== expected) {
      throw new LayaError('internal', `${what}: the wasm module returned ${rows} embeddings for ${expected} texts`);
    }
    return { rows, dim: numberField(shape, 'dim', what) };
  }

  /**
   * The rows, copied out of wasm memory at once (the view goes stale with the next call into the
   * module), with this realm's Float32Array rather than the module's.
   */
  #embedded({ rows, dim }: { rows: number; dim: number }): Float32Array[] {
    const floats = this.#session.embedded();
    if (!ArrayBuffer.isView(floats) || floats.length !== rows * dim) {
      throw new LayaError('internal', `embed: the wasm module returned ${floats?.length ?? 'no'} floats for ${rows} x ${dim}`);
    }
    return Array.from({ length: rows }, (_, i) => new Float32Array(floats.subarray(i * dim, (i + 1) * dim)));
  }

  /** Runs a forward pass; the session keeps its outputs for forwarded() / forwardedJson(). */
  async #forward(inputs: string, eachAlone: boolean, signal: AbortSignal | undefined): Promise<ForwardLengths> {
    const what = 'forward';
    const run = (): string => (eachAlone ? this.#session.forwardEachAlone(inputs) : this.#session.forward(inputs));
    return parseSessionJson<ForwardLengths>(await this.#forwards.run(run, what, signal), what);
  }

  /**
   * The outputs come as one Float32Array (a view of wasm memory, read at once), each value the
   * engine's f32 exactly; the lengths say where each list ends.
   */
  #forwarded(lengths: ForwardLengths): ForwardResult {
    const floats = this.#session.forwarded();
    const total = [...lengths.logits, ...lengths.act, ...lengths.pooled].reduce((a, b) => a + b, 0);
    if (!ArrayBuffer.isView(floats) || floats.length !== total || lengths.logits.length !== lengths.act.length) {
      throw new LayaError('internal', `forward: the wasm module returned ${floats?.length ?? 'no'} floats for ${total}`);
    }
    let at = 0;
    const take = (n: number): number[] => Array.from(floats.subarray(at, (at += n)));
    const expected = lengths.logits.map((n, i) => ({ logits: take(n), act: take(lengths.act[i] as number) }));
    const embedExpected = lengths.pooled.map((n) => ({ pooled: take(n) }));
    return { expected, embed_expected: embedExpected };
  }
}

/** A request as the session's methods take it: state text, whether it is JSON, questions, options. */
function requestArgs(request: EncodedRequest): [string, boolean, string, string] {
  return [request.state.text, request.state.isJson, request.questions, request.options];
}
