// The demo's engine worker: holds the one loaded model and answers the page's requests
// (protocol.ts), so downloads and inference never block the page. A classic worker: the package's
// browser runtime loads laya-core.js (or laya-core-mt.js beside it, on a cross-origin isolated
// page) with importScripts, from the moduleUrl the page sends.
import { LayaError, load, predictShortlistJson, type LayaModel } from '../src/index.browser.js';
import type { CheckpointSource } from '../src/index.browser.js';
import type { BuildInfo, Embedded, Loaded, RequestMessage, ResponseMessage, SourceSpec } from './protocol.js';

interface WorkerScope {
  crossOriginIsolated?: boolean;
  caches?: CacheStorage;
  onmessage: ((event: MessageEvent<RequestMessage>) => void) | null;
  postMessage(message: ResponseMessage): void;
}

const scope = self as unknown as WorkerScope;
let model: LayaModel | null = null;
// Requests run one at a time, in order: a session answers one call at a time.
let queue: Promise<void> = Promise.resolve();

scope.onmessage = (event) => {
  const message = event.data;
  queue = queue.then(() => handle(message));
};

async function handle(message: RequestMessage): Promise<void> {
  try {
    const value = await run(message);
    scope.postMessage({ type: 'result', id: message.id, ok: true, value });
  } catch (error) {
    const code = error instanceof LayaError ? error.code : (error as Error)?.name ?? 'error';
    const text = error instanceof Error ? error.message : String(error);
    scope.postMessage({ type: 'result', id: message.id, ok: false, error: { code, message: text } });
  }
}

/**
 * Which module the load chose: the pthreads one on a cross-origin isolated page (SharedArrayBuffer
 * exists), the single-threaded SIMD one otherwise (the package decides; see LoadOptions.threads).
 */
function buildInfo(threads: number): BuildInfo {
  const isolated = scope.crossOriginIsolated === true;
  if (threads > 1) {
    return { crossOriginIsolated: isolated, build: 'threaded', threads,
      reason: `cross-origin isolated: the pthreads module on ${threads} threads` };
  }
  return {
    crossOriginIsolated: isolated, build: 'single-threaded', threads,
    reason: isolated
      ? 'cross-origin isolated, but one core: the single-threaded module'
      : 'not cross-origin isolated (no COOP/COEP headers): the single-threaded module',
  };
}

function toSource(spec: SourceSpec): CheckpointSource {
  switch (spec.kind) {
    case 'default':
    case 'url':
      return { url: spec.url };
    case 'hub':
      return { repo: spec.repo, revision: spec.revision || 'main',
        ...(spec.subfolder ? { subfolder: spec.subfolder } : {}), ...(spec.hubUrl ? { hubUrl: spec.hubUrl } : {}) };
    case 'files':
      return { files: spec.files };
  }
}

/** Whether the weights of a URL source are already in the browser cache (before loading). */
async function weightsCached(spec: SourceSpec): Promise<boolean> {
  if ((spec.kind !== 'url' && spec.kind !== 'default') || scope.caches === undefined) return false;
  const base = spec.url.endsWith('/') ? spec.url : `${spec.url}/`;
  const hit = await scope.caches.match(new URL('model.safetensors', base).href).catch(() => undefined);
  return hit !== undefined;
}

async function run(message: RequestMessage): Promise<unknown> {
  if (message.type === 'load') {
    model?.dispose();
    model = null;
    const started = performance.now();
    const fromCache = await weightsCached(message.source);
    const loaded = await load(toSource(message.source), {
      cache: true,
      wasm: { moduleUrl: message.moduleUrl },
      onWarning: () => undefined,  // kept in model.warnings, shown by the page
      onProgress: (event) => scope.postMessage({ type: 'progress', id: message.id, event }),
    });
    model = loaded;
    const c = loaded.config;
    const result: Loaded = {
      description: message.source.kind === 'files' ? `${message.source.files.length} files from disk` : sourceText(message.source),
      modelName: c.modelName ?? '', encoder: c.encoder, hiddenSize: c.hiddenSize, encoderLayers: c.encoderLayers,
      vocabSize: c.vocabSize, weightsFileBytes: c.weightsFileBytes, warnings: [...loaded.warnings],
      seconds: (performance.now() - started) / 1000, fromCache, build: buildInfo(loaded.threads),
    };
    return result;
  }
  if (model === null) throw new LayaError('invalid_request', `${message.type}: load a checkpoint first`);
  const state = (m: { state: string; stateIsJson: boolean }): unknown => (m.stateIsJson ? { json: m.state } : m.state);
  switch (message.type) {
    case 'predict': {
      const started = performance.now();
      const json = await model.predictJson(state(message), { json: message.questions });
      return { json, seconds: (performance.now() - started) / 1000 };
    }
    case 'shortlist': {
      const started = performance.now();
      const json = await predictShortlistJson(model, state(message), { json: message.questions }, { k: message.k });
      return { json, seconds: (performance.now() - started) / 1000 };
    }
    case 'embed':
      return embed(model, message.texts);
    case 'forward':
      return { json: await model.forwardJson({ json: message.inputs }) };
  }
}

function sourceText(spec: SourceSpec): string {
  if (spec.kind === 'hub') return `${spec.repo} @ ${spec.revision || 'main'}${spec.subfolder ? ` / ${spec.subfolder}` : ''}`;
  return spec.kind === 'files' ? 'files' : spec.url;
}

async function embed(m: LayaModel, texts: string[]): Promise<Embedded> {
  const started = performance.now();
  const vectors = await m.embed(texts);
  const norm = (v: Float32Array): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  const first = vectors[0];
  const cosine = (v: Float32Array): number => {
    if (first === undefined) return NaN;
    let dot = 0;
    v.forEach((x, i) => { dot += x * (first[i] ?? 0); });
    return dot / (norm(v) * norm(first));
  };
  return {
    dims: first?.length ?? 0,
    norms: vectors.map(norm),
    similarityToFirst: vectors.map(cosine),
    head: vectors.map((v) => Array.from(v.subarray(0, 6))),
    seconds: (performance.now() - started) / 1000,
  };
}
