import type { AxisThresholds, ConfigCheck, LoopguardConfig } from '../types.js';
import {
  boolean,
  digitString,
  type Issues,
  isRecord,
  positiveInt,
  switchWord,
  unknownKeys,
} from './check.js';
import { describe } from './describe.js';

/** Top-level key of a configuration written for reference 002 (`tool_loop_guardrails:`). */
export const REFERENCE_ROOT_KEY = 'tool_loop_guardrails';

const AXES: Record<string, keyof AxisThresholds> = {
  tool_repetition: 'repetition',
  exact_failure: 'exactFailure',
  same_tool_failure: 'sameToolFailure',
  idempotent_no_progress: 'noProgress',
  // the upstream flat keys of this axis are no_progress_warn_after / no_progress_block_after
  no_progress: 'noProgress',
  cycle: 'cycle',
  poll: 'poll',
};
const HARD_SUFFIXES = ['block_after', 'halt_after', 'hard_stop_after'];

function flatKeys(): Map<string, { axis: keyof AxisThresholds; hard: boolean }> {
  const keys = new Map<string, { axis: keyof AxisThresholds; hard: boolean }>();
  for (const [name, axis] of Object.entries(AXES)) {
    keys.set(`${name}_warn_after`, { axis, hard: false });
    for (const suffix of HARD_SUFFIXES) keys.set(`${name}_${suffix}`, { axis, hard: true });
  }
  return keys;
}
const FLAT = flatKeys();

function nested(value: unknown, path: string, issues: Issues): AxisThresholds {
  const out: AxisThresholds = {};
  if (!isRecord(value)) {
    issues.push({
      path,
      value,
      message: `${path} must be a mapping of axis to integer, got ${describe(value)}`,
    });
    return out;
  }
  unknownKeys(value, Object.keys(AXES), path, issues);
  for (const [name, axis] of Object.entries(AXES)) {
    if (value[name] === undefined) continue;
    const n = looseInt(value[name], `${path}.${name}`, issues);
    if (n !== undefined) out[axis] = n;
  }
  return out;
}

/** As the reference's Python reader: integers also as digit strings (`"4"`). */
function looseInt(value: unknown, path: string, issues: Issues): number | undefined {
  const n = typeof value === 'string' ? (digitString(value) ?? value) : value;
  return positiveInt(n, path, issues);
}

/** As the reference's Python reader: booleans also as words (`"yes"`, `"off"`) or 1/0. */
function looseBool(value: unknown, path: string, issues: Issues): boolean | undefined {
  const word =
    typeof value === 'string' || typeof value === 'number' ? switchWord(String(value)) : undefined;
  return word ?? boolean(value, path, issues);
}

/**
 * Reads the body of a `tool_loop_guardrails:` section the way reference 002 describes:
 * nested `warn_after` / `hard_stop_after` sections and the flat legacy keys; nested keys win.
 */
export function fromReferenceConfig(section: unknown): ConfigCheck {
  const issues: Issues = [];
  const path = REFERENCE_ROOT_KEY;
  if (section === null || section === undefined) return { config: {}, issues };
  if (!isRecord(section)) {
    issues.push({
      path,
      value: section,
      message: `${path} must be a mapping, got ${describe(section)}`,
    });
    return { config: {}, issues };
  }
  unknownKeys(
    section,
    ['hard_stop_enabled', 'warnings_enabled', 'warn_after', 'hard_stop_after', ...FLAT.keys()],
    path,
    issues,
  );
  const warnAfter: AxisThresholds = {};
  const hardStopAfter: AxisThresholds = {};
  for (const [key, { axis, hard }] of FLAT) {
    if (section[key] === undefined) continue;
    const n = looseInt(section[key], `${path}.${key}`, issues);
    if (n !== undefined) (hard ? hardStopAfter : warnAfter)[axis] = n;
  }
  if (section.warn_after !== undefined) {
    Object.assign(warnAfter, nested(section.warn_after, `${path}.warn_after`, issues));
  }
  if (section.hard_stop_after !== undefined) {
    Object.assign(
      hardStopAfter,
      nested(section.hard_stop_after, `${path}.hard_stop_after`, issues),
    );
  }
  const guardrails: NonNullable<LoopguardConfig['guardrails']> = { warnAfter, hardStopAfter };
  if (section.hard_stop_enabled !== undefined) {
    const b = looseBool(section.hard_stop_enabled, `${path}.hard_stop_enabled`, issues);
    if (b !== undefined) guardrails.hardStop = b;
  }
  if (section.warnings_enabled !== undefined) {
    const b = looseBool(section.warnings_enabled, `${path}.warnings_enabled`, issues);
    if (b !== undefined) guardrails.warnings = b;
  }
  return { config: { guardrails }, issues };
}
