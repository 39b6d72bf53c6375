// ProgressTracker: loaded never goes down, totals start once every size is known, a file of
// unknown size (compressed JSON) is counted from when it is finished, and a stored file says so.
import type { LoadProgressEvent } from '../../web/src/options.js';
import { ProgressTracker } from '../../web/src/progress.js';

test('overall progress starts once every size is known and ends at the sum', () => {
  const events: LoadProgressEvent[] = [];
  const progress = new ProgressTracker((e) => events.push(e), ['a', 'b']);
  progress.setSize('a', 10);
  progress.setSize('b', undefined);
  progress.add('a', 4);
  progress.add('b', 7);   // unknown size: no event yet
  progress.add('b', 5);
  progress.finish('b');   // now 12 bytes
  progress.add('a', 6);
  progress.finish('a');
  progress.ready();
  expect(events).toEqual([
    { type: 'download', file: 'a', loaded: 4, total: 10 },
    { type: 'download', file: 'b', loaded: 12, total: 12 },
    { type: 'total', loaded: 16, total: 22 },
    { type: 'download', file: 'a', loaded: 10, total: 10 },
    { type: 'total', loaded: 22, total: 22 },
    { type: 'ready' },
  ]);
});

test('an empty file still reports that it is complete', () => {
  const events: LoadProgressEvent[] = [];
  const progress = new ProgressTracker((e) => events.push(e), ['a']);
  progress.setSize('a', 0);
  progress.finish('a');
  expect(events).toEqual([{ type: 'download', file: 'a', loaded: 0, total: 0 }, { type: 'total', loaded: 0, total: 0 }]);
});

test("a file read from the store says so in each of its events, and only that file's events do", () => {
  const events: LoadProgressEvent[] = [];
  const progress = new ProgressTracker((e) => events.push(e), ['a', 'b']);
  progress.setSize('a', 4);
  progress.setSize('b', 2);
  progress.setFromStore('a');
  progress.add('a', 4);
  progress.add('b', 2);
  expect(events).toEqual([
    { type: 'download', file: 'a', loaded: 4, total: 4, fromStore: true },
    { type: 'total', loaded: 4, total: 6 },
    { type: 'download', file: 'b', loaded: 2, total: 2 },
    { type: 'total', loaded: 6, total: 6 },
  ]);
});
