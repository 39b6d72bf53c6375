// A stand-in for the wasm module (cpp/bind/embind.cc) with the same surface, for unit tests of
// the TypeScript package: real WebAssembly.Memory that grows in planWeights (so a stale HEAPU8
// view would lose bytes), a minimal safetensors header check, and sessions that echo what they
// were given. It counts sessions created and deleted.
import { kLayaCoreAbi, type LayaCoreFactory, type LayaCoreModule, type LayaQuantizerHandle, type LayaSessionHandle } from '../../../web/src/core/laya-core.js';

const kPage = 65536;

export interface FakeCoreOptions {
  /** Embeddings for embed(); default: a small vector derived from each text's characters. */
  embed?: (texts: string[], maxLength: number) => number[][];
  /** planWeights fails with this error code. */
  failPlan?: string;
  /** What warnings() reports. */
  warnings?: string[];
  /** Called on every new session, e.g. to replace a method. */
  customize?: (session: FakeSession) => void;
  /** Shared wasm memory (a SharedArrayBuffer), as the threaded module has. */
  sharedMemory?: boolean;
  /** What abiVersion() reports; default the version the package expects. */
  abiVersion?: number;
  /** The build the module says it is (simd()); default 'plain'. */
  simd?: 'plain' | 'relaxed';
}

export class FakeCore {
  readonly sessions: FakeSession[] = [];
  modules = 0;
  /** Modules thrown away (shutDownThreads called). */
  shutDowns = 0;
  deleted = 0;
  factoryOptions: Array<Record<string, unknown>> = [];

  constructor(readonly options: FakeCoreOptions = {}) {}

  readonly factory: LayaCoreFactory = async (factoryOptions = {}) => {
    this.factoryOptions.push(factoryOptions as Record<string, unknown>);
    this.modules++;
    return new FakeModule(this);
  };

  get live(): number {
    return this.sessions.length - this.deleted;
  }

  /** The only session created so far. */
  get session(): FakeSession {
    if (this.sessions.length !== 1) throw new Error(`expected one session, have ${this.sessions.length}`);
    return this.sessions[0] as FakeSession;
  }
}

class FakeModule implements LayaCoreModule {
  readonly owner: FakeCore;
  readonly memory: WebAssembly.Memory;
  /** Like Emscripten's: a plain property replaced when memory grows (old views go stale). */
  HEAPU8: Uint8Array;
  top = 1024;
  readonly LayaSession: new () => LayaSessionHandle;

  constructor(owner: FakeCore) {
    this.owner = owner;
    // Shared memory is reserved whole up front in some engines: 1 GiB at most, not 4.
    this.memory = owner.options.sharedMemory === true
      ? new WebAssembly.Memory({ initial: 1, maximum: 16384, shared: true })
      : new WebAssembly.Memory({ initial: 1, maximum: 65536 });
    this.HEAPU8 = new Uint8Array(this.memory.buffer);
    const module = this;
    this.LayaSession = class extends FakeSession {
      constructor() {
        super(owner, module);
        owner.sessions.push(this);
        owner.options.customize?.(this);
      }
    };
  }

  /** What the loader asked for: setThreads(n) calls, and whether the workers were shut down. */
  readonly threadRequests: number[] = [];
  shutDown = false;
  setThreads(threads: number): string {
    this.threadRequests.push(threads);
    return threads === 1 ? '' : error('invalid_request', `threads must be between 1 and 1, got ${threads}`);
  }
  threads(): number {
    return 1;
  }
  availableThreads(): number {
    return 1;
  }
  shutDownThreads(): void {
    this.shutDown = true;
    this.owner.shutDowns++;
  }
  abiVersion(): number {
    return this.owner.options.abiVersion ?? kLayaCoreAbi;
  }
  simd(): 'plain' | 'relaxed' {
    return this.owner.options.simd ?? 'plain';
  }
  /** The converter is not faked: `laya-wasm quantize` is tested on the real module. */
  readonly LayaQuantizer = class implements LayaQuantizerHandle {
    constructor() {
      throw new Error('the fake module has no LayaQuantizer');
    }
    plan(): string { return ''; }
    quantize(): string { return ''; }
    output(): Uint8Array { return new Uint8Array(); }
    release(): void {}
    delete(): void {}
  };

  grow(bytes: number): void {
    const need = Math.ceil((bytes - this.memory.buffer.byteLength) / kPage);
    if (need > 0) {
      this.memory.grow(need);
      this.HEAPU8 = new Uint8Array(this.memory.buffer);
    }
  }
}

