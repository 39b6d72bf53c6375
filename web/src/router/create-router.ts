// A Router in a page: each request routed as upstream's Router routes it (route.ts), its checkpoint
// loaded on first use, and the least recently used one disposed past `maxLoaded`. A checkpoint is
// 0.64-0.84 GB and a tab holding two may be killed, so the default holds one, and an evicted
// checkpoint is disposed before the next one loads (upstream evicts after: a server can afford the
// peak, a tab cannot). A checkpoint still answering a call is disposed when that call ends.
import '../dispose-symbols.js';
import { LayaError } from '../errors.js';
import type { LayaModel } from '../model.js';
import type { LoadOptions } from '../options.js';
import type { BatchOptions } from '../batch.js';
import type { LongOptions } from '../helper-options.js';
import { toJsonText, type LayaResponse, type PredictOptions, type QuestionsInput, type StateInput } from '../request.js';
import type { CheckpointSource } from '../sources/checkpoint-source.js';
import { canonicalName, kBundledModels } from './registry.js';
import { route, type RouteRequest, type RouterSettings, type Routing } from './route.js';
import { appendRouting } from './routing-json.js';

/** The package's load(): index.node.ts and index.browser.ts each bind their own. */
export type LoadCheckpoint = (source: CheckpointSource, options?: LoadOptions) => Promise<LayaModel>;

export interface CreateRouterOptions extends RouterSettings {
  /**
   * Where each checkpoint loads from, by name or alias ("english", "ml", or a name of your own).
   * `routing.repo` still names upstream's repository for the built-in names (which checkpoint
   * upstream would have used); a name of your own reports its source.
   */
  sources: Readonly<Record<string, CheckpointSource>>;
  /** How many checkpoints stay loaded; the least recently used is disposed past it. Default 1. */
  maxLoaded?: number;
  /** Options for every load (wasm, threads, cache...); a call's own `load` options are merged over them. */
  loadOptions?: LoadOptions;
}

/**
 * predict() options of a routed call: upstream's routing arguments (`model`, `task`, `lang`,
 * `langGuess`) beside the usual ones. `lang` both routes and calibrates, as upstream's does.
 */
export interface RoutedPredictOptions extends PredictOptions, Omit<RouteRequest, 'questions' | 'lang'> {
  /** Load options (progress, signal) for a checkpoint this call has to load. */
  load?: LoadOptions;
}

/** One request of a routed batch: its state and questions, and what steers its routing and budgets. */
export interface RoutedRequest extends Omit<RouteRequest, 'questions' | 'lang'> {
  state: StateInput;
  questions: QuestionsInput;
  lang?: string;
  maxLen?: number;
  headMaxLen?: number;
}

export interface RoutedBatchOptions extends Omit<BatchOptions, 'maxLen' | 'headMaxLen' | 'lang'> {
  load?: LoadOptions;
}

export interface RoutedLongOptions extends LongOptions, Omit<RouteRequest, 'questions' | 'lang'> {
  load?: LoadOptions;
}

export interface LayaRouter {
  /** The routing decision for a state, without loading anything. */
  route(state: StateInput, questions?: QuestionsInput | null, request?: Omit<RouteRequest, 'questions'>): Routing;
  /** predict() on the routed checkpoint, as upstream's JSON text with `routing` after `usage`. */
  predictJson(state: StateInput, questions: QuestionsInput, options?: RoutedPredictOptions): Promise<string>;
  /** predictJson() parsed. */
  predict(state: StateInput, questions: QuestionsInput, options?: RoutedPredictOptions): Promise<LayaResponse & { routing: Routing }>;
  /**
   * Upstream's Router.predict_batch (laya-spec-current §11.6): each request routed as predict routes
   * it, the requests grouped by checkpoint, questions, budgets and language and each group answered
   * by predictBatch; the answers in input order, each with `routing` after `usage`.
   */
  predictBatchJson(requests: readonly RoutedRequest[], options?: RoutedBatchOptions): Promise<string[]>;
  /** predictBatchJson() parsed. */
  predictBatch(requests: readonly RoutedRequest[], options?: RoutedBatchOptions): Promise<Array<LayaResponse & { routing: Routing }>>;
  /**
   * Upstream's Router.predict_long (laya-spec-current §7.7): routed as predict, answered by the
   * checkpoint's predictLong with the explicit or detected language; `routing` after `usage`.
   */
  predictLongJson(state: StateInput, questions: QuestionsInput, options?: RoutedLongOptions): Promise<string>;
  /** predictLongJson() parsed. */
  predictLong(state: StateInput, questions: QuestionsInput, options?: RoutedLongOptions): Promise<LayaResponse & { routing: Routing }>;
  /** The names of the loaded checkpoints, least recently used first. */
  readonly loaded: string[];
  /** Dispose one checkpoint (when its calls end), or all of them. */
  unload(name?: string): Promise<void>;
  /** Dispose every checkpoint; the router can still load them again. Idempotent. */
  dispose(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

interface Resident {
  name: string;
  model: Promise<LayaModel>;
  ready: boolean;
  calls: number;
  idle: (() => void)[];
}

function parseIfJsonText(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)
    && typeof (value as { json?: unknown }).json === 'string' && Object.keys(value).length === 1) {
    return JSON.parse((value as { json: string }).json);
  }
  return value;
}

