// Where a checkpoint comes from (the public Source union) and the small interface every kind of
// source is read through: open a file, learn its size, read it once front to back (laya-spec §1.1).
import type { ByteReader } from '../stream/byte-reader.js';

/** The five files of a checkpoint (laya-spec §1.1), in the order the loader reads them. */
export const kCheckpointFiles = [
  'rl_agent_config.json',
  'encoder/config.json',
  'tokenizer/tokenizer.json',
  'tokenizer/tokenizer_config.json',
  'model.safetensors',
] as const;

export type CheckpointFileName = (typeof kCheckpointFiles)[number];

/** The four small files the session is configured from (everything but the weights). */
export const kConfigFiles = kCheckpointFiles.slice(0, 4) as ReadonlyArray<Exclude<CheckpointFileName, 'model.safetensors'>>;
export const kWeightsFile: CheckpointFileName = 'model.safetensors';

/** A Hugging Face Hub repository: files at `<hubUrl>/<repo>/resolve/<revision>/<subfolder/><file>`. */
export interface HubSource {
  /** "owner/name", e.g. "convaiinnovations/laya". */
  repo: string;
  /** A branch, tag or commit. Default "main". */
  revision?: string;
  /** A folder of the repo holding the checkpoint, e.g. "typed-decisions". */
  subfolder?: string;
  /** Default "https://huggingface.co". */
  hubUrl?: string;
}

/** Any base URL: files at `<url>/<file>`. */
export interface UrlSource {
  url: string | URL;
}

/** A local directory (Node only). */
export interface DirectorySource {
  directory: string;
}

/**
 * Files the user picked or dropped: File objects named by `webkitRelativePath` (or `name`), or
 * Blobs keyed by their path. Paths match by suffix, so "mymodel/encoder/config.json" works.
 */
export interface FilesSource {
  files: Iterable<File> | ArrayLike<File> | Record<string, Blob> | Map<string, Blob>;
}

/** Where load() reads a checkpoint's five files from (kCheckpointFiles). */
export type CheckpointSource = HubSource | UrlSource | DirectorySource | FilesSource;

export interface OpenOptions {
  signal?: AbortSignal | undefined;
  /** Told the file's size as soon as it is known, when that is before open() returns. */
  onSize?: ((size: number | undefined) => void) | undefined;
  /** Told of every byte as it arrives from the source (for progress). */
  onBytes?: ((bytes: number) => void) | undefined;
  /** The file's size must be known before reading (the weights: wasm memory is planned from it). */
  needSize?: boolean | undefined;
}

export interface OpenedFile {
  readonly file: CheckpointFileName;
  /** URL or path, for messages. */
  readonly location: string;
  /** Bytes, when known before reading. */
  readonly size: number | undefined;
  readonly reader: ByteReader;
  /** True when the bytes come from the page's store or Node's cache directory, not the network. */
  readonly fromStore?: boolean;
}

/** A resolved source: where the files of one checkpoint are read from. */
export interface CheckpointLocation {
  /** For messages, e.g. "https://huggingface.co/org/repo (revision main)". */
  readonly description: string;
  /** Opens one file. Missing file: LayaError invalid_checkpoint naming it. */
  open(file: CheckpointFileName, options: OpenOptions): Promise<OpenedFile>;
  /**
   * Where files are stored behind the load (store/stored-location.ts): settles once every file this
   * location began storing is committed or given up. Never rejects: a failure is a warning.
   */
  storing?(): Promise<void>;
}

export function isHubSource(source: CheckpointSource): source is HubSource {
  return typeof (source as HubSource).repo === 'string';
}
export function isUrlSource(source: CheckpointSource): source is UrlSource {
  const url = (source as UrlSource).url;
  return typeof url === 'string' || url instanceof URL;
}
export function isDirectorySource(source: CheckpointSource): source is DirectorySource {
  return typeof (source as DirectorySource).directory === 'string';
}
export function isFilesSource(source: CheckpointSource): source is FilesSource {
  const files = (source as FilesSource).files;
  return typeof files === 'object' && files !== null;
}
