// Test helper: what a visitor does on the demo page (pick a source and a backend, load, ask), with
// the page's own error box turned into a thrown Error that quotes it.
import type { Page } from 'playwright-core';

export type DemoSource = 'default' | 'hub' | 'files';
export type DemoBackend = 'wasm' | 'webgpu' | 'auto';

/** Picks the source (a Hub-style repo where given) and the backend, clicks Load, waits for the model. */
export async function loadIn(page: Page, source: DemoSource, hub?: { repo: string; hubUrl: string },
                             backend: DemoBackend = 'wasm', timeout = 60000): Promise<void> {
  await page.check(`input[name=source][value=${source}]`);
  if (hub !== undefined) {
    await page.fill('#hub-repo', hub.repo);
    await page.fill('#hub-revision', 'main');
    await page.fill('#hub-url', hub.hubUrl);
  }
  await page.selectOption('[data-testid=backend]', backend);
  await page.click('[data-testid=load]');
  await page.waitForSelector('body[data-loaded=true], #model-info [data-testid=error]', { timeout });
  const error = await page.locator('#model-info [data-testid=error]').count();
  if (error > 0) throw new Error(`load (backend ${backend}) failed: ${await page.locator('#model-info').textContent()}`);
}

/** Clicks `button` and returns the response JSON drawn into `out`; throws with the page's error text. */
export async function ask(page: Page, button = 'ask', out = 'answers', timeout = 60000): Promise<string> {
  await page.evaluate((o) => { document.querySelector(`[data-testid=${o}]`)!.innerHTML = ''; }, out);
  await page.click(`[data-testid=${button}]`);
  const json = page.locator(`[data-testid=${out}] [data-testid=response-json]`);
  const error = page.locator(`[data-testid=${out}] [data-testid=error]`);
  await json.or(error).waitFor({ state: 'attached', timeout });
  if (await error.count() > 0) throw new Error(`${button} failed: ${await error.textContent()}`);
  return (await json.textContent()) ?? '';
}

/** Runs the raw forward box on `inputs` (fixture format) and returns its parsed output. */
export async function forwardIn<T>(page: Page, inputs: unknown, timeout = 60000): Promise<T> {
  if (!await page.locator('[data-testid=forward-in]').isVisible()) await page.click('#advanced summary');
  await page.evaluate(() => { delete (document.querySelector('[data-testid=forward-out]') as HTMLElement).dataset['done']; });
  await page.fill('[data-testid=forward-in]', JSON.stringify(inputs));
  await page.click('[data-testid=forward]');
  const out = page.locator('[data-testid=forward-out]');
  await page.waitForSelector('[data-testid=forward-out][data-done=true], [data-testid=forward-out] [data-testid=error]', { timeout });
  if (await out.locator('[data-testid=error]').count() > 0) throw new Error(`forward failed: ${await out.textContent()}`);
  return JSON.parse((await out.textContent()) ?? '') as T;
}
