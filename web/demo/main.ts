// The demo page: checkpoint picker with download progress, a question builder, answers drawn as
// probability bars, embed / shortlist, raw forward. It has no worker code of its own: the package
// loads and runs the model in its own Worker (load option `worker: true`), so the page stays
// responsive while a model downloads or thinks. The backend control picks where the forward
// passes run (load option `backend`: wasm on the CPU, WebGPU, or auto); the page shows which ran.
import { load, predictShortlistJson, type CheckpointSource, type LayaModel, type LoadOptions } from '../src/index.browser.js';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

/** Where the page loads a checkpoint from. */
type SourceSpec =
  | { kind: 'default'; url: string }
  | { kind: 'url'; url: string }
  | { kind: 'hub'; repo: string; revision: string; subfolder: string; hubUrl: string }
  | { kind: 'files'; files: File[] };

// ---- the model, living in the package's worker
let model: LayaModel | null = null;

function loadedModel(): LayaModel {
  if (model === null) throw Object.assign(new Error('load a checkpoint first'), { code: 'invalid_request' });
  return model;
}

/** Seconds a call took, awaited from the page (the forward pass itself runs in the worker). */
async function timed<T>(run: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const started = performance.now();
  const value = await run();
  return { value, seconds: (performance.now() - started) / 1000 };
}

function errorBox(target: HTMLElement, error: unknown): void {
  const e = error as { code?: string; message?: string };
  target.innerHTML = '';
  const p = document.createElement('p');
  p.className = 'error';
  p.dataset['testid'] = 'error';
  p.textContent = `${e.code ?? 'error'}: ${e.message ?? String(error)}`;
  target.append(p);
}

const el = (tag: string, text?: string, cls?: string): HTMLElement => {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls !== undefined) node.className = cls;
  return node;
};

// ---- environment: isolation decides which build could run
const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
document.body.dataset['isolated'] = String(isolated);
const hasWebGpu = 'gpu' in navigator;
// An isolated page may still lack SharedArrayBuffer (WebKitGTK): the load decides, and the model
// says how many threads it runs (model.threads, shown once loaded).
const sharedMemory = isolated && typeof SharedArrayBuffer === 'function';
$('env').textContent = `crossOriginIsolated: ${isolated ? 'yes' : 'no'} · build: ` +
  (sharedMemory ? 'threaded if threads help here (the thread count is shown once loaded)'
    : isolated ? 'single-threaded (this browser gives the page no SharedArrayBuffer)' : 'single-threaded (threads need COOP/COEP headers)') +
  ` · WebGPU: ${hasWebGpu ? 'navigator.gpu present' : 'not in this browser'}`;

type Backend = NonNullable<LoadOptions['backend']>;

/**
 * The adapter's name as this page's navigator.gpu reports it: the worker asks the same browser for
 * the same high-performance adapter, so this names the GPU the model runs on without a message to
 * the worker. Empty where there is none.
 */
async function adapterName(): Promise<string> {
  const gpu = (navigator as { gpu?: { requestAdapter(o: object): Promise<{ info?: Record<string, string> } | null> } }).gpu;
  const adapter = await gpu?.requestAdapter({ powerPreference: 'high-performance' }).catch(() => null);
  const info = adapter?.info ?? {};
  return [info['vendor'], info['architecture'], info['device'], info['description']].filter((p) => p).join(' ');
}

// ---- offline: the service worker keeps the page; the package keeps checkpoints in the Cache API
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('sw.js').then(() => navigator.serviceWorker.ready)
    .then(() => { document.body.dataset['offlineReady'] = 'true'; })
    .catch((error: unknown) => console.warn('service worker not registered; no offline visits:', error));
}

// ---- 1. checkpoint
const sourceKind = (): string => (document.querySelector('input[name=source]:checked') as HTMLInputElement).value;
for (const radio of document.querySelectorAll<HTMLInputElement>('input[name=source]')) {
  radio.addEventListener('change', () => {
    for (const form of document.querySelectorAll<HTMLElement>('.source-form')) form.hidden = form.dataset['source'] !== sourceKind();
  });
}

