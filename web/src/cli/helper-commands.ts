// The CLI's commands for upstream's helpers built on predict: predict-long (windows over a long
// state), predict-tournament (knockout rounds for large choices) and decide (a JSON schema
// answered as typed values). Each prints the engine's JSON text, as predict does.
import type { LayaModel } from '../model.js';
import type { PredictOptions, StateInput } from '../request.js';
import { positiveInteger, UsageError, type CommandSpec } from './args.js';

const kPredictFlags = ['shape', 'lang', 'lang-temperatures'];

export const kHelperCommands: Record<string, CommandSpec> = {
  'predict-long': { required: ['model', 'questions'], optional: ['state', 'state-json', 'window', 'stride', ...kPredictFlags] },
  'predict-tournament': {
    required: ['model', 'questions'],
    optional: ['state', 'state-json', 'group-size', 'min-confidence', 'max-len', 'head-max-len', ...kPredictFlags],
  },
  decide: { required: ['model'], optional: ['state', 'state-json', 'schema', 'questions', 'min-confidence', ...kPredictFlags] },
};

export const kHelperUsage = `  predict-long --model <dir> (--state ... | --state-json ...) --questions <json|@file>
          [--window N] [--stride N] [--shape ...] [--lang L] [--lang-temperatures ...]
      Upstream's predict_long: a state longer than one sequence read in windows of N tokens every
      --stride tokens; per question the most confident window's answer, with "window".
  predict-tournament --model <dir> (--state ... | --state-json ...) --questions <json|@file>
          [--group-size N] [the predict options above]
      Upstream's predict_tournament: choices with more than N labels (default 16) answered in
      knockout rounds; the answer has "tournament" after "usage".
  decide --model <dir> (--state ... | --state-json ...) (--schema <json|@file> | --questions <json|@file>)
          [--return-details] [--min-confidence ...] [--shape ...] [--lang L]
      Upstream's decide: a JSON schema's properties asked as questions, answered as typed values
      (--return-details: upstream's DecisionResult).
`;

export interface HelperCall {
  command: string;
  state: StateInput;
  /** The questions' JSON text, where given. */
  questions: string | undefined;
  /** The schema's JSON text, where given. */
  schema: string | undefined;
  predictOptions: PredictOptions;
  flag(name: string): string | undefined;
}

/** Runs one helper command on a loaded model; the text to print. */
export async function runHelperCommand(model: LayaModel, call: HelperCall): Promise<string> {
  const { state, predictOptions, flag } = call;
  const integerFlag = (name: string): number | undefined => {
    const value = flag(name);
    return value === undefined ? undefined : positiveInteger(value, name);
  };
  switch (call.command) {
    case 'predict-long': {
      const { minConfidence: _g, maxLen: _m, headMaxLen: _h, ...longOptions } = predictOptions;
      const window = integerFlag('window');
      const stride = integerFlag('stride');
      return model.predictLongJson(state, { json: call.questions as string }, {
        ...longOptions, ...(window === undefined ? {} : { window }), ...(stride === undefined ? {} : { stride }),
      });
    }
    case 'predict-tournament': {
      const groupSize = integerFlag('group-size');
      return model.predictTournamentJson(state, { json: call.questions as string }, {
        ...predictOptions, ...(groupSize === undefined ? {} : { groupSize }),
      });
    }
    case 'decide': {
      if ((call.schema === undefined) === (call.questions === undefined)) {
        throw new UsageError('decide: give exactly one of --schema and --questions');
      }
      const target = call.schema !== undefined ? { schema: { json: call.schema } } : { questions: { json: call.questions as string } };
      return model.decideJson(state, target, { ...predictOptions, returnDetails: flag('return-details') !== undefined });
    }
    default:
      throw new UsageError(`unknown command "${call.command}"`);
  }
}
