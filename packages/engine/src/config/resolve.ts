import type {
  ConfigIssue,
  EngineOptions,
  LoadedConfig,
  LoopguardConfig,
  ResolvedConfig,
  ToolPolicy,
} from '../types.js';
import { checkConfig, setOwn } from './check.js';
import { defaultConfig } from './defaults.js';
import { configFromEnv } from './env.js';
import { findConfigFile, readConfigFile } from './file.js';

function mergePolicy(base: ToolPolicy | undefined, layer: ToolPolicy): ToolPolicy {
  if (!base) return layer;
  return {
    ...base,
    ...layer,
    warnAfter: { ...base.warnAfter, ...layer.warnAfter },
    hardStopAfter: { ...base.hardStopAfter, ...layer.hardStopAfter },
  };
}

function thresholdsOf(value: number[] | string | undefined): number[] | undefined {
  // Layers are validated before merging, so strings are already parsed lists here.
  return Array.isArray(value) ? value : undefined;
}

/** Merges one configuration layer over a resolved configuration. */
export function mergeConfig(
  base: ResolvedConfig,
  layer: LoopguardConfig,
  fixThresholds: boolean,
): ResolvedConfig {
  const tools = { ...base.tools };
  for (const [name, policy] of Object.entries(layer.tools ?? {})) {
    setOwn(tools, name, mergePolicy(Object.hasOwn(tools, name) ? tools[name] : undefined, policy));
  }
  const thresholds = thresholdsOf(layer.nudge?.thresholds);
  return {
    mode: layer.mode ?? base.mode,
    nudge: {
      thresholds: fixThresholds && thresholds ? thresholds : base.nudge.thresholds,
      fallbackThresholds: !fixThresholds && thresholds ? thresholds : base.nudge.fallbackThresholds,
      exclude: layer.nudge?.exclude ?? base.nudge.exclude,
    },
    guardrails: {
      warnings: layer.guardrails?.warnings ?? base.guardrails.warnings,
      hardStop: layer.guardrails?.hardStop ?? base.guardrails.hardStop,
      warnAfter: { ...base.guardrails.warnAfter, ...layer.guardrails?.warnAfter },
      hardStopAfter: { ...base.guardrails.hardStopAfter, ...layer.guardrails?.hardStopAfter },
      repetitionCount: layer.guardrails?.repetitionCount ?? base.guardrails.repetitionCount,
      answerExits: layer.guardrails?.answerExits ?? base.guardrails.answerExits,
    },
    tools,
    scopes: { ...base.scopes, ...layer.scopes },
  };
}

function objectLayer(options: EngineOptions): LoopguardConfig {
  const { mode, nudge, guardrails, tools, scopes } = options;
  const layer: LoopguardConfig = {};
  if (mode !== undefined) layer.mode = mode;
  if (nudge !== undefined) layer.nudge = nudge;
  if (guardrails !== undefined) layer.guardrails = guardrails;
  if (tools !== undefined) layer.tools = tools;
  if (scopes !== undefined) layer.scopes = scopes;
  return layer;
}

/**
 * Merges configuration in order of precedence: the object over the environment over the file
 * over the defaults. Invalid values are dropped (the lower layer's value stays) and reported.
 */
export function loadConfig(options: EngineOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const issues: ConfigIssue[] = [];
  let config = defaultConfig();
  const file =
    options.configFile === false
      ? undefined
      : (options.configFile ?? findConfigFile(options.cwd ?? process.cwd(), env));
  if (file !== undefined) {
    const fromFile = readConfigFile(file);
    issues.push(...fromFile.issues);
    config = mergeConfig(config, fromFile.config, false);
  }
  const fromEnv = configFromEnv(env, (message) =>
    issues.push({ path: 'environment', value: undefined, message }),
  );
  config = mergeConfig(config, fromEnv, false);
  const fromObject = checkConfig(objectLayer(options));
  issues.push(...fromObject.issues);
  config = mergeConfig(config, fromObject.config, true);
  return { config, file, issues };
}