const error = (code: string, message: string): string => JSON.stringify({ error: { code, message } });

export class FakeSession implements LayaSessionHandle {
  configured: { rlAgentConfig: string; encoderConfig: string; tokenizerJson: string; tokenizerConfig: string } | null = null;
  plan: { pointer: number; dataOffset: number; dataLength: number } | null = null;
  /** A copy of the data section as it stood when finishWeights() was called. */
  weights: Uint8Array | null = null;
  deleted = false;
  profiling = false;
  /** Every weightsWritten(bytes), in order. */
  readonly written: number[] = [];
  readonly calls: string[] = [];
  /** The states of every predictBatch call, parsed. */
  readonly batches: unknown[][] = [];
  /** Where the last embed's rows were written, and the rows. */
  private lastEmbedded: { pointer: number; rows: number[][] } = { pointer: 0, rows: [] };
  /** Where the last forward's outputs were written, and their fixture-format text. */
  private lastForward: { pointer: number; length: number; json: string } = { pointer: 0, length: 0, json: '' };

  constructor(private readonly owner: FakeCore, private readonly module: FakeModule) {}

  configure(rlAgentConfig: string, encoderConfig: string, tokenizerJson: string, tokenizerConfig: string): string {
    this.alive('configure');
    const files: Array<[string, string]> = [['rl_agent_config.json', rlAgentConfig], ['encoder/config.json', encoderConfig],
      ['tokenizer/tokenizer.json', tokenizerJson], ['tokenizer/tokenizer_config.json', tokenizerConfig]];
    for (const [name, text] of files) {
      try {
        JSON.parse(text);
      } catch {
        return error('invalid_checkpoint', `${name}: not valid JSON`);
      }
    }
    if (!('head_layers' in JSON.parse(rlAgentConfig))) {
      return error('invalid_checkpoint', 'Laya config must specify encoder and head_layers (rl_agent_config.json)');
    }
    this.configured = { rlAgentConfig, encoderConfig, tokenizerJson, tokenizerConfig };
    return '';
  }

  headerBytesNeeded(prefix: Uint8Array, fileSize: number): string {
    this.alive('headerBytesNeeded');
    if (this.configured === null) return error('internal', 'headerBytesNeeded before configure');
    if (prefix.byteLength < 8) return error('internal', 'headerBytesNeeded: fewer than 8 bytes');
    const n = Number(new DataView(prefix.buffer, prefix.byteOffset, 8).getBigUint64(0, true));
    if (8 + n > fileSize) return error('invalid_checkpoint', `model.safetensors: header of ${n} bytes does not fit in ${fileSize}`);
    return JSON.stringify({ headerEnd: 8 + n });
  }

  planWeights(headerBytes: Uint8Array, fileSize: number): string {
    this.alive('planWeights');
    if (this.owner.options.failPlan) return error(this.owner.options.failPlan, 'model.safetensors: planWeights failed (fake)');
    let header: Record<string, { data_offsets?: [number, number] }>;
    try {
      header = JSON.parse(new TextDecoder().decode(headerBytes.subarray(8)));
    } catch {
      return error('invalid_checkpoint', 'model.safetensors: the header is not JSON');
    }
    let end = 0;
    for (const [name, info] of Object.entries(header)) {
      if (name !== '__metadata__') end = Math.max(end, info.data_offsets?.[1] ?? 0);
    }
    const dataOffset = headerBytes.byteLength;
    const dataLength = fileSize - dataOffset;
    if (end !== dataLength) {
      return error('invalid_checkpoint', `model.safetensors: the header describes ${end} data bytes, the file has ${dataLength}`);
    }
    const pointer = Math.ceil(this.module.top / 64) * 64;
    this.module.grow(pointer + dataLength);
    this.module.top = pointer + dataLength;
    this.plan = { pointer, dataOffset, dataLength };
    return JSON.stringify(this.plan);
  }

  finishWeights(): string {
    this.alive('finishWeights');
    if (this.plan === null) return error('internal', 'finishWeights before planWeights');
    this.weights = this.module.HEAPU8.slice(this.plan.pointer, this.plan.pointer + this.plan.dataLength);
    return '';
  }

  forward(inputsJson: string): string {
    this.alive('forward');
    return this.runForward(inputsJson);
  }

  forwardEachAlone(inputsJson: string): string {
    this.alive('forwardEachAlone');
    return this.runForward(inputsJson);
  }

