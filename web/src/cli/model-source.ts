// What `--model` names, as the sources load() takes: a local directory; an http(s) URL of a folder
// that serves the checkpoint's files; or hf:owner/name[@revision] on the Hugging Face Hub, whose
// address comes from HF_ENDPOINT as in Hugging Face's own tools (default https://huggingface.co).
import type { CheckpointSource } from '../sources/checkpoint-source.js';
import { UsageError } from './args.js';

export type Environment = Readonly<Record<string, string | undefined>>;

const kHubName = /^hf:([A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*)(?:@([^\s@]+))?$/;

/** The load() source for a --model value. */
export function modelSource(value: string, env: Environment): CheckpointSource {
  if (value.startsWith('hf:')) {
    const match = kHubName.exec(value);
    if (match === null) throw new UsageError(`--model: "${value}" is not hf:owner/name[@revision]`);
    const [, repo, revision] = match as unknown as [string, string, string | undefined];
    const endpoint = env['HF_ENDPOINT'];
    return { repo, ...(revision !== undefined ? { revision } : {}), ...(endpoint ? { hubUrl: endpoint } : {}) };
  }
  if (/^https?:\/\//i.test(value)) return { url: value };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw new UsageError(`--model: "${value}" is neither a directory, an http(s) URL nor hf:owner/name[@revision]`);
  }
  return { directory: value };
}

/** Whether a source is fetched (and so cached, and shown with progress). */
export function isRemote(source: CheckpointSource): boolean {
  return !('directory' in source);
}
