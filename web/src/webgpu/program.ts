// What the C++ engine hands a GPU backend (cpp/backend/program.h, read through the embind
// methods `planOutside()` and `outsideProgram()`): the checkpoint's tensors as they sit in the data
// section, and, per bucket, a graph lowered to backend-neutral steps over one arena laid out by the
// seed's planner. The C++ side owns the model (configs, checks, graphs, bucketing, planning); a GPU
// backend only encodes these steps as compute passes.
//
// Conventions shared by every step:
// - Arena offsets (`x`, `out`, `qkv`, ...) count f32 elements from the arena's start.
// - Rows: a value has one row per token, per sequence or per marker of the batch being run. A step
//   runs on the rows the batch really has (GpuBatch), never on the bucket's counts, which only size
//   the arena.
// - Weights are referred to by their index in GpuModel.weights; matrices are [n, k] row-major as the
//   file stores them (out = a · wᵀ), vectors are [width].

/** safetensors dtypes; I8 is a q8 matrix (docs/q8-format.md) with F32 scales [n, ceil(k / 64)]. */
export type GpuDtype = 'F32' | 'F16' | 'BF16' | 'I8';

export interface GpuWeight {
  /** The checkpoint tensor name, for messages. */
  name: string;
  dtype: GpuDtype;
  /** As stored: [n, k] for a matrix, [width] for a vector. */
  shape: number[];
  /** Where the tensor's bytes are, counted from the start of the data section. */
  byteOffset: number;
  byteLength: number;
  /** I8 only: the q8 scales tensor, also in the data section. */
  scales?: { byteOffset: number; byteLength: number };
}

export interface GpuModel {
  /** File byte i >= dataOffset is data-section byte i - dataOffset. */
  dataOffset: number;
  dataLength: number;
  /** Every tensor a graph reads, indexed by the steps' weight ids. */
  weights: GpuWeight[];
  /** Token ids must be below this; qtypes below typeCount (0: the graph reads none). */
  vocabSize: number;
  typeCount: number;
}

export type GpuRows = 'tokens' | 'seqs' | 'markers';
export type GpuEpilogue = 'none' | 'gelu' | 'relu' | 'accumulate';

/** One lowered op; the semantics are the scalar kernels' in cpp/kernels/*.cc. */
export type GpuStep =
  /** out[t] = table[ids[t]], token rows of `width`. */
  | { op: 'embed'; table: number; out: number; width: number }
  /** LayerNorm of each row (biased variance, eps inside the sqrt); b null: no bias. x may equal out. */
  | { op: 'layer_norm'; x: number; out: number; rows: GpuRows; width: number; w: number; b: number | null; eps: number }
  /** out = epilogue(a · wᵀ + b), a [rows, k], w [n, k], out [rows, n]; 'accumulate' adds to out. */
  | { op: 'gemm'; a: number; out: number; rows: GpuRows; k: number; n: number; w: number; b: number | null; epilogue: GpuEpilogue }
  /** RoPE in place on the q and k parts of token rows [q | k | v] (heads of 64), positions from each sequence's start. */
  | { op: 'rope'; qkv: number; heads: number; theta: number }
  /** Attention within each sequence over [q | k | v] rows, scale 1/8; window null: every key, else |i - j| <= window. */
  | { op: 'attention'; qkv: number; out: number; heads: number; window: number | null }
  /** out = gelu(x[:, :n]) * x[:, n:], token rows (x is 2n wide). */
  | { op: 'geglu'; x: number; out: number; rows: GpuRows; n: number }
  /** Adds table[qtypes[s]] to every token row of sequence s, in place. */
  | { op: 'add_type'; h: number; table: number; width: number }
  /** out[m] = h[token row of marker m]. */
  | { op: 'gather_markers'; h: number; out: number; width: number }
  /** Per sequence: its first token row, then the 4 act features of its markers' logits; out is width + 4 wide. */
  | { op: 'act_features'; h: number; logits: number; out: number; width: number }
  /** Per sequence, the mean of its token rows. */
  | { op: 'mean_pool'; h: number; out: number; width: number };

/** A graph lowered for one bucket. */
export interface GpuProgram {
  graph: 'decision' | 'embedding';
  bucket: { tokens: number; seqs: number; markers: number };
  /** The arena's length in f32 elements (the planner's Layout::len). */
  arenaFloats: number;
  steps: GpuStep[];
  /** Where each output lives: logits are marker rows 1 wide, act and pooled sequence rows. */
  outputs: {
    logits?: { offset: number; width: number };
    act?: { offset: number; width: number };
    pooled?: { offset: number; width: number };
  };
}

/** A packed batch, exactly as the CPU path packs it (cpp/engine/batch.h). */
export interface GpuBatch {
  /** Every token of every sequence, end to end. */
  ids: Int32Array;
  /** seqs + 1 offsets into ids. */
  seqStarts: Int32Array;
  /** Token index of each marker within its own sequence. */
  markers: Int32Array;
  /** seqs + 1 offsets into markers. */
  markerStarts: Int32Array;
  /** One per sequence. */
  qtypes: Int32Array;
}

/** A run's outputs, rows of the batch (not the bucket), row-major. */
export interface GpuOutputs {
  logits?: Float32Array;
  act?: Float32Array;
  pooled?: Float32Array;
}