function sourceSpec(): SourceSpec {
  const value = (id: string): string => $<HTMLInputElement>(id).value.trim();
  switch (sourceKind()) {
    case 'hub':
      return { kind: 'hub', repo: value('hub-repo'), revision: value('hub-revision'), subfolder: value('hub-subfolder'), hubUrl: value('hub-url') };
    case 'url':
      return { kind: 'url', url: new URL(value('url'), document.baseURI).href };
    case 'files':
      return { kind: 'files', files: [...($<HTMLInputElement>('files').files ?? [])] };
    default:
      return { kind: 'default', url: new URL('default-checkpoint/', document.baseURI).href };
  }
}

const modelButtons = ['ask-button', 'embed', 'shortlist', 'forward'];

/**
 * Which module the load chose: the pthreads one on a cross-origin isolated page (SharedArrayBuffer
 * exists), the single-threaded SIMD one otherwise (the package decides; see LoadOptions.threads).
 */
function buildInfo(threads: number): { build: 'single-threaded' | 'threaded'; reason: string } {
  if (threads > 1) return { build: 'threaded', reason: `cross-origin isolated: the pthreads module on ${threads} threads` };
  return {
    build: 'single-threaded',
    reason: !isolated ? 'not cross-origin isolated (no COOP/COEP headers): the single-threaded module, 1 thread'
      : sharedMemory ? 'cross-origin isolated, but on 1 thread (see the warnings): the single-threaded module'
        : 'cross-origin isolated, but this browser gives the page no SharedArrayBuffer: the single-threaded module, 1 thread',
  };
}

function toSource(spec: SourceSpec): CheckpointSource {
  switch (spec.kind) {
    case 'default':
    case 'url':
      return { url: spec.url };
    case 'hub':
      return { repo: spec.repo, revision: spec.revision || 'main',
        ...(spec.subfolder ? { subfolder: spec.subfolder } : {}), ...(spec.hubUrl ? { hubUrl: spec.hubUrl } : {}) };
    case 'files':
      return { files: spec.files };
  }
}

function sourceText(spec: SourceSpec): string {
  if (spec.kind === 'hub') return `${spec.repo} @ ${spec.revision || 'main'}${spec.subfolder ? ` / ${spec.subfolder}` : ''}`;
  return spec.kind === 'files' ? 'files' : spec.url;
}

