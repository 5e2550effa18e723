import type { LoopguardConfig } from '../types.js';
import { digitString, modeWord, switchWord } from './check.js';

type Env = Record<string, string | undefined>;

function bool(value: string | undefined): boolean | undefined {
  return value === undefined || value === '' ? undefined : switchWord(value);
}

function positiveInt(value: string | undefined): number | undefined {
  const n = value === undefined ? undefined : digitString(value);
  return n !== undefined && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * Configuration from `LOOPGUARD_*` variables, except nudge thresholds, which the engine reads
 * at call time. Unparsable values are reported through `onInvalid` and ignored.
 */
export function configFromEnv(env: Env, onInvalid: (message: string) => void): LoopguardConfig {
  const config: LoopguardConfig = {};
  const guardrails: NonNullable<LoopguardConfig['guardrails']> = {};
  const read = <T>(
    name: string,
    parse: (v: string | undefined) => T | undefined,
  ): T | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const parsed = parse(raw);
    if (parsed === undefined) onInvalid(`${name}=${JSON.stringify(raw)} is not valid; ignored`);
    return parsed;
  };
  const mode = read('LOOPGUARD_MODE', (v) => (v === undefined ? undefined : modeWord(v)));
  if (mode !== undefined) config.mode = mode;
  const hardStop = read('LOOPGUARD_HARD_STOP', bool);
  if (hardStop !== undefined) guardrails.hardStop = hardStop;
  const warnings = read('LOOPGUARD_WARNINGS', bool);
  if (warnings !== undefined) guardrails.warnings = warnings;
  if (Object.keys(guardrails).length > 0) config.guardrails = guardrails;
  const max = read('LOOPGUARD_SCOPES_MAX', positiveInt);
  const idleMs = read('LOOPGUARD_SCOPES_IDLE_MS', positiveInt);
  if (max !== undefined || idleMs !== undefined) {
    config.scopes = {};
    if (max !== undefined) config.scopes.max = max;
    if (idleMs !== undefined) config.scopes.idleMs = idleMs;
  }
  return config;
}
