// `laya-wasm quantize --model <dir> --out <dir>`: writes the q8 checkpoint (docs/q8-format.md) of an
// F32 / F16 / BF16 one. The configs and tokenizer are copied; model.safetensors is read tensor by
// tensor with positional reads and written front to back, so memory holds one tensor (and its q8
// form), never the file. The plan of the q8 file and the rounding are the wasm module's
// (LayaQuantizer, cpp/laya/q8_checkpoint.h), the same code `load(..., { weights: 'q8' })` runs, so
// a converted file and an on-the-fly load hold the same bytes.
import { copyFile, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expectEmptyResult, parseSessionJson } from '../core/session-result.js';
import type { LayaQuantizerHandle } from '../core/laya-core.js';
import { LayaError, describeError } from '../errors.js';
import { nodeRuntime } from '../node/node-runtime.js';
import type { WasmOptions } from '../options.js';
import { kConfigFiles, kWeightsFile } from '../sources/checkpoint-source.js';
import { UsageError } from './args.js';

interface PlannedTensor {
  name: string;
  dtype: string;
  shape: number[];
  quantized: boolean;
  source: [number, number];
  values: [number, number];
  scales?: [number, number];
}

interface QuantizePlan {
  header: string;
  dataLength: number;
  tensors: PlannedTensor[];
}

export interface QuantizeSummary {
  sourceBytes: number;
  outBytes: number;
  parameters: number;
}

const kMaxHeaderLength = 100_000_000;

export async function runQuantize(model: string, out: string, wasm: WasmOptions,
                                  progress: (line: string) => void): Promise<QuantizeSummary> {
  if (resolve(model) === resolve(out)) throw new UsageError('quantize: --out must be another directory than --model');
  const source = join(model, kWeightsFile);
  const target = join(out, kWeightsFile);
  const partial = `${target}.partial`;
  const { core } = await nodeRuntime.createCore(wasm, 1);
  const quantizer: LayaQuantizerHandle = new core.LayaQuantizer();
  const input = await openOrThrow(source);
  let output: Awaited<ReturnType<typeof open>> | undefined;
  try {
    const size = (await input.stat()).size;
    const prefix = await readAt(input, 0, Math.min(8, size), source);
    if (size < 8) throw new LayaError('invalid_checkpoint', `${source}: ${size} bytes, too short for a safetensors file`);
    const headerLength = Number(new DataView(prefix.buffer, prefix.byteOffset, 8).getBigUint64(0, true));
    if (headerLength < 1 || headerLength > kMaxHeaderLength || 8 + headerLength > size) {
      throw new LayaError('invalid_checkpoint', `${source}: header length ${headerLength} does not fit the ${size}-byte file`);
    }
    const header = await readAt(input, 0, 8 + headerLength, source);
    const plan = parseSessionJson<QuantizePlan>(quantizer.plan(header, size), `${source} header`);
    const dataOffset = 8 + headerLength;

    await mkdir(join(out, 'encoder'), { recursive: true });
    await mkdir(join(out, 'tokenizer'), { recursive: true });
    for (const file of kConfigFiles) await copyFile(join(model, file), join(out, file));

    const headerBytes = new TextEncoder().encode(plan.header);
    const lengthBytes = new Uint8Array(8);
    new DataView(lengthBytes.buffer).setBigUint64(0, BigInt(headerBytes.byteLength), true);
    output = await open(partial, 'w');
    await output.write(lengthBytes);
    await output.write(headerBytes);
    const outDataOffset = 8 + headerBytes.byteLength;
    const sourceData = size - dataOffset;
    let position = 0;
    let read = 0;
    let parameters = 0;
    let reported = -1;
    for (const [index, t] of plan.tensors.entries()) {
      if (t.values[0] !== position) throw new LayaError('internal', `quantize: ${t.name} planned at ${t.values[0]}, not ${position}`);
      const bytes = await readAt(input, dataOffset + t.source[0], t.source[1] - t.source[0], source);
      parameters += t.shape.reduce((a, b) => a * b, 1);
      let written: Uint8Array = bytes;
      if (t.quantized) {
        const [rows = 0, cols = 0] = t.shape;
        expectEmptyResult(quantizer.quantize(t.name, t.dtype, rows, cols, bytes), `quantize ${t.name}`);
        written = quantizer.output().slice();  // a view of wasm memory: copied before the next await
        const expected = (t.values[1] - t.values[0]) + ((t.scales?.[1] ?? 0) - (t.scales?.[0] ?? 0));
        if (written.byteLength !== expected) {
          throw new LayaError('internal', `quantize: ${t.name} gave ${written.byteLength} bytes, planned ${expected}`);
        }
      }
      await output.write(written);
      position += written.byteLength;
      read += bytes.byteLength;
      const percent = sourceData > 0 ? Math.floor((100 * read) / sourceData) : 100;
      if (percent >= reported + 5 || index === plan.tensors.length - 1) {
        reported = percent;
        progress(`quantize: ${percent}% (${index + 1}/${plan.tensors.length} tensors, ` +
                 `${mb(read)} of ${mb(sourceData)} MB read, ${mb(outDataOffset + position)} MB written)`);
      }
    }
    if (position !== plan.dataLength) throw new LayaError('internal', `quantize: wrote ${position} data bytes, planned ${plan.dataLength}`);
    await output.close();
    output = undefined;
    await rename(partial, target);
    return { sourceBytes: size, outBytes: (await stat(target)).size, parameters };
  } catch (error) {
    await output?.close().catch(() => undefined);
    await rm(partial, { force: true }).catch(() => undefined);
    throw error;
  } finally {
    await input.close();
    quantizer.release();
    quantizer.delete();
    core.shutDownThreads();
  }
}

function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}

async function openOrThrow(path: string): Promise<Awaited<ReturnType<typeof open>>> {
  try {
    return await open(path, 'r');
  } catch (error) {
    throw new LayaError('invalid_request', `quantize: cannot open ${path}: ${describeError(error)}`);
  }
}

/** `length` bytes at `position`, with positional reads (the file is never read whole). */
async function readAt(file: Awaited<ReturnType<typeof open>>, position: number, length: number, path: string): Promise<Uint8Array> {
  const buffer = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await file.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) throw new LayaError('invalid_checkpoint', `${path}: ended at byte ${position + done}, expected ${position + length}`);
    done += bytesRead;
  }
  return buffer;
}
