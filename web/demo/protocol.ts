// The messages between the demo page (main.ts) and its engine worker (worker.ts). The page only
// draws; everything that can take time (download, weights, inference) happens in the worker.
import type { LoadProgressEvent } from '../src/index.browser.js';

/** Where the page asks the worker to load a checkpoint from. */
export type SourceSpec =
  | { kind: 'default'; url: string }
  | { kind: 'url'; url: string }
  | { kind: 'hub'; repo: string; revision: string; subfolder: string; hubUrl: string }
  | { kind: 'files'; files: File[] };

export type Request =
  | { type: 'load'; source: SourceSpec; moduleUrl: string }
  | { type: 'predict'; state: string; stateIsJson: boolean; questions: string }
  | { type: 'shortlist'; state: string; stateIsJson: boolean; questions: string; k: number }
  | { type: 'embed'; texts: string[] }
  | { type: 'forward'; inputs: string };

export type RequestMessage = { id: number } & Request;

/** Which wasm build the worker runs and why (threads need crossOriginIsolated and a pthreads build). */
export interface BuildInfo {
  crossOriginIsolated: boolean;
  build: 'single-threaded' | 'threaded';
  threads: number;
  reason: string;
}

export interface Loaded {
  description: string;
  modelName: string;
  encoder: string;
  hiddenSize: number;
  encoderLayers: number;
  vocabSize: number;
  weightsFileBytes: number;
  warnings: string[];
  seconds: number;
  fromCache: boolean;
  build: BuildInfo;
}

export interface Embedded {
  dims: number;
  norms: number[];
  /** Cosine similarity of every text to the first. */
  similarityToFirst: number[];
  head: number[][];
  seconds: number;
}

export type ResponseMessage =
  | { type: 'progress'; id: number; event: LoadProgressEvent }
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; error: { code: string; message: string } };