function sourceRepo(source: CheckpointSource): string | null {
  if ('repo' in source) return source.subfolder ? `${source.repo}/${source.subfolder}` : source.repo;
  if ('url' in source) return String(source.url);
  if ('directory' in source) return source.directory;
  return null;
}

/** A Router over `load`: bind it in an entry point as `(options) => createRouter(load, options)`. */
export function createRouter(load: LoadCheckpoint, options: CreateRouterOptions): LayaRouter {
  const sources = new Map<string, CheckpointSource>();
  const models: Record<string, string | null> = {};
  for (const [name, source] of Object.entries(options.sources)) {
    const key = canonicalName(name);
    sources.set(key, source);
    if (!Object.hasOwn(kBundledModels, key)) models[key] = sourceRepo(source);
  }
  const settings: RouterSettings = { ...options, models: { ...models, ...options.models } };
  const maxLoaded = Math.max(1, Math.floor(options.maxLoaded ?? 1));
  const residents = new Map<string, Resident>();   // least recently used first

  const whenIdle = (resident: Resident): Promise<void> => (resident.calls === 0
    ? Promise.resolve() : new Promise((resolve) => { resident.idle.push(resolve); }));

  const retire = async (resident: Resident): Promise<void> => {
    let model: LayaModel;
    try {
      model = await resident.model;
    } catch {
      return;
    }
    await whenIdle(resident);
    model.dispose();
  };

  const acquire = async (name: string, loadOptions: LoadOptions | undefined): Promise<{ model: LayaModel; release: () => void }> => {
    let resident = residents.get(name);
    if (resident) {
      residents.delete(name);
      residents.set(name, resident);
    } else {
      const source = sources.get(name);
      if (!source) {
        throw new LayaError('invalid_request', `router: the request routed to ${JSON.stringify(name)}, `
          + `which has no source; sources name ${JSON.stringify([...sources.keys()])}`);
      }
      const victims = [...residents.values()].slice(0, Math.max(0, residents.size + 1 - maxLoaded));
      for (const victim of victims) residents.delete(victim.name);
      const created: Resident = { name, ready: false, calls: 0, idle: [], model: Promise.resolve(null as unknown as LayaModel) };
      created.model = (async () => {
        await Promise.all(victims.map(retire));
        const model = await load(source, { ...options.loadOptions, ...loadOptions });
        created.ready = true;
        return model;
      })();
      created.model.catch(() => {
        if (residents.get(name) === created) residents.delete(name);
      });
      residents.set(name, created);
      resident = created;
    }
    const held = resident;
    held.calls += 1;
    const release = (): void => {
      held.calls -= 1;
      if (held.calls === 0) for (const resolve of held.idle.splice(0)) resolve();
    };
    try {
      return { model: await held.model, release };
    } catch (error) {
      release();
      throw error;
    }
  };

  const routeState = (state: StateInput, questions: QuestionsInput | null | undefined,
    request: Omit<RouteRequest, 'questions'> = {}): Routing => route(parseIfJsonText(state),
    { ...request, questions: parseIfJsonText(questions) as Record<string, unknown> | null | undefined }, settings);

  const predictJson = async (state: StateInput, questions: QuestionsInput, callOptions: RoutedPredictOptions = {}): Promise<string> => {
    const { model: explicitModel, task, lang, langGuess, load: loadOptions, ...predictOptions } = callOptions;
    const routing = routeState(state, questions, { model: explicitModel, task, lang, langGuess });
    // upstream hands the agent the explicit lang, else the detected language
    const effectiveLang = lang ?? routing.detection?.language ?? undefined;
    const { model, release } = await acquire(routing.model, loadOptions);
    try {
      const answer = await model.predictJson(state, questions,
        effectiveLang ? { ...predictOptions, lang: effectiveLang } : predictOptions);
      return appendRouting(answer, routing);
    } finally {
      release();
    }
  };

  const predictLongJson = async (state: StateInput, questions: QuestionsInput, callOptions: RoutedLongOptions = {}): Promise<string> => {
    const { model: explicitModel, task, lang, langGuess, load: loadOptions, ...longOptions } = callOptions;
    const routing = routeState(state, questions, { model: explicitModel, task, lang, langGuess });
    const effectiveLang = lang ?? routing.detection?.language ?? undefined;
    const { model, release } = await acquire(routing.model, loadOptions);
    try {
      const answer = await model.predictLongJson(state, questions, effectiveLang ? { ...longOptions, lang: effectiveLang } : longOptions);
      return appendRouting(answer, routing);
    } finally {
      release();
    }
  };

  const predictBatchJson = async (requests: readonly RoutedRequest[], batchOptions: RoutedBatchOptions = {}): Promise<string[]> => {
    const { load: loadOptions, onProgress, ...predictOptions } = batchOptions;
    const groups = new Map<string, { model: string; indices: number[]; options: BatchOptions }>();
    const routings = requests.map((request, i) => {
      const { state, questions, model: explicitModel, task, lang, langGuess, maxLen, headMaxLen } = request;
      const routing = routeState(state, questions, { model: explicitModel, task, lang, langGuess });
      const effectiveLang = lang ?? routing.detection?.language ?? undefined;
      const options: BatchOptions = { ...predictOptions, ...(maxLen === undefined ? {} : { maxLen }),
        ...(headMaxLen === undefined ? {} : { headMaxLen }), ...(effectiveLang ? { lang: effectiveLang } : {}) };
      // Batching changes no answer: the groups only decide which requests share an engine call.
      const key = JSON.stringify([routing.model, toJsonText(questions, `router.predictBatch: requests[${i}].questions`),
        maxLen ?? null, headMaxLen ?? null, effectiveLang ?? null]);
      const group = groups.get(key) ?? { model: routing.model, indices: [], options };
      group.indices.push(i);
      groups.set(key, group);
      return routing;
    });
    const answers: string[] = new Array<string>(requests.length);
    let done = 0;
    for (const group of groups.values()) {
      const { model, release } = await acquire(group.model, loadOptions);
      try {
        const first = requests[group.indices[0] as number] as RoutedRequest;
        const texts = await model.predictBatchJson(group.indices.map((i) => (requests[i] as RoutedRequest).state), first.questions, group.options);
        texts.forEach((text, k) => {
          const i = group.indices[k] as number;
          answers[i] = appendRouting(text, routings[i] as Routing);
        });
      } finally {
        release();
      }
      done += group.indices.length;
      onProgress?.({ done, total: requests.length });
    }
    return answers;
  };

  const unload = async (name?: string): Promise<void> => {
    const names = name === undefined ? [...residents.keys()] : [canonicalName(name)];
    const leaving = names.map((n) => residents.get(n)).filter((r): r is Resident => r !== undefined);
    for (const resident of leaving) residents.delete(resident.name);
    await Promise.all(leaving.map(retire));
  };

  return {
    route: routeState,
    predictJson,
    predict: async (state, questions, callOptions) => JSON.parse(await predictJson(state, questions, callOptions)) as LayaResponse & { routing: Routing },
    predictBatchJson,
    predictBatch: async (requests, batchOptions) =>
      (await predictBatchJson(requests, batchOptions)).map((text) => JSON.parse(text) as LayaResponse & { routing: Routing }),
    predictLongJson,
    predictLong: async (state, questions, callOptions) => JSON.parse(await predictLongJson(state, questions, callOptions)) as LayaResponse & { routing: Routing },
    get loaded() {
      return [...residents.values()].filter((r) => r.ready).map((r) => r.name);
    },
    unload,
    dispose: () => unload(),
    [Symbol.asyncDispose]: () => unload(),
  };
}
