// The node entry point (package.json "exports" condition "node"): the shared surface plus
// load() / loadPipeline() reading sources the way Node does (fs, a cache directory).
import { loadModelWith, loadPipelineWith } from './load.js';
import type { LayaModel, LayaPipeline } from './model.js';
import type { LoadOptions } from './options.js';
import type { CheckpointSource } from './sources/checkpoint-source.js';
import { nodeRuntime } from './node/node-runtime.js';

export * from './index.js';

/**
 * Loads a checkpoint (configs, tokenizer, weights) into a fresh wasm module and returns a ready
 * model; rejects with a LayaError (or an AbortError) leaving nothing allocated.
 */
export function load(source: CheckpointSource, options?: LoadOptions): Promise<LayaModel> {
  return loadModelWith(nodeRuntime, source, options);
}

/** Loads only the configs and tokenizer: prepare() and answer(), no weights. */
export function loadPipeline(source: CheckpointSource, options?: LoadOptions): Promise<LayaPipeline> {
  return loadPipelineWith(nodeRuntime, source, options);
}
