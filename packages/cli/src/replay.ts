import type { Engine } from '@loopguard/engine';
import type { ReplayLine, ReplayRecord } from './types.js';

const CALL_KEYS = ['scope', 'tool', 'args', 'ok', 'result', 'ran'];
const RESET_KEYS = ['reset'];

/** The keys of `obj` outside `known`, named (a typo such as "arg" would drop the arguments). */
function unknownKeys(obj: object, known: readonly string[], has: string): string | undefined {
  const unknown = Object.keys(obj).filter((key) => !known.includes(key));
  if (unknown.length === 0) return undefined;
  const names = unknown.map((key) => JSON.stringify(key)).join(', ');
  return `unknown key${unknown.length > 1 ? 's' : ''} ${names} (${has})`;
}

/** Validates one parsed input line; returns the replay line or a reason. */
export function toReplayLine(value: unknown): ReplayLine | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'expected a JSON object with "tool" (a call) or "reset" (a new turn)';
  }
  const obj = value as Record<string, unknown>;
  if ('reset' in obj) {
    const unknown = unknownKeys(obj, RESET_KEYS, 'a new turn has "reset" only');
    if (unknown !== undefined) return unknown;
    return typeof obj.reset === 'string'
      ? { reset: obj.reset }
      : '"reset" must be a string (the scope)';
  }
  const unknown = unknownKeys(
    obj,
    CALL_KEYS,
    'a call has "scope", "tool", "args", "ok", "result" and "ran"',
  );
  if (unknown !== undefined) return unknown;
  if (typeof obj.tool !== 'string' || obj.tool === '') return '"tool" must be a non-empty string';
  if (obj.scope !== undefined && typeof obj.scope !== 'string') return '"scope" must be a string';
  if (obj.ok !== undefined && typeof obj.ok !== 'boolean') return '"ok" must be true or false';
  if (obj.ran !== undefined && typeof obj.ran !== 'boolean') return '"ran" must be true or false';
  const line: ReplayLine = { tool: obj.tool, args: obj.args, result: obj.result };
  if (obj.scope !== undefined) line.scope = obj.scope as string;
  if (obj.ok !== undefined) line.ok = obj.ok as boolean;
  if (obj.ran === false) line.ran = false;
  return line;
}

/** Parses one JSONL line of a replay file. */
export function parseReplayText(text: string): ReplayLine | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not valid JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  return toReplayLine(value);
}

/** Runs replay lines through the engine as a host would: calls blocked now or when recorded are not passed to afterCall. */
export class Replayer {
  #calls = 0;

  constructor(private readonly engine: Engine) {}

  /** Replays one line; returns the record of a call, or undefined for a reset. */
  play(line: ReplayLine): ReplayRecord | undefined {
    if ('reset' in line) {
      this.engine.resetScope(line.reset);
      return undefined;
    }
    this.#calls += 1;
    const scope = line.scope ?? 'default';
    const call = { scope, tool: line.tool, args: line.args };
    const before = this.engine.beforeCall(call);
    // A call that never ran (blocked when it was recorded) has no outcome to report.
    if (line.ran === false && before.action !== 'block') this.engine.cancelCall(call);
    const decision =
      before.action === 'block' || line.ran === false
        ? before
        : this.engine.afterCall({ ...call, ok: line.ok, result: line.result });
    const record: ReplayRecord = {
      i: this.#calls,
      scope,
      tool: line.tool,
      signature: decision.signature,
      before: before.action,
      action: decision.action,
      axes: decision.findings.map((f) => f.axis),
      streak: decision.streak,
      count: decision.count,
      halt: this.engine.haltDecision(scope) !== undefined,
    };
    if (decision.level !== undefined) record.level = decision.level;
    if (line.ran === false) record.ran = false;
    return record;
  }
}