$('load').addEventListener('click', async () => {
  const progress = $<HTMLProgressElement>('progress');
  const text = $('progress-text');
  const info = $('model-info');
  let spec: SourceSpec;
  try {
    spec = sourceSpec();
  } catch (error) {
    errorBox(info, Object.assign(new Error(`the checkpoint location is not valid: ${(error as Error).message}`), { code: 'invalid_request' }));
    return;
  }
  for (const id of modelButtons) $<HTMLButtonElement>(id).disabled = true;
  $<HTMLButtonElement>('load').disabled = true;
  document.body.dataset['loaded'] = 'false';
  delete document.body.dataset['backend'];
  info.textContent = '';
  progress.hidden = false;
  progress.value = 0;
  text.textContent = 'starting…';
  const backend = $<HTMLSelectElement>('backend').value as Backend;
  // Load-time warnings, the 'auto' fallback's reason among them (it is not in model.warnings).
  const loadWarnings: string[] = [];
  try {
    model?.dispose();  // ends the previous model's worker
    model = null;
    const started = performance.now();
    // Whether the weights came from the page's store (the Cache API or OPFS, whichever this engine
    // uses), as the load's progress events say.
    let fromCache = false;
    const loaded = await load(toSource(spec), {
      worker: true,
      backend,
      cache: true,
      wasm: { moduleUrl: new URL('dist/wasm/laya-core.js', document.baseURI).href },
      onWarning: (message) => loadWarnings.push(message),  // shown below
      onProgress: (event) => {
        if (event.type === 'download' && event.file === 'model.safetensors' && event.fromStore === true) fromCache = true;
        if (event.type === 'total') {
          progress.value = event.total > 0 ? event.loaded / event.total : 0;
          text.textContent = `${(event.loaded / 1e6).toFixed(1)} of ${(event.total / 1e6).toFixed(1)} MB`;
          document.body.dataset['progress'] = `${event.loaded}/${event.total}`;
        } else if (event.type === 'ready') {
          progress.value = 1;
        }
      },
    });
    model = loaded;
    const seconds = (performance.now() - started) / 1000;
    const c = loaded.config;
    const build = buildInfo(loaded.threads);
    const description = spec.kind === 'files' ? `${spec.files.length} files from disk` : sourceText(spec);
    text.textContent = `loaded in ${seconds.toFixed(2)} s${fromCache ? ' (from the browser cache)' : ''}`;
    info.append(el('p', `${description} — ${c.encoder}: d ${c.hiddenSize}, ${c.encoderLayers} layers, ` +
      `vocabulary ${c.vocabSize}, weights ${(c.weightsFileBytes / 1e6).toFixed(1)} MB. Build: ${build.reason}.`));
    const ran = loaded.backend;
    const adapter = ran === 'webgpu' ? await adapterName() : '';
    const backendLine = el('p', ran === 'webgpu'
      ? `Backend: webgpu (asked: ${backend}) — forward passes on the GPU${adapter ? `, adapter "${adapter}"` : ''}; ` +
        'the wasm module tokenizes and turns logits into answers.'
      : `Backend: wasm (asked: ${backend}) — forward passes on the CPU in WebAssembly.`);
    backendLine.dataset['testid'] = 'backend-info';
    info.append(backendLine);
    if (spec.kind === 'default') {
      info.append(el('p', 'Random weights: the answers below are meaningless by design. They show the pipeline, not a judgement.', 'note'));
    }
    const shown = new Set([...loadWarnings, ...loaded.warnings]);
    for (const warning of shown) info.append(el('p', `warning: ${warning}`, 'warn'));
    for (const id of modelButtons) $<HTMLButtonElement>(id).disabled = false;
    document.body.dataset['loaded'] = 'true';
    // The store commits the download after the load (model.stored): say when a next visit finds it.
    document.body.dataset['stored'] = 'false';
    void loaded.stored.then(() => {
      if (model !== loaded) return;  // a newer load took its place
      const late = loadWarnings.filter((warning) => !shown.has(warning));
      for (const warning of late) info.append(el('p', `warning: ${warning}`, 'warn'));
      if (!fromCache && late.length === 0 && spec.kind !== 'files') text.textContent += ', kept in the browser for the next visit';
      document.body.dataset['stored'] = 'true';
    });
    document.body.dataset['build'] = build.build;
    document.body.dataset['backend'] = ran;
    document.body.dataset['adapter'] = adapter;
    document.body.dataset['fromCache'] = String(fromCache);
  } catch (error) {
    text.textContent = 'failed';
    errorBox(info, error);
  } finally {
    $<HTMLButtonElement>('load').disabled = false;
  }
});

// ---- 2. questions
interface QuestionDraft { id: string; type: 'choice' | 'score' | 'noul'; instructions: string; options: string }

function addQuestion(draft: QuestionDraft): void {
  const card = el('div', undefined, 'question');
  card.innerHTML = `<label>id <input class="qid" size="8"></label>
    <label>type <select class="qtype"><option>choice</option><option>score</option><option>noul</option></select></label>
    <button class="remove" title="remove">✕</button>
    <label class="block">instructions <input class="instructions"></label>
    <label class="block options-label"><span></span><textarea class="options" rows="4"></textarea></label>`;
  const q = (cls: string) => card.querySelector(`.${cls}`) as HTMLInputElement;
  q('qid').value = draft.id;
  q('qtype').value = draft.type;
  q('instructions').value = draft.instructions;
  q('options').value = draft.options;
  const relabel = (): void => {
    const type = q('qtype').value;
    (card.querySelector('.options-label span') as HTMLElement).textContent = type === 'choice'
      ? 'options, one per line ("label: description" or just "label")'
      : type === 'score' ? 'levels, lowest first, one per line' : 'optional labels: "false: …" and "true: …" lines';
  };
  q('qtype').addEventListener('change', relabel);
  relabel();
  (card.querySelector('.remove') as HTMLElement).addEventListener('click', () => card.remove());
  $('questions').append(card);
}

