// Jest's side of the engine seam: describeInEngines(title, body) runs `body`'s tests once per
// engine (all three, or those LAYA_BROWSERS names), each under a describe titled with the engine
// and its installed version, with one browser launched for the whole describe (a launch costs
// seconds; pages are cheap) and closed after it, also when a test fails. The running browser's own
// version string is printed when it starts. In an engine with a known wasm fault of its own, a test
// that fails with it runs once more (engine-faults.ts).
import { declaringTestsIn } from './engine-faults.js';
import type { BrowserEngine, BrowserSession, EnginePage, LaunchOptions, Viewport } from './engines.mjs';
import { selectedEngines } from './engines.mjs';

export type { BrowserEngine, BrowserSession, EnginePage } from './engines.mjs';

/** The engine a describe runs in, and its browser once beforeAll has launched it. */
export class EngineUnderTest {
  private launched: BrowserSession | undefined;

  constructor(readonly engine: BrowserEngine) {}

  get name(): BrowserEngine['name'] {
    return this.engine.name;
  }

  get session(): BrowserSession {
    if (this.launched === undefined) throw new Error(`${this.engine.label} did not launch (see the beforeAll error above)`);
    return this.launched;
  }

  open(url: string, viewport?: Viewport): Promise<EnginePage> {
    return this.session.open(url, viewport);
  }

  async launch(options: LaunchOptions): Promise<void> {
    this.launched = await this.engine.launch(options);
    process.stderr.write(`  browser engine: ${this.launched.version}\n`);
  }

  async close(): Promise<void> {
    await this.launched?.close();
    this.launched = undefined;
  }
}

const versions = new Map<string, string>();

/** "Firefox 153.8.0esr": the label and installed version a describe title carries. */
export function engineTitle(engine: BrowserEngine): string {
  let version = versions.get(engine.name);
  if (version === undefined) {
    try {
      version = engine.installedVersion();
    } catch (error) {
      version = `version unknown: ${(error as Error).message}`;
    }
    versions.set(engine.name, version);
  }
  return `${engine.label} ${version}`;
}

/** describe.each over the selected engines; `body` declares its tests against the engine given. */
export function describeInEngines(title: string, body: (browser: EngineUnderTest) => void, options: LaunchOptions = {}): void {
  const engines = selectedEngines();
  describe.each(engines.map((engine) => [engineTitle(engine), engine] as const))(`${title}, in %s`, (_title, engine) => {
    const browser = new EngineUnderTest(engine);
    beforeAll(() => browser.launch(options), 90000);
    afterAll(() => browser.close(), 30000);
    declaringTestsIn(engine, () => body(browser));
  });
}

/**
 * Polls `predicate(arg)` in the page (every 50 ms, in the page itself) until it is truthy; rejects
 * after `timeoutMs` naming `what`.
 */
export async function waitInPage<A>(page: EnginePage, what: string, predicate: (arg: A) => unknown, arg: A, timeoutMs = 60000): Promise<void> {
  const done = await page.evaluate(async ({ source, arg, timeoutMs }) => {
    const check = (0, eval)(`(${source})`) as (a: unknown) => unknown;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await check(arg)) return true;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return false;
  }, { source: predicate.toString(), arg, timeoutMs });
  if (!done) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
