// What a visitor does on a page (click, type, pick), as small functions run in the page through
// EnginePage.evaluate, so they behave the same in every engine. Each acts on the first element the
// selector matches, and waits for it (and, to act on it, for it to be enabled) up to `timeoutMs`,
// as Playwright's actions do. Typing sets the value and fires `input` then `change`, as a user's
// edit ends; clicking is element.click(). Types: page-dom.d.mts.

const kTimeout = 60000;

/** Waits in the page until `selector` matches (and, with `enabled`, the element is not disabled). */
async function elementReady({ selector, enabled, timeoutMs }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const element = document.querySelector(selector);
    if (element !== null && !(enabled && element.disabled === true)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function ready(page, selector, enabled, timeoutMs) {
  if (!await page.evaluate(elementReady, { selector, enabled, timeoutMs })) {
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${selector}${enabled ? ' to be enabled' : ''}`);
  }
}

/** Resolves once `selector` matches an element (a list "a, b" matches either). */
export async function waitForSelector(page, selector, timeoutMs = kTimeout) {
  await ready(page, selector, false, timeoutMs);
}

export async function click(page, selector, timeoutMs = kTimeout) {
  await ready(page, selector, true, timeoutMs);
  await page.evaluate((s) => { document.querySelector(s).click(); }, selector);
}

/** Types `value` into an input, textarea or select (replacing what was there). */
export async function fill(page, selector, value, timeoutMs = kTimeout) {
  await ready(page, selector, true, timeoutMs);
  await page.evaluate(({ s, v }) => {
    const element = document.querySelector(s);
    element.focus?.();
    element.value = v;
    element.dispatchEvent(new Event('input', { bubbles: true }));
    element.dispatchEvent(new Event('change', { bubbles: true }));
  }, { s: selector, v: value });
}

/** Picks the option whose value is `value` in a select. */
export const selectOption = fill;

/** Ticks a checkbox or radio button (a click, so its listeners run) unless it already is. */
export async function check(page, selector, timeoutMs = kTimeout) {
  await ready(page, selector, true, timeoutMs);
  await page.evaluate((s) => {
    const element = document.querySelector(s);
    if (!element.checked) element.click();
  }, selector);
}

/** The first match's textContent, or null when nothing matches. */
export function textOf(page, selector) {
  return page.evaluate((s) => document.querySelector(s)?.textContent ?? null, selector);
}

/** Every match's textContent. */
export function textsOf(page, selector) {
  return page.evaluate((s) => Array.from(document.querySelectorAll(s), (e) => e.textContent ?? ''), selector);
}

export function countOf(page, selector) {
  return page.evaluate((s) => document.querySelectorAll(s).length, selector);
}

/** The first match's attribute `name`, or null. */
export function attributeOf(page, selector, name) {
  return page.evaluate(({ s, n }) => document.querySelector(s)?.getAttribute(n) ?? null, { s: selector, n: name });
}

/** The first match's value (an input, textarea or select). */
export function valueOf(page, selector) {
  return page.evaluate((s) => document.querySelector(s)?.value ?? null, selector);
}

/** Whether the first match is rendered (has a box): false inside a closed <details>. */
export function isVisible(page, selector) {
  return page.evaluate((s) => {
    const element = document.querySelector(s);
    return element !== null && element.getClientRects().length > 0;
  }, selector);
}

/**
 * Puts files into an <input type=file> as if the user picked them: each is fetched by the page
 * from `baseUrl` + name, made a File (its webkitRelativePath `folder/name`, as a picked folder
 * gives), and the input's FileList set through a DataTransfer, then `input` and `change` fire.
 * The engine-neutral stand-in for Playwright's setInputFiles, which only CDP offers.
 */
export async function pickFiles(page, selector, baseUrl, names, folder) {
  await ready(page, selector, true, kTimeout);
  await page.evaluate(async ({ s, base, names, folder }) => {
    const transfer = new DataTransfer();
    for (const name of names) {
      const response = await fetch(new URL(name, base));
      if (!response.ok) throw new Error(`pickFiles: ${name}: HTTP ${response.status}`);
      const file = new File([await response.blob()], name);
      Object.defineProperty(file, 'webkitRelativePath', { value: `${folder}/${name}` });
      transfer.items.add(file);
    }
    const input = document.querySelector(s);
    input.files = transfer.files;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    input.dispatchEvent(new Event('change', { bubbles: true }));
    return input.files.length;
  }, { s: selector, base: baseUrl, names, folder });
}
