// The few W3C WebDriver (classic) commands the WebKit driver needs, over Node's fetch: new session,
// navigate, new / switch / close window, set window rect, execute async script, screenshot, delete
// session. Chosen over selenium-webdriver because these eight HTTP calls are the whole need: no
// dependency, nothing between the test and the protocol, and errors come back as WebDriver wrote them.

export class WebDriverError extends Error {}

export class WebDriverClient {
  /** `base`: the driver's URL, e.g. http://127.0.0.1:4444. */
  constructor(base) {
    this.base = base;
  }

  async call(method, path, body) {
    const response = await fetch(`${this.base}${path}`, {
      method, headers: { 'content-type': 'application/json; charset=utf-8' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const reply = await response.json();
    const value = reply?.value;
    if (!response.ok || (value !== null && typeof value === 'object' && 'error' in value)) {
      throw new WebDriverError(`WebDriver ${method} ${path}: ${value?.error ?? response.status}: ${value?.message ?? ''}`.trim());
    }
    return value;
  }

  /** Resolves once the driver answers GET /status, or rejects after `timeoutMs`. */
  async waitUntilReady(timeoutMs, exited) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (exited()) throw new WebDriverError(`the WebDriver server at ${this.base} exited before it listened`);
      try {
        return await this.call('GET', '/status');
      } catch (error) {
        if (Date.now() > deadline) throw new WebDriverError(`the WebDriver server at ${this.base} did not answer: ${error.message}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  /** POST /session; returns { id, capabilities }. */
  async newSession(capabilities) {
    const value = await this.call('POST', '/session', { capabilities: { alwaysMatch: capabilities } });
    return { id: value.sessionId, capabilities: value.capabilities };
  }
}

/** One session's commands. */
export class WebDriverSession {
  constructor(client, id) {
    this.client = client;
    this.id = id;
  }

  call(method, path, body) {
    return this.client.call(method, `/session/${this.id}${path}`, body);
  }

  setTimeouts(timeouts) { return this.call('POST', '/timeouts', timeouts); }
  navigate(url) { return this.call('POST', '/url', { url }); }
  refresh() { return this.call('POST', '/refresh', {}); }
  windowHandle() { return this.call('GET', '/window'); }
  async newWindow() { return (await this.call('POST', '/window/new', { type: 'window' })).handle; }
  switchToWindow(handle) { return this.call('POST', '/window', { handle }); }
  closeWindow() { return this.call('DELETE', '/window'); }
  setWindowRect(rect) { return this.call('POST', '/window/rect', rect); }
  /** `body` is a function body; its last argument is the callback that ends the script. */
  executeAsync(body, args) { return this.call('POST', '/execute/async', { script: body, args }); }
  /** The viewport as a PNG, base64. */
  screenshot() { return this.call('GET', '/screenshot'); }
  end() { return this.client.call('DELETE', `/session/${this.id}`); }
}
