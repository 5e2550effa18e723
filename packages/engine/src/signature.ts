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

function writeValue(value: unknown, out: string[], seen: Set<object>, inArray: boolean): boolean {
  if (value === null) {
    out.push('null');
    return true;
  }
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value));
      return true;
    case 'number':
      out.push(Number.isFinite(value) ? String(value) : 'null');
      return true;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return true;
    case 'bigint':
      out.push(value.toString());
      return true;
    case 'object':
      return writeObject(value, out, seen);
    default:
      // undefined, functions and symbols: dropped from objects, null in arrays (as JSON.stringify)
      if (inArray) out.push('null');
      return inArray;
  }
}

function writeObject(value: object, out: string[], seen: Set<object>): boolean {
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') {
    return writeValue(withJson.toJSON(), out, seen, false);
  }
  if (seen.has(value)) {
    out.push('"[Circular]"');
    return true;
  }
  seen.add(value);
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      writeValue(value[i], out, seen, true);
    }
    out.push(']');
  } else {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    out.push('{');
    let first = true;
    for (const key of keys) {
      const mark = out.length;
      out.push(first ? '' : ',', JSON.stringify(key), ':');
      if (writeValue(record[key], out, seen, false)) first = false;
      else out.length = mark;
    }
    out.push('}');
  }
  seen.delete(value);
  return true;
}

/**
 * Canonical JSON (contract section 1): keys sorted by UTF-16 code units, no whitespace,
 * non-ASCII characters as themselves, numbers as JavaScript prints them.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  if (!writeValue(value, out, new Set(), false)) return 'null';
  return out.join('');
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
