// Turns bytes arriving per file into LoadProgressEvents: per file and overall, loaded never goes
// down and reaches the total. The overall event starts once every file's size is known (a file
// whose size is unknown until read, e.g. compressed JSON, counts from when it is finished).
import type { LoadProgressEvent } from './options.js';

interface FileProgress {
  loaded: number;
  size: number | undefined;
  fromStore: boolean;
}

export class ProgressTracker {
  private readonly files = new Map<string, FileProgress>();

  constructor(private readonly emit: (event: LoadProgressEvent) => void, files: readonly string[]) {
    for (const f of files) this.files.set(f, { loaded: 0, size: undefined, fromStore: false });
  }

  /** The size of a file, once known (before any byte of it arrives). */
  setSize(file: string, size: number | undefined): void {
    this.entry(file).size = size;
  }

  /** The file is read from the store (options.cache), not downloaded: its events say so. */
  setFromStore(file: string): void {
    this.entry(file).fromStore = true;
  }

  add(file: string, bytes: number): void {
    const entry = this.entry(file);
    entry.loaded += bytes;
    if (entry.size !== undefined) {
      this.send(downloadEvent(file, entry, Math.max(entry.size, entry.loaded)));
      this.sendTotal();
    }
  }

  /** The file was read completely: its size is what arrived. */
  finish(file: string): void {
    const entry = this.entry(file);
    const wasKnown = entry.size === entry.loaded;
    entry.size = entry.loaded;
    if (!wasKnown || entry.loaded === 0) {
      this.send(downloadEvent(file, entry, entry.size));
      this.sendTotal();
    }
  }

  ready(): void {
    this.send({ type: 'ready' });
  }

  private sendTotal(): void {
    let loaded = 0;
    let total = 0;
    for (const entry of this.files.values()) {
      if (entry.size === undefined) return;
      loaded += entry.loaded;
      total += Math.max(entry.size, entry.loaded);
    }
    this.send({ type: 'total', loaded, total });
  }

  // A callback that throws fails the load (which then frees what it allocated).
  private send(event: LoadProgressEvent): void {
    this.emit(event);
  }

  private entry(file: string): FileProgress {
    const entry = this.files.get(file);
    if (entry === undefined) throw new Error(`progress: unknown file ${file}`);
    return entry;
  }
}

function downloadEvent(file: string, entry: FileProgress, total: number): LoadProgressEvent {
  const event = { type: 'download' as const, file, loaded: entry.loaded, total };
  return entry.fromStore ? { ...event, fromStore: true } : event;
}