/** The questions as JSON text, in the order shown (ids stay strings; order kept by the text). */
function questionsJson(): string {
  const members: string[] = [];
  for (const card of document.querySelectorAll<HTMLElement>('.question')) {
    const q = (cls: string) => (card.querySelector(`.${cls}`) as HTMLInputElement).value;
    const lines = q('options').split('\n').map((l) => l.trim()).filter((l) => l !== '');
    const type = q('qtype');
    const question: Record<string, unknown> = { type, instructions: q('instructions') };
    if (type === 'choice') {
      const criteria: Record<string, string | null> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon < 0) criteria[line] = null;
        else criteria[line.slice(0, colon).trim()] = line.slice(colon + 1).trim() || null;
      }
      question['criteria'] = criteria;
    } else if (type === 'score') {
      question['criteria'] = lines;
    } else if (lines.length > 0) {
      const labels: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) labels[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
      }
      if (labels['false'] !== undefined && labels['true'] !== undefined) question['labels'] = labels;
    }
    members.push(`${JSON.stringify(q('qid'))}: ${JSON.stringify(question)}`);
  }
  return `{${members.join(', ')}}`;
}

addQuestion({ id: 'action', type: 'choice', instructions: 'What should support do next?',
  options: 'refund: give the money back\nresend: ship a new parcel\ninvestigate: ask the carrier\nwait' });
addQuestion({ id: 'urgency', type: 'score', instructions: 'How urgent is this?', options: 'not urgent\nsomewhat urgent\nvery urgent' });
addQuestion({ id: 'escalate', type: 'noul', instructions: 'Does this need a human agent?', options: '' });
$('add-question').addEventListener('click', () => addQuestion({ id: `q${document.querySelectorAll('.question').length + 1}`, type: 'choice', instructions: '', options: '' }));

interface Answer {
  type: string; choice?: string; score?: number; noul?: number; probabilities?: Record<string, number>;
  legend?: Record<string, unknown>; confidence: number; answer_confidence?: number; action?: { act_probability: number };
}
interface Response { model: string; answers: Record<string, Answer>; usage: Record<string, unknown>; shortlist?: Record<string, unknown> }

function barRow(label: string, p: number, top: boolean): HTMLElement {
  const row = el('div', undefined, `bar-row${top ? ' top' : ''}`);
  const bar = el('div', undefined, 'bar');
  const fill = el('div');
  fill.style.width = `${Math.max(0, Math.min(1, p)) * 100}%`;
  bar.append(fill);
  row.append(el('span', label), bar, el('span', p.toFixed(4)));
  return row;
}

function drawResponse(target: HTMLElement, json: string, seconds: number): void {
  const response = JSON.parse(json) as Response;
  target.innerHTML = '';
  for (const [qid, answer] of Object.entries(response.answers)) {
    const box = el('div', undefined, 'answer');
    box.dataset['qid'] = qid;
    const headline = answer.type === 'choice' ? `choice: ${answer.choice}`
      : answer.type === 'score' ? `score: ${answer.score}` : `noul: ${answer.noul}`;
    box.append(el('strong', `${qid} — ${headline}`));
    if (answer.probabilities !== undefined) {
      const best = Math.max(...Object.values(answer.probabilities));
      for (const [label, p] of Object.entries(answer.probabilities)) {
        const legend = answer.legend?.[label];
        box.append(barRow(legend !== undefined ? `${label}: ${String(legend)}` : label, p, p === best));
      }
    } else if (answer.noul !== undefined) {
      box.append(barRow('P(true)', answer.noul, answer.noul >= 0.5), barRow('P(false)', 1 - answer.noul, answer.noul < 0.5));
    }
    box.append(el('div', `confidence ${answer.confidence}` +
      (answer.answer_confidence !== undefined ? ` · answer confidence ${answer.answer_confidence}` : '') +
      (answer.action !== undefined ? ` · act probability ${answer.action.act_probability}` : ''), 'meta'));
    target.append(box);
  }
  const ran = model?.backend ?? 'wasm';
  target.append(el('div', `usage: ${JSON.stringify(response.usage)} · ${seconds.toFixed(3)} s (run in the package's worker, on ${ran})`, 'meta'));
  const raw = el('details');
  raw.append(el('summary', 'response JSON'));
  const pre = el('pre', json);
  pre.dataset['testid'] = 'response-json';
  raw.append(pre);
  target.append(raw);
}

