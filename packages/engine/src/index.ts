export {
  CONFIG_FILE_NAMES,
  checkConfig,
  DEFAULT_NUDGE_THRESHOLDS,
  defaultConfig,
  findConfigFile,
  fromReferenceConfig,
  loadConfig,
  parseConfigText,
  parseThresholds,
  REFERENCE_ROOT_KEY,
  readConfigFile,
} from './config/index.js';
export { createEngine } from './engine.js';
export { appendNotice, nudgeText } from './notice.js';
export { builtinKind } from './policies.js';
export {
  argsHash,
  canonicalJson,
  describeOpaque,
  normalizeArgs,
  signatureOf,
} from './signature/index.js';
export type {
  Action,
  AfterCallInput,
  AllowDecision,
  Axis,
  AxisThresholds,
  BeforeDecision,
  CallInput,
  ConfigCheck,
  ConfigIssue,
  Decision,
  Engine,
  EngineOptions,
  Finding,
  FindingAction,
  LoadedConfig,
  LoopguardConfig,
  Mode,
  NoticeDecision,
  RepetitionCount,
  ResolvedConfig,
  StopDecision,
  ThresholdParse,
  ToolKind,
  ToolPolicy,
} from './types.js';
