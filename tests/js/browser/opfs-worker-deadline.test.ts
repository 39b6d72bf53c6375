// A page's OPFS worker that never starts (its script never runs: seen in Firefox) must not hang a
// load: after kWorkerOpenMs its open fails, so the store's probe picks createWritable() instead.
// Run in Node with a Worker that takes messages and never answers.
import { OpfsStore, type DirectoryLike } from '../../../web/src/browser/store/opfs-store.js';
import { kWorkerOpenMs } from '../../../web/src/browser/store/opfs-files.js';

class WorkerThatNeverStarts {
  static started = 0;
  static terminated = 0;
  onmessage: unknown = null;
  onerror: unknown = null;
  constructor() {
    WorkerThatNeverStarts.started += 1;
  }
  postMessage(): void {}
  terminate(): void {
    WorkerThatNeverStarts.terminated += 1;
  }
}

const folder: DirectoryLike = {
  getFileHandle: async () => { throw new Error('unused'); },
  getDirectoryHandle: async () => folder,
  removeEntry: async () => undefined,
};

test('a worker that never answers is given up after the deadline: the store writes with createWritable(), and the worker is ended', async () => {
  const started = Date.now();
  const store = await OpfsStore.open(folder, 'x', { Worker: WorkerThatNeverStarts as unknown as new (url: string) => Worker });
  expect(await store.route()).toBe('writable');
  expect(Date.now() - started).toBeGreaterThanOrEqual(kWorkerOpenMs - 50);
  expect(WorkerThatNeverStarts.started).toBe(1);
  expect(WorkerThatNeverStarts.terminated).toBe(1);
}, kWorkerOpenMs * 3);
