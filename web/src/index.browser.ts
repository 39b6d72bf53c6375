/**
 * The browser entry point (package.json "exports" condition "browser"): the shared surface plus
 * load() / loadPipeline() reading sources the way browsers do (fetch, Blobs, the Cache API or the OPFS).
 *
 * @module browser
 */
import { loadModelWith, loadPipelineWith } from './load.js';
import type { LayaModel, LayaPipeline } from './model.js';
import type { LoadOptions } from './options.js';
import type { CheckpointSource } from './sources/checkpoint-source.js';
import { browserRuntime } from './browser/browser-runtime.js';
import { LayaError } from './errors.js';
import { createRouter as createRouterWith, type CreateRouterOptions, type LayaRouter } from './router/create-router.js';
import { loadInWorker } from './worker/worker-engine.js';

export * from './index.js';

/**
 * Loads a checkpoint (configs, tokenizer, weights) into a fresh wasm module and returns a ready
 * model; rejects with a LayaError (or an AbortError) leaving nothing allocated. With
 * `{ worker: true }` all of it happens in a Worker the package starts (LoadOptions.worker).
 */
export function load(source: CheckpointSource, options?: LoadOptions): Promise<LayaModel> {
  if (options?.worker === true) return loadInWorker(source, options);
  return loadModelWith(browserRuntime, source, options);
}

/** Loads only the configs and tokenizer: prepare() and answer(), no weights. */
export function loadPipeline(source: CheckpointSource, options?: LoadOptions): Promise<LayaPipeline> {
  if (options?.worker === true) {
    return Promise.reject(new LayaError('invalid_request',
      'loadPipeline: options.worker is for load(): a pipeline runs no forward pass, so it gains nothing from a worker'));
  }
  return loadPipelineWith(browserRuntime, source, options);
}

/**
 * A Router (upstream's `Router`): each request routed to the English, multilingual or
 * typed-decisions checkpoint (route()), the checkpoint loaded with load() on first use and the least
 * recently used one disposed past `maxLoaded` (default 1: a tab holds one checkpoint at a time).
 */
export function createRouter(options: CreateRouterOptions): LayaRouter {
  return createRouterWith(load, options);
}
