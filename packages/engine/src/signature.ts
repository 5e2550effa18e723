import { hash } from 'node:crypto';

const HEX16 = 16;

function isPlainJsonString(text: string): boolean {
  const first = text.trimStart()[0];
  return first === '{' || first === '[';
}

/**
 * Arguments as the engine hashes them: a JSON string (as models emit them) is parsed first,
 * a string that is not JSON stays a string, `undefined`/`null`-less absence becomes `{}`.
 */
export function normalizeArgs(args: unknown): unknown {
  if (args === undefined) return {};
  if (typeof args === 'string' && isPlainJsonString(args)) {
    try {
      return JSON.parse(args);
    } catch {
      return args;
    }
  }
  return args;
}

const OMIT = Symbol('omit');
type Piece = string | typeof OMIT;

function valueText(value: unknown, seen: Set<object>): Piece {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object':
      return objectText(value, seen);
    default:
      // undefined, functions and symbols: dropped from objects, null in arrays (as JSON.stringify)
      return OMIT;
  }
}

function objectText(value: object, seen: Set<object>): Piece {
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return valueText(withJson.toJSON(), seen);
  if (seen.has(value)) return '"[Circular]"';
  seen.add(value);
  let text: string;
  if (Array.isArray(value)) {
    text = '[';
    for (let i = 0; i < value.length; i++) {
      const item = valueText(value[i], seen);
      text += (i > 0 ? ',' : '') + (item === OMIT ? 'null' : item);
    }
    text += ']';
  } else {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length > 1) keys.sort();
    text = '{';
    let first = true;
    for (const key of keys) {
      const item = valueText(record[key], seen);
      if (item === OMIT) continue;
      text += `${first ? '' : ','}${JSON.stringify(key)}:${item}`;
      first = false;
    }
    text += '}';
  }
  seen.delete(value);
  return text;
}

/**
 * Canonical JSON (contract section 1): keys sorted by UTF-16 code units, no whitespace,
 * non-ASCII characters as themselves, numbers as JavaScript prints them.
 */
export function canonicalJson(value: unknown): string {
  const text = valueText(value, new Set());
  return text === OMIT ? 'null' : text;
}

function withoutKeys(args: unknown, ignore: readonly string[]): unknown {
  if (ignore.length === 0 || args === null || typeof args !== 'object' || Array.isArray(args)) {
    return args;
  }
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (!ignore.includes(key)) copy[key] = value;
  }
  return copy;
}

/** Lowercase hex SHA-256 of the canonical JSON of the arguments (contract section 1). */
export function argsHash(args: unknown, ignoreArgs: readonly string[] = []): string {
  return hash('sha256', canonicalJson(withoutKeys(normalizeArgs(args), ignoreArgs)), 'hex');
}

/** `<tool>:<first 16 hex digits of argsHash>`. */
export function signatureOf(
  tool: string,
  args: unknown,
  ignoreArgs: readonly string[] = [],
): string {
  return `${tool}:${argsHash(args, ignoreArgs).slice(0, HEX16)}`;
}

/** The signature for an already computed args hash. */
export function signatureFromHash(tool: string, fullHash: string): string {
  return `${tool}:${fullHash.slice(0, HEX16)}`;
}

/** A short internal hash of a tool result, for the no-progress, cycle and poll axes. */
export function resultHash(result: unknown): string {
  const text = typeof result === 'string' ? result : canonicalJson(result ?? null);
  return hash('sha1', text, 'base64');
}
