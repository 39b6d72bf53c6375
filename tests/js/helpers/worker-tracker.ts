// In-page helper (served to test pages by page-server.ts): the page's own record of the Workers
// it starts and ends. trackWorkers() replaces globalThis.Worker with a subclass that notes each
// worker's URL when constructed and marks it ended when terminate() is called, which is how the
// package ends its workers (web/src/worker/worker-engine.ts). It is the engine-neutral stand-in for
// Playwright's page.workers() and 'worker' events, which only Chromium's protocol (CDP) offers.

export interface TrackedWorker {
  url: string;
  terminated: boolean;
}

const kKey = '__layaTrackedWorkers';

/** Starts tracking (once per page); returns the live record, oldest worker first. */
export function trackWorkers(): TrackedWorker[] {
  const scope = globalThis as unknown as Record<string, TrackedWorker[] | undefined>;
  const existing = scope[kKey];
  if (existing !== undefined) return existing;
  const started: TrackedWorker[] = [];
  scope[kKey] = started;
  const Native = globalThis.Worker;
  class TrackedWorkerClass extends Native {
    readonly #record: TrackedWorker;

    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      this.#record = { url: new URL(String(url), location.href).href, terminated: false };
      started.push(this.#record);
    }

    override terminate(): void {
      this.#record.terminated = true;
      super.terminate();
    }
  }
  globalThis.Worker = TrackedWorkerClass;
  return started;
}

/** A copy of the record: every worker started since trackWorkers(), and whether it was ended. */
export function trackedWorkers(): TrackedWorker[] {
  return trackWorkers().map((w) => ({ ...w }));
}
