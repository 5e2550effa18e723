export type { EvalOptions, EvalReport } from './eval/index.js';
export { runEval } from './eval/index.js';
export { main } from './main.js';
export { OtlpInputError, parseOtlpTrace } from './otlp-input.js';
export { parseReplayText, Replayer } from './replay.js';
export { runReplay } from './replay-command.js';
export type {
  OtlpParseResult,
  ReplayCall,
  ReplayError,
  ReplayLine,
  ReplayOptions,
  ReplayRecord,
} from './types.js';
