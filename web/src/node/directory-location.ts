// A checkpoint in a local directory (Node): <directory>/<file>, read with fs straight into wasm
// memory.
import { open, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { LayaError, describeError } from '../errors.js';
import type { CheckpointFileName, CheckpointLocation, OpenOptions, OpenedFile } from '../sources/checkpoint-source.js';
import { FileHandleReader } from './file-handle-reader.js';

export class DirectoryLocation implements CheckpointLocation {
  readonly description: string;
  readonly directory: string;

  constructor(directory: string) {
    this.directory = resolve(directory);
    this.description = this.directory;
  }

  async open(file: CheckpointFileName, options: OpenOptions): Promise<OpenedFile> {
    const path = join(this.directory, ...file.split('/'));
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        throw new LayaError('invalid_checkpoint', `${file} not found in ${this.directory}`, { file });
      }
      throw new LayaError('invalid_checkpoint', `${file}: cannot open ${path}: ${describeError(error)}`, { file, cause: error });
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new LayaError('invalid_checkpoint', `${file}: ${path} is not a regular file`, { file });
      return {
        file,
        location: path,
        size: stat.size,
        reader: new FileHandleReader(handle, { file, path, size: stat.size, signal: options.signal, onBytes: options.onBytes }),
      };
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }
}
