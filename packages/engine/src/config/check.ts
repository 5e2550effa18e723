import type {
  AxisThresholds,
  ConfigCheck,
  ConfigIssue,
  LoopguardConfig,
  Mode,
  RepetitionCount,
  ToolKind,
  ToolPolicy,
} from '../types.js';
import { describe } from './describe.js';
import { parseThresholds } from './thresholds.js';

const AXIS_KEYS = [
  'repetition',
  'exactFailure',
  'sameToolFailure',
  'noProgress',
  'cycle',
  'poll',
  'sameError',
] as const;
const KINDS: readonly ToolKind[] = ['idempotent', 'mutating', 'poller', 'pager'];
const MODES: readonly Mode[] = ['enforce', 'shadow'];

/** A mode written as a word (any case, blanks around): `enforce` or `shadow`. */
export function modeWord(text: string): Mode | undefined {
  const key = text.trim().toLowerCase();
  return MODES.find((mode) => mode === key);
}

/** The problems found so far; the checkers below push onto it. */
export type Issues = ConfigIssue[];

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Sets `record[key]` as an own member: defined, not assigned, so that a tool named `__proto__`
 * is a member and not the record's prototype.
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function record(value: unknown, path: string, issues: Issues): Record<string, unknown> | undefined {
  if (isRecord(value)) return value;
  issues.push({ path, value, message: `${path} must be an object, got ${describe(value)}` });
  return undefined;
}

/** Adds an issue for each key of `obj` not in `known`. */
export function unknownKeys(
  obj: Record<string, unknown>,
  known: readonly string[],
  path: string,
  issues: Issues,
) {
  for (const key of Object.keys(obj)) {
    if (!known.includes(key)) {
      const where = path ? `${path}.${key}` : key;
      issues.push({ path: where, value: obj[key], message: `unknown key ${where}` });
    }
  }
}

const TRUE_WORDS = new Set(['true', 'yes', 'on', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'off', '0']);

/** A switch written as a word (any case, blanks around): true/yes/on/1 or false/no/off/0. */
export function switchWord(text: string): boolean | undefined {
  const key = text.trim().toLowerCase();
  if (TRUE_WORDS.has(key)) return true;
  if (FALSE_WORDS.has(key)) return false;
  return undefined;
}

/** The number a string of digits spells (blanks around allowed), else undefined. */
export function digitString(text: string): number | undefined {
  return /^\s*\d+\s*$/.test(text) ? Number(text) : undefined;
}

/** `value` if it is a positive safe integer, else undefined and an issue. */
export function positiveInt(value: unknown, path: string, issues: Issues): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  issues.push({
    path,
    value,
    message: `${path} must be a positive integer, got ${describe(value)}`,
  });
  return undefined;
}

/** `value` if it is a boolean, else undefined and an issue. */
export function boolean(value: unknown, path: string, issues: Issues): boolean | undefined {
  if (typeof value === 'boolean') return value;
  issues.push({ path, value, message: `${path} must be true or false, got ${describe(value)}` });
  return undefined;
}

function stringList(value: unknown, path: string, issues: Issues): string[] | undefined {
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  issues.push({
    path,
    value,
    message: `${path} must be a list of strings, got ${describe(value)}`,
  });
  return undefined;
}

function axisThresholds(value: unknown, path: string, issues: Issues): AxisThresholds | undefined {
  const obj = record(value, path, issues);
  if (!obj) return undefined;
  unknownKeys(obj, AXIS_KEYS, path, issues);
  const out: AxisThresholds = {};
  for (const key of AXIS_KEYS) {
    if (obj[key] === undefined) continue;
    const n = positiveInt(obj[key], `${path}.${key}`, issues);
    if (n !== undefined) out[key] = n;
  }
  return out;
}

function toolPolicy(value: unknown, path: string, issues: Issues): ToolPolicy | undefined {
  const obj = record(value, path, issues);
  if (!obj) return undefined;
  unknownKeys(
    obj,
    ['kind', 'ignoreArgs', 'failureTolerant', 'nudge', 'warnAfter', 'hardStopAfter'],
    path,
    issues,
  );
  const policy: ToolPolicy = {};
  if (obj.kind !== undefined) {
    if (KINDS.includes(obj.kind as ToolKind)) policy.kind = obj.kind as ToolKind;
    else
      issues.push({
        path: `${path}.kind`,
        value: obj.kind,
        message: `${path}.kind must be one of ${KINDS.join(', ')}, got ${describe(obj.kind)}`,
      });
  }
  const ignore =
    obj.ignoreArgs === undefined
      ? undefined
      : stringList(obj.ignoreArgs, `${path}.ignoreArgs`, issues);
  if (ignore) policy.ignoreArgs = ignore;
  for (const key of ['failureTolerant', 'nudge'] as const) {
    const b = obj[key] === undefined ? undefined : boolean(obj[key], `${path}.${key}`, issues);
    if (b !== undefined) policy[key] = b;
  }
  for (const key of ['warnAfter', 'hardStopAfter'] as const) {
    const t =
      obj[key] === undefined ? undefined : axisThresholds(obj[key], `${path}.${key}`, issues);
    if (t) policy[key] = t;
  }
  return policy;
}

