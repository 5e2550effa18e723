export type { ChatRead } from './chat.js';
export { readChatTranscript } from './chat.js';
export { type EvalOptions, runEval, SHIPPED_CONFIGS } from './command.js';
export { INPUT_FORMATS, type InputFormat } from './inputs.js';
export type { StopThresholds, SweepPoint, SweepReport } from './sweep.js';
export type {
  Detector,
  DetectorExamples,
  DetectorFigures,
  EvalReport,
  Example,
  GroupFigures,
  Label,
  LabelClass,
  Moment,
  RunOutcome,
  Share,
  Tally,
} from './types.js';
