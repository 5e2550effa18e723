export { checkConfig } from './config/check.js';
export { DEFAULT_NUDGE_THRESHOLDS, defaultConfig } from './config/defaults.js';
export {
  CONFIG_FILE_NAMES,
  findConfigFile,
  parseConfigText,
  readConfigFile,
} from './config/file.js';
export { fromReferenceConfig, REFERENCE_ROOT_KEY } from './config/reference-compat.js';
export { loadConfig } from './config/resolve.js';
export { parseThresholds } from './config/thresholds.js';
export { createEngine } from './engine.js';
export { appendNotice, nudgeText } from './notice.js';
export { builtinKind } from './policies.js';
export { argsHash, canonicalJson, normalizeArgs, signatureOf } from './signature/index.js';
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
  NoticeDecision,
  ResolvedConfig,
  StopDecision,
  ThresholdParse,
  ToolKind,
  ToolPolicy,
} from './types.js';