function nudgeSection(value: unknown, issues: Issues): LoopguardConfig['nudge'] {
  const obj = record(value, 'nudge', issues);
  if (!obj) return undefined;
  unknownKeys(obj, ['thresholds', 'exclude'], 'nudge', issues);
  const out: NonNullable<LoopguardConfig['nudge']> = {};
  const raw = obj.thresholds;
  if (typeof raw === 'string' || Array.isArray(raw)) {
    const parsed = parseThresholds(raw);
    if (parsed.ok) out.thresholds = parsed.thresholds;
    else
      issues.push({
        path: 'nudge.thresholds',
        value: raw,
        message: `nudge.thresholds: ${parsed.reason}`,
      });
  } else if (raw !== undefined) {
    issues.push({
      path: 'nudge.thresholds',
      value: raw,
      message: `nudge.thresholds must be a list of integers or a string like "3,5,8", got ${describe(raw)}`,
    });
  }
  const exclude =
    obj.exclude === undefined ? undefined : stringList(obj.exclude, 'nudge.exclude', issues);
  if (exclude) out.exclude = exclude;
  return out;
}

function guardrailsSection(value: unknown, issues: Issues): LoopguardConfig['guardrails'] {
  const obj = record(value, 'guardrails', issues);
  if (!obj) return undefined;
  unknownKeys(
    obj,
    ['warnings', 'hardStop', 'warnAfter', 'hardStopAfter', 'repetitionCount', 'answerExits'],
    'guardrails',
    issues,
  );
  const out: NonNullable<LoopguardConfig['guardrails']> = {};
  for (const key of ['warnings', 'hardStop'] as const) {
    const b = obj[key] === undefined ? undefined : boolean(obj[key], `guardrails.${key}`, issues);
    if (b !== undefined) out[key] = b;
  }
  for (const key of ['warnAfter', 'hardStopAfter'] as const) {
    const t =
      obj[key] === undefined ? undefined : axisThresholds(obj[key], `guardrails.${key}`, issues);
    if (t) out[key] = t;
  }
  const count = oneOf(obj.repetitionCount, REPETITION_COUNTS, 'guardrails.repetitionCount', issues);
  if (count !== undefined) out.repetitionCount = count;
  const exits =
    obj.answerExits === undefined
      ? undefined
      : stringList(obj.answerExits, 'guardrails.answerExits', issues);
  if (exits) out.answerExits = exits;
  return out;
}

const REPETITION_COUNTS: readonly RepetitionCount[] = ['every', 'same-result', 'seen-result'];

/** `value` if it is one of `allowed` (undefined stays undefined), else an issue. */
function oneOf<T extends string>(
  value: unknown,
  allowed: readonly T[],
  path: string,
  issues: Issues,
): T | undefined {
  if (value === undefined) return undefined;
  if (allowed.includes(value as T)) return value as T;
  issues.push({
    path,
    value,
    message: `${path} must be one of ${allowed.join(', ')}, got ${describe(value)}`,
  });
  return undefined;
}

/** Validates a native-shape configuration strictly; keeps what is valid and names every problem. */
export function checkConfig(raw: unknown): ConfigCheck {
  const issues: Issues = [];
  const config: LoopguardConfig = {};
  const obj = record(raw, '(top level)', issues);
  if (!obj) return { config, issues };
  unknownKeys(obj, ['$schema', 'mode', 'nudge', 'guardrails', 'tools', 'scopes'], '', issues);
  if (obj.mode !== undefined) {
    if (MODES.includes(obj.mode as Mode)) config.mode = obj.mode as Mode;
    else
      issues.push({
        path: 'mode',
        value: obj.mode,
        message: `mode must be one of ${MODES.join(', ')}, got ${describe(obj.mode)}`,
      });
  }
  if (obj.nudge !== undefined) config.nudge = nudgeSection(obj.nudge, issues);
  if (obj.guardrails !== undefined) config.guardrails = guardrailsSection(obj.guardrails, issues);
  if (obj.tools !== undefined) {
    const tools = record(obj.tools, 'tools', issues);
    if (tools) {
      config.tools = {};
      for (const [name, policy] of Object.entries(tools)) {
        const p = toolPolicy(policy, `tools.${name}`, issues);
        if (p) setOwn(config.tools, name, p);
      }
    }
  }
  if (obj.scopes !== undefined) {
    const scopes = record(obj.scopes, 'scopes', issues);
    if (scopes) {
      unknownKeys(scopes, ['max', 'idleMs'], 'scopes', issues);
      config.scopes = {};
      for (const key of ['max', 'idleMs'] as const) {
        const n =
          scopes[key] === undefined ? undefined : positiveInt(scopes[key], `scopes.${key}`, issues);
        if (n !== undefined) config.scopes[key] = n;
      }
    }
  }
  return { config, issues };
}
