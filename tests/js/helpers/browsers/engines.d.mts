// Types of the browser-engine seam (engines.mjs).

export type EngineName = 'chromium' | 'firefox' | 'webkit';

export interface Viewport {
  width: number;
  height: number;
}

/** A page open in one engine. */
export interface EnginePage {
  /**
   * Runs `fn(arg)` in the page and resolves to its (awaited) result. `fn` is sent as source text:
   * it must not close over anything of the test's; `arg` and the result cross as JSON (undefined,
   * NaN, ±Infinity and -0 preserved). An error thrown in the page rejects, naming the engine.
   */
  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<Awaited<R>>;
  goto(url: string): Promise<void>;
  reload(): Promise<void>;
  /** A PNG of the whole page. */
  screenshot(path: string): Promise<void>;
  close(): Promise<void>;
}

/** One launched browser of an engine; close() ends it and every process it started. */
export interface BrowserSession {
  readonly engine: BrowserEngine;
  /** What the running browser reports, e.g. "Firefox 153.8.0esr". */
  readonly version: string;
  /**
   * A new page at `url`: with storage of its own where the engine gives one, or, on a persistent
   * profile, the profile's (WebKit's then holds one page at a time).
   */
  open(url: string, viewport?: Viewport): Promise<EnginePage>;
  close(): Promise<void>;
}

export interface LaunchOptions {
  /** Chromium only: WebGPU on SwiftShader. Firefox and WebKitGTK have no WebGPU on Linux: they refuse. */
  webgpu?: boolean;
  /**
   * A persistent profile: the browser keeps its storage (Cache API, OPFS) in this folder, on disk,
   * across reloads and across launches on the same folder (created when missing; never removed
   * here). Chromium: a persistent user data dir; Firefox: the profile folder; WebKitGTK: MiniBrowser
   * without WebDriver (whose automation mode is always ephemeral), driven over its remote inspector.
   */
  profileDir?: string;
  /**
   * WebKit only (the others ignore it): turn on the storage features Safari 17+ enables and
   * WebKitGTK ships disabled: navigator.storage (estimate, persist) and the origin private file
   * system (webkit.mjs kSafariStorageFeatures).
   */
  safariStorage?: boolean;
}

export interface BrowserEngine {
  readonly name: EngineName;
  /** "Chromium", "Firefox", "WebKitGTK". */
  readonly label: string;
  /** The Debian package that installs it. */
  readonly package: string;
  /** The installed version, read without starting the browser, or "not installed". */
  installedVersion(): string;
  /** Throws, naming the Debian package to install, when the engine is missing. */
  launch(options?: LaunchOptions): Promise<BrowserSession>;
  /**
   * A fault of the engine's own in wasm it otherwise runs correctly, when it has a known one: how
   * a failure that is that fault reads, and what it is (engine-faults.ts, docs/engine-faults.md).
   */
  readonly knownWasmFault?: KnownWasmFault;
}

export interface KnownWasmFault {
  /** Matches the message of a failure that is the fault (a trap as the page or the worker reports it). */
  readonly pattern: RegExp;
  /** What it is, for the line a retried test prints. */
  readonly about: string;
}

export const kEngines: readonly BrowserEngine[];
export const kEngineNames: readonly EngineName[];
export function engineNamed(name: string): BrowserEngine;
export function selectedEngines(env?: Record<string, string | undefined>, report?: (line: string) => void): BrowserEngine[];