  /** Logits are the marked ids, act [length, 0.5], pooled [length]; kept in module memory like the engine's. */
  private runForward(inputsJson: string): string {
    const request = JSON.parse(inputsJson) as { inputs: Array<{ ids: number[]; markers: number[] }>; embed_inputs?: Array<{ ids: number[] }> };
    const expected = request.inputs.map((input) => ({ logits: input.markers.map((m) => input.ids[m] ?? 0), act: [input.ids.length, 0.5] }));
    const embedExpected = (request.embed_inputs ?? []).map((input) => ({ pooled: [input.ids.length] }));
    this.lastForward = { json: JSON.stringify({ expected, embed_expected: embedExpected }),
      ...this.writeFloats([...expected.flatMap((e) => [...e.logits, ...e.act]), ...embedExpected.flatMap((e) => e.pooled)]) };
    return JSON.stringify({ logits: expected.map((e) => e.logits.length), act: expected.map((e) => e.act.length),
      pooled: embedExpected.map((e) => e.pooled.length) });
  }

  forwarded(): Float32Array {
    this.alive('forwarded');
    return new Float32Array(this.module.memory.buffer, this.lastForward.pointer, this.lastForward.length);
  }

  forwardedJson(): string {
    this.alive('forwardedJson');
    return this.lastForward.json;
  }

  /** Writes floats into module memory past everything written so far, as the engine keeps its outputs. */
  private writeFloats(floats: number[]): { pointer: number; length: number } {
    const pointer = Math.ceil(this.module.top / 64) * 64;
    this.module.grow(pointer + floats.length * 4);
    this.module.top = pointer + floats.length * 4;
    new Float32Array(this.module.memory.buffer, pointer, floats.length).set(floats);
    return { pointer, length: floats.length };
  }

  warnings(): string {
    this.alive('warnings');
    return JSON.stringify(this.owner.options.warnings ?? []);
  }

  predict(state: string, stateIsJson: boolean, questionsJson: string, optionsJson: string): string {
    this.alive('predict');
    return this.echo('predict', state, stateIsJson, questionsJson, optionsJson);
  }

  prepare(state: string, stateIsJson: boolean, questionsJson: string, optionsJson: string): string {
    this.alive('prepare');
    return this.echo('prepare', state, stateIsJson, questionsJson, optionsJson);
  }

  answer(state: string, stateIsJson: boolean, questionsJson: string, optionsJson: string, outputsJson: string): string {
    this.alive('answer');
    return this.echo('answer', state, stateIsJson, questionsJson, optionsJson, outputsJson);
  }

  embed(textsJson: string, maxLength: number): string {
    this.alive('embed');
    const texts = JSON.parse(textsJson) as string[];
    const rows = this.owner.options.embed?.(texts, maxLength)
      ?? texts.map((t) => [t.length + 0.25, (t.charCodeAt(0) || 0) / 7, maxLength]);
    // Kept in module memory like the engine's, so embedded() is a view that a later call can overwrite.
    const dim = rows[0]?.length ?? 0;
    this.lastEmbedded = { pointer: this.writeFloats(rows.flat()).pointer, rows };
    return JSON.stringify({ rows: rows.length, dim });
  }

  embedded(): Float32Array {
    this.alive('embedded');
    const { pointer, rows } = this.lastEmbedded;
    return new Float32Array(this.module.memory.buffer, pointer, rows.length * (rows[0]?.length ?? 0));
  }

  /** The rows as JSON.stringify writes them: the engine's float text is the wasm tests' business. */
  embeddedJson(): string {
    this.alive('embeddedJson');
    return `{"embeddings": ${JSON.stringify(this.lastEmbedded.rows)}}`;
  }

  predictShortlist(state: string, stateIsJson: boolean, questionsJson: string, optionsJson: string): string {
    this.alive('predictShortlist');
    return this.echo('predictShortlist', state, stateIsJson, questionsJson, optionsJson);
  }

  /** One echo line per state of the array, as the engine writes one response line per state. */
  predictBatch(statesJson: string, questionsJson: string, optionsJson: string): string {
    this.alive('predictBatch');
    this.batches.push(JSON.parse(statesJson) as unknown[]);
    return (JSON.parse(statesJson) as unknown[])
      .map((state) => `${this.echo('predictBatch', JSON.stringify(state), true, questionsJson, optionsJson)}\n`).join('');
  }

