// options.worker in Node: refused with an invalid_request that says what to do instead
// (index.node.ts), before anything is read or allocated.
import { load, loadPipeline } from '../../../web/src/index.node.js';
import { kTinyCheckpoint } from '../helpers/fixtures.js';

test('load and loadPipeline with worker: true reject in Node, pointing at worker_threads', async () => {
  for (const [what, call] of [['load', load], ['loadPipeline', loadPipeline]] as const) {
    await expect(call({ directory: kTinyCheckpoint }, { worker: true })).rejects.toMatchObject({
      name: 'LayaError', code: 'invalid_request',
      message: `${what}: options.worker starts a Web Worker, which only browsers have; in Node call load() ` +
        'inside your own worker_threads Worker instead (the model runs on whichever thread loads it)',
    });
  }
});

test('a worker option that is not a boolean is refused by name', async () => {
  await expect(load({ directory: kTinyCheckpoint }, { worker: 'yes' as never })).rejects.toMatchObject({
    code: 'invalid_request', message: 'load: options.worker must be a boolean, got yes',
  });
});
