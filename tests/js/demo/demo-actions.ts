// Test helper: what a visitor does on the demo page (pick a source and a backend, load, ask), in
// any engine (through the seam's page-dom actions), with the page's own error box turned into a
// thrown Error that quotes it.
import type { EnginePage } from '../helpers/browsers/engines.mjs';
import { check, click, countOf, fill, isVisible, selectOption, textOf, waitForSelector } from '../helpers/browsers/page-dom.mjs';

export type DemoSource = 'default' | 'hub' | 'files';
export type DemoBackend = 'wasm' | 'webgpu' | 'auto';

/** Picks the source (a Hub-style repo where given) and the backend, clicks Load, waits for the model. */
export async function loadIn(page: EnginePage, source: DemoSource, hub?: { repo: string; hubUrl: string },
                             backend: DemoBackend = 'wasm', timeout = 60000): Promise<void> {
  await check(page, `input[name=source][value=${source}]`);
  if (hub !== undefined) {
    await fill(page, '#hub-repo', hub.repo);
    await fill(page, '#hub-revision', 'main');
    await fill(page, '#hub-url', hub.hubUrl);
  }
  await selectOption(page, '[data-testid=backend]', backend);
  await click(page, '[data-testid=load]');
  try {
    await waitForSelector(page, 'body[data-loaded=true], #model-info [data-testid=error]', timeout);
  } catch (error) {
    // Where the load stood says which step hung.
    throw new Error(`${(error as Error).message}; the page's progress said: ${JSON.stringify(await textOf(page, '#progress-text'))}`);
  }
  if (await countOf(page, '#model-info [data-testid=error]') > 0) {
    throw new Error(`load (backend ${backend}) failed: ${await textOf(page, '#model-info')}`);
  }
}

/** Clicks `button` and returns the response JSON drawn into `out`; throws with the page's error text. */
export async function ask(page: EnginePage, button = 'ask', out = 'answers', timeout = 60000): Promise<string> {
  await page.evaluate((o) => { document.querySelector(`[data-testid=${o}]`)!.innerHTML = ''; }, out);
  await click(page, `[data-testid=${button}]`);
  const json = `[data-testid=${out}] [data-testid=response-json]`;
  const error = `[data-testid=${out}] [data-testid=error]`;
  await waitForSelector(page, `${json}, ${error}`, timeout);
  if (await countOf(page, error) > 0) throw new Error(`${button} failed: ${await textOf(page, error)}`);
  return (await textOf(page, json)) ?? '';
}

/** Runs the raw forward box on `inputs` (fixture format) and returns its parsed output. */
export async function forwardIn<T>(page: EnginePage, inputs: unknown, timeout = 60000): Promise<T> {
  if (!await isVisible(page, '[data-testid=forward-in]')) await click(page, '#advanced summary');
  await page.evaluate(() => { delete (document.querySelector('[data-testid=forward-out]') as HTMLElement).dataset['done']; });
  await fill(page, '[data-testid=forward-in]', JSON.stringify(inputs));
  await click(page, '[data-testid=forward]');
  const out = '[data-testid=forward-out]';
  await waitForSelector(page, `${out}[data-done=true], ${out} [data-testid=error]`, timeout);
  if (await countOf(page, `${out} [data-testid=error]`) > 0) throw new Error(`forward failed: ${await textOf(page, out)}`);
  return JSON.parse((await textOf(page, out)) ?? '') as T;
}
