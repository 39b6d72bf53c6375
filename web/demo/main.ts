// The demo page: checkpoint picker with download progress, a question builder, answers drawn as
// probability bars, embed / shortlist, raw forward. It only draws and posts messages: the engine
// lives in worker.ts, so the page stays responsive while a model downloads or thinks.
import type { LoadProgressEvent } from '../src/index.browser.js';
import type { Embedded, Loaded, Request, ResponseMessage, SourceSpec } from './protocol.js';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

// ---- the worker, one request at a time from the page's point of view
const engine = new Worker(new URL('worker.js', document.baseURI));
let nextId = 1;
const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; onProgress?: (e: LoadProgressEvent) => void }>();

engine.onmessage = (event: MessageEvent<ResponseMessage>) => {
  const message = event.data;
  const waiter = pending.get(message.id);
  if (waiter === undefined) return;
  if (message.type === 'progress') {
    waiter.onProgress?.(message.event);
    return;
  }
  pending.delete(message.id);
  if (message.ok) waiter.resolve(message.value);
  else waiter.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
};

function call<T>(request: Request, onProgress?: (e: LoadProgressEvent) => void): Promise<T> {
  const id = nextId++;
  return new Promise<T>((resolve, reject) => {
    pending.set(id, { resolve: resolve as (v: unknown) => void, reject, ...(onProgress ? { onProgress } : {}) });
    engine.postMessage({ id, ...request });
  });
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
$('env').textContent = `crossOriginIsolated: ${isolated ? 'yes' : 'no'} · build: ` +
  (isolated ? `threaded (up to ${Math.min(4, navigator.hardwareConcurrency || 1)} threads)` : 'single-threaded (threads need COOP/COEP headers)');

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
  info.textContent = '';
  progress.hidden = false;
  progress.value = 0;
  text.textContent = 'starting…';
  try {
    const loaded = await call<Loaded>({ type: 'load', source: spec, moduleUrl: new URL('dist/wasm/laya-core.js', document.baseURI).href },
      (event) => {
        if (event.type === 'total') {
          progress.value = event.total > 0 ? event.loaded / event.total : 0;
          text.textContent = `${(event.loaded / 1e6).toFixed(1)} of ${(event.total / 1e6).toFixed(1)} MB`;
          document.body.dataset['progress'] = `${event.loaded}/${event.total}`;
        } else if (event.type === 'ready') {
          progress.value = 1;
        }
      });
    text.textContent = `loaded in ${loaded.seconds.toFixed(2)} s${loaded.fromCache ? ' (from the browser cache)' : ''}`;
    info.append(el('p', `${loaded.description} — ${loaded.encoder}: d ${loaded.hiddenSize}, ${loaded.encoderLayers} layers, ` +
      `vocabulary ${loaded.vocabSize}, weights ${(loaded.weightsFileBytes / 1e6).toFixed(1)} MB. Build: ${loaded.build.reason}.`));
    if (spec.kind === 'default') {
      info.append(el('p', 'Random weights: the answers below are meaningless by design. They show the pipeline, not a judgement.', 'note'));
    }
    for (const warning of loaded.warnings) info.append(el('p', `warning: ${warning}`, 'warn'));
    for (const id of modelButtons) $<HTMLButtonElement>(id).disabled = false;
    document.body.dataset['loaded'] = 'true';
    document.body.dataset['build'] = loaded.build.build;
    document.body.dataset['fromCache'] = String(loaded.fromCache);
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
  target.append(el('div', `usage: ${JSON.stringify(response.usage)} · ${seconds.toFixed(3)} s in the worker`, 'meta'));
  const raw = el('details');
  raw.append(el('summary', 'response JSON'));
  const pre = el('pre', json);
  pre.dataset['testid'] = 'response-json';
  raw.append(pre);
  target.append(raw);
}

function stateRequest(): { state: string; stateIsJson: boolean; questions: string } {
  return { state: $<HTMLTextAreaElement>('state').value, stateIsJson: $<HTMLInputElement>('state-json').checked, questions: questionsJson() };
}

$('ask-button').addEventListener('click', async () => {
  const out = $('answers');
  out.textContent = 'thinking…';
  try {
    const { json, seconds } = await call<{ json: string; seconds: number }>({ type: 'predict', ...stateRequest() });
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
    const e = await call<Embedded>({ type: 'embed', texts });
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
    const { json, seconds } = await call<{ json: string; seconds: number }>({ type: 'shortlist', ...stateRequest(), k });
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
    const { json } = await call<{ json: string }>({ type: 'forward', inputs: $<HTMLTextAreaElement>('forward-in').value });
    out.textContent = json;
    out.dataset['done'] = 'true';
  } catch (error) {
    errorBox(out, error);
  }
});
