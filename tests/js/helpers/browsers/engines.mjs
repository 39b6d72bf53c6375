// The browser engines the browser tests run in: the seam. Each engine launches a session
// (BrowserSession) that opens pages (EnginePage) with one small surface: evaluate a function in the
// page, navigate, reload, screenshot, close. Tests and scripts (scripts/demo-check.mjs) see only
// this; the drivers behind it differ per engine (playwright-core for Chromium, puppeteer-core over
// WebDriver BiDi for stock Firefox, classic WebDriver for WebKitGTK). Types: engines.d.mts.
//
// Plain ES modules with a declaration file, so Jest's TypeScript tests and the .mjs scripts import
// the same code with no build step between them (a script importing compiled TypeScript would need
// `npm run build:ts` of test helpers first; a .ts seam would need a loader in the scripts).
import { chromiumEngine } from './chromium.mjs';
import { firefoxEngine } from './firefox.mjs';
import { webkitEngine } from './webkit.mjs';

export const kEngines = [chromiumEngine, firefoxEngine, webkitEngine];

export const kEngineNames = kEngines.map((engine) => engine.name);

/** The engine called `name` (chromium, firefox, webkit); throws naming the choices otherwise. */
export function engineNamed(name) {
  const engine = kEngines.find((e) => e.name === name);
  if (engine === undefined) throw new Error(`no browser engine "${name}": the engines are ${kEngineNames.join(', ')}`);
  return engine;
}

/**
 * The engines a test run uses: all three, unless LAYA_BROWSERS (e.g. "chromium,firefox") names
 * fewer for local work; `report` is told which engines that leaves out, so a narrowed run says so.
 */
export function selectedEngines(env = process.env, report = (line) => process.stderr.write(`${line}\n`)) {
  const asked = env.LAYA_BROWSERS?.trim();
  if (asked === undefined || asked === '') return kEngines;
  const engines = [...new Set(asked.split(',').map((name) => name.trim()).filter((name) => name !== ''))].map(engineNamed);
  const left = kEngines.filter((engine) => !engines.includes(engine)).map((engine) => engine.name);
  if (left.length > 0) report(`laya-wasm browser tests: LAYA_BROWSERS=${asked} runs ${engines.map((e) => e.name).join(', ')}; NOT run: ${left.join(', ')}`);
  return engines;
}
