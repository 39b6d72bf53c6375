// The public surface shared by the Node and browser builds. The entry points index.node.ts and
// index.browser.ts add load() / loadPipeline() bound to their runtime (package.json "exports").
export { LayaError, type LayaErrorCode } from './errors.js';
export type { EmbedOptions, ForwardOptions, LayaModel, LayaPipeline } from './model.js';
export type { LoadOptions, LoadProgressEvent, WasmOptions } from './options.js';
export type { SimdOption, SimdVariant } from './core/simd.js';
export type { LayaConfigSummary } from './config-summary.js';
export type {
  Answer, CallOptions, ChoiceAnswer, ForwardRequest, ForwardResult, JsonText, LayaResponse, MemoryReport, NoulAnswer, StepProfile,
  PredictOptions, PreparedRequest, Question, QuestionsInput, RecordedOutputs, ResponseShape, ScoreAnswer,
  StateInput, Usage,
} from './request.js';
export type {
  CheckpointSource, DirectorySource, FilesSource, HubSource, UrlSource,
} from './sources/checkpoint-source.js';
export { kCheckpointFiles } from './sources/checkpoint-source.js';
export {
  predictShortlist, predictShortlistJson,
  type ShortlistEntry, type ShortlistModel, type ShortlistOptions, type ShortlistResponse,
} from './shortlist.js';
export type { LayaCoreFactory, LayaCoreModule, LayaSessionHandle } from './core/laya-core.js';
