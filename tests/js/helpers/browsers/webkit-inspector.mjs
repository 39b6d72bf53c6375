// WebKit on a persistent profile: MiniBrowser WITHOUT --automation, driven over its remote
// inspector. Under WebKitWebDriver MiniBrowser must run with --automation, and in automation mode it
// always uses an ephemeral website-data manager: Cache API entries written in such a session are
// gone after a relaunch (and a 0.84 GB entry did not even survive a reload). Without --automation it
// keeps its data under the XDG directories (XDG_CACHE_HOME/webkitgtk-4.1/MiniBrowser/CacheStorage,
// XDG_DATA_HOME/...), so pointing those at the profile folder gives a profile that outlives the
// browser. There is no WebDriver then; WEBKIT_INSPECTOR_HTTP_SERVER makes MiniBrowser serve the
// Web Inspector protocol over a WebSocket (ws://host:port/socket/<connection>/<target>/WebPage),
// and the few commands the seam needs go through it: Runtime.evaluate + Runtime.awaitPromise
// (Runtime.evaluate's awaitPromise is ignored here), Page.navigate, Page.reload, Page.snapshotRect.
// The protocol's page target is a proxy: each command is wrapped in Target.sendMessageToTarget to
// the current sub-target ("page-N"), which changes when a navigation swaps the web process.
// One MiniBrowser holds one page (its window): two processes on one profile folder would fight.
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import WebSocket from 'ws';
import { spawnGroup, stopGroup } from './child-processes.mjs';
import { pageExpression, pageResult } from './page-function.mjs';
import { startXvfb } from './xvfb.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The page's WebSocket path from the inspector's target list (an HTML page), once it lists one. */
async function pageSocketUrl(base, exited, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited()) throw new Error('MiniBrowser exited before its remote inspector listed a page');
    try {
      const path = /\/socket\/\d+\/\d+\/WebPage/.exec(await (await fetch(`${base}/`)).text())?.[0];
      if (path !== undefined) return `${base.replace(/^http/, 'ws')}${path}`;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`MiniBrowser's remote inspector at ${base} listed no page in ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** The inspector connection: commands to the page's current target, answers matched by id. */
class InspectorConnection {
  constructor(socket) {
    this.socket = socket;
    this.target = undefined;
    this.nextId = 0;
    /** id -> { target, resolve, reject } */
    this.pending = new Map();
    this.targetWaiters = [];
    socket.on('message', (data) => this.receive(JSON.parse(String(data))));
    socket.on('close', () => this.failAll(new Error('WebKit: the remote inspector connection closed')));
  }

  static async open(url) {
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    return new InspectorConnection(socket);
  }

  receive(message) {
    if (message.method === 'Target.targetCreated' && message.params.targetInfo.type === 'page') {
      this.target = message.params.targetInfo.targetId;
      for (const wake of this.targetWaiters.splice(0)) wake();
    } else if (message.method === 'Target.targetDestroyed') {
      const gone = message.params.targetId;
      if (this.target === gone) this.target = undefined;
      for (const [id, call] of this.pending) {
        if (call.target === gone) {
          this.pending.delete(id);
          call.reject(new TargetGone('WebKit: the page target went away (a navigation)'));
        }
      }
    } else if (message.method === 'Target.dispatchMessageFromTarget') {
      const answer = JSON.parse(message.params.message);
      const call = this.pending.get(answer.id);
      if (call === undefined) return;
      this.pending.delete(answer.id);
      if (answer.error !== undefined) call.reject(new Error(`WebKit inspector: ${answer.error.message}`));
      else call.resolve(answer.result);
    }
  }

  failAll(error) {
    for (const call of this.pending.values()) call.reject(error);
    this.pending.clear();
  }

  async currentTarget(timeoutMs = 30000) {
    if (this.target !== undefined) return this.target;
    let timer;
    await new Promise((resolve) => {
      this.targetWaiters.push(resolve);
      timer = setTimeout(resolve, timeoutMs);
    });
    clearTimeout(timer);
    if (this.target === undefined) throw new Error(`WebKit: the inspector announced no page target in ${timeoutMs} ms`);
    return this.target;
  }

  /** `method(params)` on the page's current target. */
  async send(method, params = {}) {
    const target = await this.currentTarget();
    const id = ++this.nextId;
    const answer = new Promise((resolve, reject) => this.pending.set(id, { target, resolve, reject }));
    const message = JSON.stringify({ id, method, params });
    this.socket.send(JSON.stringify({ id: ++this.nextId, method: 'Target.sendMessageToTarget', params: { targetId: target, message } }));
    return answer;
  }

  /** The value of `expression`, awaited (wrapped in a promise, so it runs once), by value. */
  async evaluate(expression) {
    const { result, wasThrown } = await this.send('Runtime.evaluate', { expression: `Promise.resolve(${expression})`, returnByValue: false });
    if (wasThrown) throw new Error(`WebKit: the page threw ${result.description}`);
    const settled = await this.send('Runtime.awaitPromise', { promiseObjectId: result.objectId, returnByValue: true });
    if (settled.wasThrown) throw new Error(`WebKit: the page threw ${settled.result.description}`);
    return settled.result.value;
  }

  /** Ends the connection now (no closing handshake: the browser is about to be killed). */
  close() {
    this.socket.terminate();
  }
}

class TargetGone extends Error {}

class InspectedPage {
  constructor(session) {
    this.session = session;
  }

  get inspector() { return this.session.inspector; }

  async evaluate(fn, arg) { return pageResult('WebKit', await this.inspector.evaluate(pageExpression(fn, arg))); }

  /** Resolves once a document other than the one marked `mark` has loaded (retrying across target swaps). */
  async loaded(mark, timeoutMs = 300000) {
    const deadline = Date.now() + timeoutMs;
    const probe = `document.readyState === 'complete' && window.__layaSeamMark !== ${JSON.stringify(mark)}`;
    for (;;) {
      try {
        if (await this.inspector.evaluate(probe) === true) return;
      } catch (error) {
        // The old document went between the two halves of an evaluate: the navigation is under way.
        if (!(error instanceof TargetGone) && !/target|injected script/i.test(error.message)) throw error;
      }
      if (Date.now() > deadline) throw new Error(`WebKit: the page did not load in ${timeoutMs} ms`);
      await sleep(50);
    }
  }

  async mark() {
    const mark = `m${Date.now()}${Math.random()}`;
    await this.inspector.evaluate(`window.__layaSeamMark = ${JSON.stringify(mark)}`);
    return mark;
  }

  async goto(url) {
    const mark = await this.mark();
    await this.inspector.send('Page.navigate', { url });
    await this.loaded(mark);
  }

  async reload() {
    const mark = await this.mark();
    await this.inspector.send('Page.reload', {});
    await this.loaded(mark);
  }

  async screenshot(path) {
    const size = await this.evaluate(() => ({ width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight }));
    const { dataURL } = await this.inspector.send('Page.snapshotRect', { x: 0, y: 0, ...size, coordinateSystem: 'Page' });
    await writeFile(path, Buffer.from(dataURL.replace(/^data:image\/png;base64,/, ''), 'base64'));
  }

  /** The window stays (MiniBrowser's only one); the page goes, so the next open() starts afresh. */
  async close() {
    await this.goto('about:blank');
    this.session.page = undefined;
  }
}

/**
 * A BrowserSession on MiniBrowser with its data in `profileDir` (created when missing); `miniBrowser`
 * the binary, `args` more of its arguments, `freePort` a function giving a free loopback port, `engine` the seam's engine object.
 */
export async function launchPersistentWebKit({ engine, miniBrowser, profileDir, freePort, version, args = [] }) {
  const env = { ...process.env };
  for (const [name, folder] of [['XDG_DATA_HOME', 'data'], ['XDG_CACHE_HOME', 'cache'], ['XDG_CONFIG_HOME', 'config']]) {
    env[name] = join(profileDir, folder);
    mkdirSync(env[name], { recursive: true });
  }
  const xvfb = await startXvfb();
  let browser;
  let inspector;
  try {
    const port = await freePort();
    browser = spawnGroup(miniBrowser, ['--enable-developer-extras=true', ...args, 'about:blank'],
      { env: { ...env, DISPLAY: xvfb.display, WEBKIT_INSPECTOR_HTTP_SERVER: `127.0.0.1:${port}` }, stdio: ['ignore', 'ignore'] });
    inspector = await InspectorConnection.open(await pageSocketUrl(`http://127.0.0.1:${port}`, () => browser.exitCode !== null));
    const session = {
      engine,
      version: `WebKitGTK ${version} (persistent profile)`,
      inspector,
      page: undefined,
      async open(url) {
        if (session.page !== undefined) throw new Error('WebKit on a persistent profile holds one page at a time: close the open one first');
        session.page = new InspectedPage(session);
        await session.page.goto(url);
        return session.page;
      },
      async close() {
        inspector.close();
        await stopGroup(browser);
        await xvfb.stop();
      },
    };
    return session;
  } catch (error) {
    inspector?.close();
    if (browser !== undefined) await stopGroup(browser);
    await xvfb.stop();
    throw error;
  }
}