  predictLong(state: string, stateIsJson: boolean, questionsJson: string, optionsJson: string): string {
    this.alive('predictLong');
    return this.echo('predictLong', state, stateIsJson, questionsJson, optionsJson);
  }

  predictTournament(state: string, stateIsJson: boolean, questionsJson: string, optionsJson: string): string {
    this.alive('predictTournament');
    return this.echo('predictTournament', state, stateIsJson, questionsJson, optionsJson);
  }

  decide(state: string, stateIsJson: boolean, targetJson: string, optionsJson: string): string {
    this.alive('decide');
    return this.echo('decide', state, stateIsJson, targetJson, optionsJson);
  }

  decideBatch(statesJson: string, targetJson: string, optionsJson: string): string {
    this.alive('decideBatch');
    return this.echo('decideBatch', statesJson, true, targetJson, optionsJson);
  }

  /** A summary read straight from the configured files, with the engine's defaults. */
  configSummary(): string {
    this.alive('configSummary');
    if (this.configured === null) return error('invalid_request', 'configSummary: configure the session first');
    const rl = JSON.parse(this.configured.rlAgentConfig) as Record<string, unknown>;
    const enc = JSON.parse(this.configured.encoderConfig) as Record<string, unknown>;
    return JSON.stringify({
      encoder: rl['encoder'], modelName: rl['model_name'], modelType: 'modernbert',
      hiddenSize: enc['hidden_size'], encoderLayers: enc['num_hidden_layers'], attentionHeads: enc['num_attention_heads'],
      intermediateSize: enc['intermediate_size'], vocabSize: enc['vocab_size'], headLayers: rl['head_layers'],
      maxLen: rl['max_len'] ?? 512, headMaxLen: rl['head_max_len'] ?? 192,
      actOutputs: Object.keys((rl['act_costs'] as object | undefined) ?? {}).length + 1,
    });
  }

  memoryReport(): string {
    this.alive('memoryReport');
    return JSON.stringify({ weightsBytes: this.plan?.dataLength ?? 0, arenaBytes: 0,
      wasmMemoryBytes: this.module.memory.buffer.byteLength });
  }

  weightsWritten(bytes: number): string {
    this.alive('weightsWritten');
    this.written.push(bytes);
    return '';
  }

  setProfiling(on: boolean): void {
    this.alive('setProfiling');
    this.profiling = on;
  }

  profile(): string {
    this.alive('profile');
    return JSON.stringify({ runs: 0, steps: [], profiling: this.profiling });
  }

  // The q8 streaming, the WebGPU replay and the worker's abort watch are not faked: the tests of
  // those run the real module. A load that reaches one fails with an error naming it.
  planWeightsQ8(): string { return this.missing('planWeightsQ8'); }
  planWeightsInt8(): string { return this.missing('planWeightsInt8'); }
  weightsStaged(): string { return this.missing('weightsStaged'); }
  planOutside(): string { return this.missing('planOutside'); }
  outsideCheckVector(): string { return this.missing('outsideCheckVector'); }
  outsideProgram(): string { return this.missing('outsideProgram'); }
  outsideBeginRequest(): string { return this.missing('outsideBeginRequest'); }
  outsideBeginReplay(): string { return this.missing('outsideBeginReplay'); }
  outsidePending(): string { return this.missing('outsidePending'); }
  outsideSupply(): string { return this.missing('outsideSupply'); }
  setAbortWatch(): void {
    this.alive('setAbortWatch');
  }

  private missing(what: string): string {
    this.alive(what);
    return error('internal', `${what}: the fake module does not have it`);
  }

  delete(): void {
    // Embind throws on a second delete; the package must never do that.
    this.alive('delete');
    this.deleted = true;
    this.owner.deleted++;
  }

  private alive(what: string): void {
    if (this.deleted) throw new Error(`BindingError: ${what} on a deleted LayaSession`);
    this.calls.push(what);
  }

  /** The arguments as JSON, so tests can see exactly what crossed the boundary. */
  private echo(method: string, state: string, stateIsJson: boolean, questionsJson: string, optionsJson: string,
               outputsJson?: string): string {
    const outputs = outputsJson === undefined ? '' : `, "outputs": ${JSON.stringify(outputsJson)}`;
    return `{"model": "fake", "method": ${JSON.stringify(method)}, "state": ${JSON.stringify(state)}, ` +
      `"stateIsJson": ${stateIsJson}, "questions": ${JSON.stringify(questionsJson)}, ` +
      `"options": ${JSON.stringify(optionsJson)}${outputs}}`;
  }
}
