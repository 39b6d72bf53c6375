/**
 * The node entry point (package.json "exports" condition "node"): the shared surface plus
 * load() / loadPipeline() reading sources the way Node does (fs, a cache directory).
 *
 * @module node
 */
import { loadModelWith, loadPipelineWith } from './load.js';
import type { LayaModel, LayaPipeline } from './model.js';
import type { LoadOptions } from './options.js';
import type { CheckpointSource } from './sources/checkpoint-source.js';
import { nodeRuntime } from './node/node-runtime.js';
import { LayaError } from './errors.js';
import { createRouter as createRouterWith, type CreateRouterOptions, type LayaRouter } from './router/create-router.js';

export * from './index.js';

/**
 * Loads a checkpoint (configs, tokenizer, weights) into a fresh wasm module and returns a ready
 * model; rejects with a LayaError (or an AbortError) leaving nothing allocated.
 */
export function load(source: CheckpointSource, options?: LoadOptions): Promise<LayaModel> {
  if (options?.worker === true) return Promise.reject(nodeRefusesWorker('load'));
  return loadModelWith(nodeRuntime, source, options);
}

/** Loads only the configs and tokenizer: prepare() and answer(), no weights. */
export function loadPipeline(source: CheckpointSource, options?: LoadOptions): Promise<LayaPipeline> {
  if (options?.worker === true) return Promise.reject(nodeRefusesWorker('loadPipeline'));
  return loadPipelineWith(nodeRuntime, source, options);
}

/**
 * options.worker is a browser feature. In Node a forward pass blocks only the thread it runs on,
 * and a process that must stay responsive already has worker_threads: load() inside one there.
 */
function nodeRefusesWorker(what: string): LayaError {
  return new LayaError('invalid_request',
    `${what}: options.worker starts a Web Worker, which only browsers have; in Node call load() ` +
    'inside your own worker_threads Worker instead (the model runs on whichever thread loads it)');
}

/**
 * A Router (upstream's `Router`): each request routed to the English, multilingual or
 * typed-decisions checkpoint (route()), the checkpoint loaded with load() on first use and the least
 * recently used one disposed past `maxLoaded` (default 1: a tab holds one checkpoint at a time).
 */
export function createRouter(options: CreateRouterOptions): LayaRouter {
  return createRouterWith(load, options);
}