/** The state and questions as the page shows them; JSON text is passed as written ({ json }). */
function stateRequest(): { state: string | { json: string }; questions: { json: string } } {
  const text = $<HTMLTextAreaElement>('state').value;
  return { state: $<HTMLInputElement>('state-json').checked ? { json: text } : text, questions: { json: questionsJson() } };
}

interface Embedded {
  dims: number;
  norms: number[];
  /** Cosine similarity of every text to the first. */
  similarityToFirst: number[];
  head: number[][];
  seconds: number;
}

function summarize({ value: vectors, seconds }: { value: Float32Array[]; seconds: number }): Embedded {
  const norm = (v: Float32Array): number => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  const first = vectors[0];
  const cosine = (v: Float32Array): number => {
    if (first === undefined) return NaN;
    let dot = 0;
    v.forEach((x, i) => { dot += x * (first[i] ?? 0); });
    return dot / (norm(v) * norm(first));
  };
  return {
    dims: first?.length ?? 0,
    norms: vectors.map(norm),
    similarityToFirst: vectors.map(cosine),
    head: vectors.map((v) => Array.from(v.subarray(0, 6))),
    seconds,
  };
}

$('ask-button').addEventListener('click', async () => {
  const out = $('answers');
  out.textContent = 'thinking…';
  try {
    const request = stateRequest();
    const { value: json, seconds } = await timed(() => loadedModel().predictJson(request.state, request.questions));
    drawResponse(out, json, seconds);
  } catch (error) {
    errorBox(out, error);
  }
});

// ---- 3. embed and shortlist
$('embed').addEventListener('click', async () => {
  const out = $('embed-out');
  const texts = $<HTMLTextAreaElement>('texts').value.split('\n').filter((t) => t.trim() !== '');
  out.textContent = 'embedding…';
  try {
    const e = summarize(await timed(() => loadedModel().embed(texts)));
    out.innerHTML = '';
    const table = el('table');
    table.innerHTML = '<tr><th>text</th><th>norm</th><th>cosine to the first</th><th>first values</th></tr>';
    texts.forEach((text, i) => {
      const row = el('tr');
      row.append(el('td', text), el('td', (e.norms[i] ?? NaN).toFixed(4)), el('td', (e.similarityToFirst[i] ?? NaN).toFixed(4)),
        el('td', (e.head[i] ?? []).map((x) => x.toFixed(3)).join(' ')));
      table.append(row);
    });
    out.append(el('p', `${texts.length} vectors of ${e.dims} dimensions (mean-pooled encoder output), ${e.seconds.toFixed(3)} s`, 'meta'), table);
  } catch (error) {
    errorBox(out, error);
  }
});

$('shortlist').addEventListener('click', async () => {
  const out = $('shortlist-out');
  out.textContent = 'thinking…';
  try {
    const k = Number($<HTMLInputElement>('k').value);
    const request = stateRequest();
    const { value: json, seconds } = await timed(() => predictShortlistJson(loadedModel(), request.state, request.questions, { k }));
    drawResponse(out, json, seconds);
    const shortlist = (JSON.parse(json) as Response).shortlist ?? {};
    for (const [qid, entry] of Object.entries(shortlist)) out.prepend(el('div', `${qid} shortlist: ${JSON.stringify(entry)}`, 'meta'));
  } catch (error) {
    errorBox(out, error);
  }
});

// ---- 4. raw forward
$('forward').addEventListener('click', async () => {
  const out = $('forward-out');
  out.textContent = 'running…';
  try {
    const json = await loadedModel().forwardJson({ json: $<HTMLTextAreaElement>('forward-in').value });
    out.textContent = json;
    out.dataset['done'] = 'true';
  } catch (error) {
    errorBox(out, error);
  }
});
