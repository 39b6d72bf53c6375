// The public surface shared by the Node and browser builds. The entry points index.node.ts and
// index.browser.ts add load() / loadPipeline() bound to their runtime (package.json "exports").
export { LayaError, type LayaErrorCode, type LayaErrorDetails } from './errors.js';
export type { EmbedOptions, ForwardOptions, LayaModel, LayaPipeline } from './model.js';
export { kDefaultBatchSize, type BatchOptions, type BatchProgress } from './batch.js';
export type {
  AnswerWindow, DecideOptions, DecideTarget, DecisionResult, LongOptions, TournamentEntry, TournamentOptions, TournamentResponse,
} from './helper-options.js';
export type { BackendOption, Compute, GpuKernelOptions, LoadOptions, LoadProgressEvent, WasmOptions } from './options.js';
export type { Backend } from './engine/model-engine.js';
export type { FetchFunction } from './sources/http-location.js';
export type { SimdOption, SimdVariant } from './core/simd.js';
export type { LayaConfigSummary } from './config-summary.js';
export type {
  Answer, CallOptions, ChoiceAnswer, GateFields, LangTemperatureOverride, ForwardRequest, ForwardResult, JsonText, LayaResponse, MemoryReport, NoulAnswer, StepProfile,
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
export { analyse, type Detection, type RoutableState } from './router/lang-detect.js';
export {
  englishFromCode, kDefaultCheckpoint, matchTypedDecisionsWorkflow, route,
  type LangHint, type RouteRequest, type RouterSettings, type Routing,
} from './router/route.js';
export { appendRouting, routingJson } from './router/routing-json.js';
export {
  canonicalName, kAliases, kBundledModels, kStandaloneModels, resolveName, type CheckpointName, type RepoSpec,
} from './router/registry.js';
export type {
  CreateRouterOptions, LayaRouter, RoutedBatchOptions, RoutedLongOptions, RoutedPredictOptions, RoutedRequest,
} from './router/create-router.js';
