// A plain summary of a loaded checkpoint's configs (laya-spec §1.2, §1.3) for callers: shapes, budgets
// and identity. The engine validates the configs (configure()); this only reads them, with the
// defaults upstream uses when a field is missing.
import { LayaError } from './errors.js';

export interface LayaConfigSummary {
  /** rl_agent_config.json "encoder": the encoder's Hub id. */
  encoder: string;
  /** rl_agent_config.json "model_name", when present. */
  modelName: string | undefined;
  /** encoder/config.json "model_type" (modernbert). */
  modelType: string;
  hiddenSize: number;
  encoderLayers: number;
  attentionHeads: number;
  intermediateSize: number;
  vocabSize: number;
  headLayers: number;
  /** Token budget per question (default 512). */
  maxLen: number;
  /** Budget of the question head and options (default 192). */
  headMaxLen: number;
  /** Act head outputs: len(act_costs) + 1. */
  actOutputs: number;
  /** model.safetensors size in bytes; 0 when only the pipeline (no weights) was loaded. */
  weightsFileBytes: number;
}

export function summarizeConfig(rlAgentConfig: string, encoderConfig: string, weightsFileBytes: number): LayaConfigSummary {
  const rl = parseObject(rlAgentConfig, 'rl_agent_config.json');
  const enc = parseObject(encoderConfig, 'encoder/config.json');
  const int = (o: Record<string, unknown>, key: string, file: string, fallback?: number): number => {
    const v = o[key] ?? fallback;
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      throw new LayaError('invalid_checkpoint', `${file}: "${key}" must be an integer, got ${JSON.stringify(v)}`, { file });
    }
    return v;
  };
  const actCosts = rl['act_costs'];
  return {
    encoder: String(rl['encoder']),
    modelName: typeof rl['model_name'] === 'string' ? rl['model_name'] : undefined,
    modelType: typeof enc['model_type'] === 'string' ? enc['model_type'] : 'modernbert',
    hiddenSize: int(enc, 'hidden_size', 'encoder/config.json'),
    encoderLayers: int(enc, 'num_hidden_layers', 'encoder/config.json'),
    attentionHeads: int(enc, 'num_attention_heads', 'encoder/config.json'),
    intermediateSize: int(enc, 'intermediate_size', 'encoder/config.json'),
    vocabSize: int(enc, 'vocab_size', 'encoder/config.json'),
    headLayers: int(rl, 'head_layers', 'rl_agent_config.json', 2),
    maxLen: int(rl, 'max_len', 'rl_agent_config.json', 512),
    headMaxLen: int(rl, 'head_max_len', 'rl_agent_config.json', 192),
    actOutputs: (typeof actCosts === 'object' && actCosts !== null ? Object.keys(actCosts).length : 0) + 1,
    weightsFileBytes,
  };
}

function parseObject(text: string, file: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LayaError('invalid_checkpoint', `${file}: not valid JSON (${(error as Error).message})`, { file });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new LayaError('invalid_checkpoint', `${file}: must hold a JSON object`, { file });
  }
  return value as Record<string, unknown>;
}
