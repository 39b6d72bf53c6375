// A plain summary of a loaded checkpoint's configs (laya-spec §1.2, §1.3) for callers: shapes, budgets
// and identity. The engine parses and validates the configs (cpp/laya/config.h) and writes this
// summary from what it parsed (LayaSession.configSummary), so its defaults are the engine's.
import type { LayaSessionHandle } from './core/laya-core.js';
import { parseSessionJson } from './core/session-result.js';

/** A summary of a loaded checkpoint's configs (`model.config`), as the engine parsed them. */
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

/** The summary of the configs a session was configured with, plus the weights file's size. */
export function readConfigSummary(session: LayaSessionHandle, weightsFileBytes: number): LayaConfigSummary {
  const summary = parseSessionJson<Omit<LayaConfigSummary, 'weightsFileBytes'>>(session.configSummary(), 'configSummary');
  return { ...summary, weightsFileBytes };
}
