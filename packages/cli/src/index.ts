export { main } from './main.js';
export type { OtlpParseResult, ReplayCall, ReplayLine } from './otlp-input.js';
export { OtlpInputError, parseOtlpTrace } from './otlp-input.js';
export type { ReplayError, ReplayRecord } from './replay.js';
export { parseReplayText, Replayer } from './replay.js';
export type { ReplayOptions } from './replay-command.js';
export { runReplay } from './replay-command.js';
