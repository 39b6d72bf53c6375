// Checkpoint files the user handed over as Blobs (a folder picked with webkitdirectory, dropped
// files, or Blobs keyed by path). A file matches a checkpoint path exactly or by path suffix
// ("mymodel/encoder/config.json"); a bare name ("tokenizer.json") matches only when no other
// candidate does, so encoder/config.json is never confused with another config.json.
import { LayaError } from '../errors.js';
import { StreamByteReader } from '../stream/stream-byte-reader.js';
import type { CheckpointFileName, CheckpointLocation, FilesSource, OpenOptions, OpenedFile } from './checkpoint-source.js';

export class FilesLocation implements CheckpointLocation {
  readonly description: string;
  private readonly entries: Array<[string, Blob]>;

  constructor(source: FilesSource) {
    this.entries = namedBlobs(source.files);
    this.description = `${this.entries.length} given files`;
  }

  async open(file: CheckpointFileName, options: OpenOptions): Promise<OpenedFile> {
    const [name, blob] = this.find(file);
    return {
      file,
      location: name,
      size: blob.size,
      reader: new StreamByteReader(blob.stream() as ReadableStream<Uint8Array>, {
        file, location: name, size: blob.size, failureCode: 'invalid_checkpoint',
        signal: options.signal, onBytes: options.onBytes,
      }),
    };
  }

  private find(file: CheckpointFileName): [string, Blob] {
    const exact = this.entries.filter(([name]) => name === file);
    const bySuffix = exact.length > 0 ? exact : this.entries.filter(([name]) => name.endsWith(`/${file}`));
    const base = file.slice(file.lastIndexOf('/') + 1);
    const candidates = bySuffix.length > 0 ? bySuffix : this.entries.filter(([name]) => name === base);
    const [first, second] = candidates;
    if (first !== undefined && second === undefined) return first;
    if (first !== undefined) {
      throw new LayaError('invalid_checkpoint',
        `${file}: several given files match it (${candidates.map(([n]) => n).join(', ')}); give one checkpoint's files`, { file });
    }
    const names = this.entries.map(([n]) => n);
    const shown = names.length > 8 ? `${names.slice(0, 8).join(', ')}, ...` : names.join(', ');
    throw new LayaError('invalid_checkpoint', `${file} is not among the given files (${shown || 'none'})`, { file });
  }
}

function namedBlobs(files: FilesSource['files']): Array<[string, Blob]> {
  const out: Array<[string, Blob]> = [];
  if (files instanceof Map) {
    for (const [name, blob] of files) out.push([normalize(name), checkedBlob(blob, name)]);
    return out;
  }
  const iterable = files as Partial<Iterable<File>> & Partial<ArrayLike<File>>;
  if (typeof iterable[Symbol.iterator] === 'function' || typeof iterable.length === 'number') {
    for (const f of Array.from(files as ArrayLike<File>)) {
      const blob = checkedBlob(f, String(out.length));
      const relative = (f as File & { webkitRelativePath?: string }).webkitRelativePath;
      const name = relative ? relative : (f as File).name;
      if (typeof name !== 'string' || name === '') {
        throw new LayaError('invalid_request', `load: files[${out.length}] has no name; pass a map from path to Blob instead`);
      }
      out.push([normalize(name), blob]);
    }
    return out;
  }
  for (const [name, blob] of Object.entries(files as Record<string, Blob>)) out.push([normalize(name), checkedBlob(blob, name)]);
  return out;
}

function checkedBlob(value: unknown, name: string): Blob {
  if (typeof Blob !== 'undefined' && value instanceof Blob) return value;
  throw new LayaError('invalid_request', `load: files entry ${JSON.stringify(name)} is not a Blob or File`);
}

function normalize(name: string): string {
  return name.replace(/\\/g, '/').replace(/^\.?\/+/, '');
}
