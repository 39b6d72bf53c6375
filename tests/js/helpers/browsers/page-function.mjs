// How every engine runs a test's function in a page, the same way (EnginePage.evaluate): the
// function's source and its JSON argument become one expression that awaits the function and
// returns its result as a JSON string in which undefined, NaN, ±Infinity and -0 are tagged, so a
// result crosses Playwright, WebDriver BiDi and classic WebDriver alike and arrives as the page
// had it (classic WebDriver's own clone turns undefined into null and -0 into 0).

/** The in-page half: awaits fn(arg) and encodes its value (or the error it threw) as JSON text. */
async function runInPage(fn, arg) {
  const tag = (value) => {
    if (value === undefined) return { $laya: 'undefined' };
    if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0))) {
      return { $laya: Object.is(value, -0) ? '-0' : String(value) };
    }
    return value;
  };
  const encode = (value) => {
    const tagged = tag(value);
    if (tagged !== value || value === null || typeof value !== 'object') return tagged;
    if (Array.isArray(value)) return Array.from(value, encode);
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, encode(item)]));
  };
  try {
    return JSON.stringify({ value: encode(await fn(arg)) });
  } catch (error) {
    // A wasm trap carries its stack (the wasm function indices), the one lead to an engine's fault;
    // so does an internal error (a trap in the package worker arrives as one, its stack appended).
    const trap = typeof WebAssembly === 'object' && error instanceof WebAssembly.RuntimeError;
    const internal = error instanceof Error && error.code === 'internal';
    const described = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    if (!(trap || internal) || typeof error.stack !== 'string') return JSON.stringify({ error: described });
    const cause = error.cause instanceof Error && typeof error.cause.stack === 'string' ? `\n  caused by:\n${error.cause.stack}` : '';
    return JSON.stringify({ error: `${described}\n  in the page at:\n${error.stack}${cause}` });
  }
}

/** An expression that evaluates to a Promise of runInPage's JSON text. */
export function pageExpression(fn, arg) {
  if (typeof fn !== 'function') throw new TypeError('evaluate takes a function');
  return `(${runInPage.toString()})(${fn.toString()}, ${arg === undefined ? 'undefined' : JSON.stringify(arg)})`;
}

function decode(value) {
  if (Array.isArray(value)) return value.map(decode);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === '$laya') {
    return { undefined, '-0': -0, NaN, Infinity, '-Infinity': -Infinity }[value.$laya];
  }
  const out = {};
  for (const key of keys) out[key] = decode(value[key]);
  return out;
}

/** The value runInPage encoded; an error thrown in the page is thrown here, naming the engine. */
export function pageResult(engineName, text) {
  if (typeof text !== 'string') throw new Error(`${engineName}: the page returned ${String(text)}, not the evaluate result (did it navigate away?)`);
  const parsed = JSON.parse(text);
  if ('error' in parsed) throw new Error(`${engineName}: the page threw ${parsed.error}`);
  return decode(parsed.value);
}
