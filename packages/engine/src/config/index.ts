// Configuration: defaults, the environment, config files (native and reference shapes), their
// checks, and the merge of all of them that an engine runs on.
export { checkConfig } from './check.js';
export {
  DEFAULT_NUDGE_THRESHOLDS,
  defaultConfig,
  NEVER_NUDGED,
  NUDGE_THRESHOLD_ENV,
} from './defaults.js';
export {
  CONFIG_FILE_NAMES,
  findConfigFile,
  parseConfigText,
  readConfigFile,
} from './file.js';
export { fromReferenceConfig, REFERENCE_ROOT_KEY } from './reference-compat.js';
export { loadConfig } from './resolve.js';
export { MIN_NUDGE_THRESHOLD, parseThresholds } from './thresholds.js';
